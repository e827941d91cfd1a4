"""Time `gpufleet plan -s dev` end to end (a fresh process per run, imports included).

Usage: python bench/plan_bench.py [--stack dev] [--runs 5] [PROJECT_DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project_dir", nargs="?", default=str(ROOT))
    parser.add_argument("--stack", "-s", default="dev")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    command = [sys.executable, "-m", "gpufleet", "plan", args.project_dir, "-s", args.stack]
    seconds: list[float] = []
    for _ in range(args.runs):
        start = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds.append(time.perf_counter() - start)
        if completed.returncode != 0:
            sys.stderr.write(completed.stderr)
            return completed.returncode

    print(f"gpufleet plan -s {args.stack}: {args.runs} runs")
    print(f"  median {statistics.median(seconds):.2f} s  min {min(seconds):.2f} s  max {max(seconds):.2f} s")
    print(
        f"  machine: {os.cpu_count()} cpus (nproc {len(os.sched_getaffinity(0))}), "
        f"python {platform.python_version()} on {platform.system()} {platform.machine()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
