"""checkov beside the policy pack on the same synthetic graphs (those of policy_bench.py: pools of KMS
keys, buckets and their side-by-side resources, launch templates, groups, roles, logs, Kubernetes).

    .venv/bin/python bench/checkov_bench.py [--sizes 100,1000,3000] [--runs 3] [--checkov-bin PATH]

Per size: the export to a plan and manifests, checkov's single run over them (start-up included, as
`gpufleet check` pays it) two ways, interleaved run by run: as the `checkov` command, and as the warm
process `gpufleet check` starts beside the programs (gpufleet/checkov/warm.py; here started and handed
the files at once, so its wall time includes the start-up), each with its wall and CPU seconds (CPU:
the checkov process, which is what a shared machine leaves stable), medians of --runs; and the policy
pack on the same graph. Both ways must give the same results (checked). checkov comes from
.venv-checkov/ (`make checkov`), $GPUFLEET_CHECKOV or --checkov-bin.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from policy_bench import synthetic_graph  # noqa: E402

from gpufleet.checkov.export import export_graph  # noqa: E402
from gpufleet.checkov.merge import blocks_from_run, write_exports  # noqa: E402
from gpufleet.checkov.run import CheckovRun, find_checkov, run_checkov  # noqa: E402
from gpufleet.checkov.warm import WarmCheckov  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _results(run: CheckovRun) -> set[tuple[Any, ...]]:
    return {
        (report.get("check_type"), outcome, check.get("check_id"), check.get("resource"))
        for report in run.reports
        for outcome, checks in (report.get("results") or {}).items()
        for check in checks or []
    }


def _timed(start: Any) -> tuple[CheckovRun, float, float]:
    wall, cpu = time.perf_counter(), _children_cpu()
    run: CheckovRun = start()
    return run, time.perf_counter() - wall, _children_cpu() - cpu


def measure(size: int, binary: Path, runs: int) -> dict[str, float | int | str]:
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.registry import default_registry
    from gpufleet.sandbox import collector_paused

    graph = synthetic_graph(size)
    start = time.perf_counter()
    export = export_graph(graph)
    export_seconds = time.perf_counter() - start
    timings: dict[str, list[tuple[float, float]]] = {"command": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="gpufleet-checkov-bench-") as tmp:
        by_file = write_exports([export], Path(tmp))
        files = [Path(tmp) / name for name in by_file]
        seen: dict[str, set[tuple[Any, ...]]] = {}
        for _ in range(runs):
            for way, go in (
                ("command", lambda: run_checkov(binary, files, timeout=3600)),
                ("warm", lambda: WarmCheckov(binary).run(files, timeout=3600)),
            ):
                run, wall, cpu = _timed(go)
                if run.error:
                    raise SystemExit(f"checkov ({way}) failed at {size} resources: {run.error}")
                timings[way].append((wall, cpu))
                seen.setdefault(way, _results(run))
                last = run
        if seen["command"] != seen["warm"]:
            raise SystemExit(f"the warm checkov's results differ from the command's at {size} resources")
    (block,) = blocks_from_run(by_file, last).values()
    policies = list(default_registry())
    start = time.perf_counter()
    with collector_paused():
        result = evaluate_stack(graph, policies)
    pack_seconds = time.perf_counter() - start
    row: dict[str, float | int | str] = {
        "resources": size,
        "exported": export.exported,
        "export_s": round(export_seconds, 3),
        "checkov_results": int(block["passed"]) + int(block["failed"]),
        "pack_s": round(pack_seconds, 3),
        "pack_violations": len(result.violations),
    }
    for way, values in timings.items():
        row[f"{way}_s"] = round(statistics.median(v[0] for v in values), 2)
        row[f"{way}_cpu"] = round(statistics.median(v[1] for v in values), 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,3000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--checkov-bin", type=Path)
    args = parser.parse_args()
    binary = find_checkov(args.checkov_bin, ROOT)
    if binary is None:
        raise SystemExit("checkov is not installed: make checkov (or --checkov-bin PATH)")
    print(f"medians of {args.runs} runs; load average {os.getloadavg()[0]:.1f} before; {os.cpu_count()} cpus")
    print(
        f"{'resources':>9} {'exported':>8} {'export s':>8} {'command s':>9} {'cpu':>6} {'warm s':>7} "
        f"{'cpu':>6} {'results':>8} {'pack s':>7}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        row = measure(size, binary, args.runs)
        print(
            f"{row['resources']:>9} {row['exported']:>8} {row['export_s']:>8} {row['command_s']:>9} "
            f"{row['command_cpu']:>6} {row['warm_s']:>7} {row['warm_cpu']:>6} {row['checkov_results']:>8} "
            f"{row['pack_s']:>7}"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
