"""Every shipped stack end to end: `gpufleet check --all-stacks` in a fresh process (imports, every
program, the pack, checkov, the report), with checkov (the default) and with `--no-checkov`.

    .venv/bin/python bench/allstacks_bench.py [--runs 3] [PROJECT_DIR]

The variants are interleaved run by run, so a busy machine slows them alike. Printed: medians of --runs
runs, wall seconds and CPU seconds (the command and every process it waited for: the programs'
sandboxes and checkov), and the load average before and after. Besides the default (a process per CPU,
`--jobs 0`) and `--no-checkov`: `--jobs 1` (the stacks one after the other), and checkov run as a
command after the programs (GPUFLEET_CHECKOV_WARM=off, one after the other), as `check` did before it
started checkov beside them.
Target: under 10 s wall with checkov on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(project_dir: str, extra: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one `gpufleet check --all-stacks`."""
    command = [sys.executable, "-m", "gpufleet", "check", project_dir, "--all-stacks", "--format", "json"]
    wall, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [*command, *extra], capture_output=True, text=True, check=False, env={**os.environ, **env}
    )
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr)
        raise SystemExit(f"gpufleet check --all-stacks {' '.join(extra)} exited {done.returncode}")
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project_dir", nargs="?", default=str(ROOT))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    # (arguments, environment): the default (a process per CPU, checkov judging each stack as its
    # program ends); the stacks one after the other; checkov run as a command after the programs (as
    # before the warm start), one after the other; no checkov.
    variants: dict[str, tuple[list[str], dict[str, str]]] = {
        "with checkov": ([], {}),
        "--jobs 1": (["--jobs", "1"], {}),
        "checkov after": (["--jobs", "1"], {"GPUFLEET_CHECKOV_WARM": "off"}),
        "--no-checkov": (["--no-checkov"], {}),
    }
    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    load_before = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, (extra, env) in variants.items():
            timings[name].append(run_once(args.project_dir, extra, env))
    print(
        f"gpufleet check --all-stacks: medians of {args.runs} runs; load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after; {os.cpu_count()} cpus, python {platform.python_version()}"
    )
    for name, runs in timings.items():
        wall = statistics.median(t[0] for t in runs)
        cpu = statistics.median(t[1] for t in runs)
        print(
            f"  {name:<13} {wall:6.2f} s wall (min {min(t[0] for t in runs):.2f}, max "
            f"{max(t[0] for t in runs):.2f})  {cpu:6.2f} s CPU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
