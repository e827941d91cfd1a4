"""checkov beside the policy pack on the same synthetic graphs (those of policy_bench.py: pools of KMS
keys, buckets and their side-by-side resources, launch templates, groups, roles, logs, Kubernetes).

    .venv/bin/python bench/checkov_bench.py [--sizes 100,1000,5000] [--checkov-bin PATH]

Per size: the export to a plan and manifests, checkov's single run over them (start-up included, as
`gpufleet check` pays it), and the policy pack on the same graph. checkov comes from .venv-checkov/
(`make checkov`), $GPUFLEET_CHECKOV or --checkov-bin.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from policy_bench import synthetic_graph  # noqa: E402

from gpufleet.checkov.export import export_graph  # noqa: E402
from gpufleet.checkov.merge import blocks_from_run, write_exports  # noqa: E402
from gpufleet.checkov.run import find_checkov, run_checkov  # noqa: E402


def measure(size: int, binary: Path) -> dict[str, float | int | str]:
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.registry import default_registry
    from gpufleet.sandbox import collector_paused

    graph = synthetic_graph(size)
    start = time.perf_counter()
    export = export_graph(graph)
    export_seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="gpufleet-checkov-bench-") as tmp:
        by_file = write_exports([export], Path(tmp))
        run = run_checkov(binary, [Path(tmp) / name for name in by_file], timeout=3600)
    if run.error:
        raise SystemExit(f"checkov failed at {size} resources: {run.error}")
    (block,) = blocks_from_run(by_file, run).values()
    policies = list(default_registry())
    start = time.perf_counter()
    with collector_paused():
        result = evaluate_stack(graph, policies)
    pack_seconds = time.perf_counter() - start
    return {
        "resources": size,
        "exported": export.exported,
        "export_s": round(export_seconds, 3),
        "checkov_s": round(run.seconds, 2),
        "checkov_results": int(block["passed"]) + int(block["failed"]),
        "pack_s": round(pack_seconds, 3),
        "pack_violations": len(result.violations),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--checkov-bin", type=Path)
    args = parser.parse_args()
    binary = find_checkov(args.checkov_bin, ROOT)
    if binary is None:
        raise SystemExit("checkov is not installed: make checkov (or --checkov-bin PATH)")
    print(f"{'resources':>9} {'exported':>8} {'export s':>9} {'checkov s':>9} {'results':>8} {'pack s':>7}")
    for size in (int(s) for s in args.sizes.split(",")):
        row = measure(size, binary)
        print(
            f"{row['resources']:>9} {row['exported']:>8} {row['export_s']:>9} {row['checkov_s']:>9} "
            f"{row['checkov_results']:>8} {row['pack_s']:>7}"
        )


if __name__ == "__main__":
    main()
