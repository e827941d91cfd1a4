"""The fleet hands each pool its burst gate: with `burst`, the AWS pool's scale-out alarms hold back while
anything ahead has a free GPU; the Alibaba and Tencent pools, whose alarms cannot AND two namespaces,
scale as before; without `burst` nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

from gpufleet.engine import run_program
from tests.cli.helpers import ROOT, copy_project

HYBRID = (ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text(encoding="utf-8")


def _alarms(tmp_path: Path, text: str) -> dict[str, dict[str, object]]:
    project = copy_project(tmp_path / "p", stacks={"hybrid": text})
    graph = run_program(project, "hybrid")
    return {r.name: r.inputs for r in graph.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")}


def _signal_metrics(inputs: dict[str, object]) -> list[str]:
    queries = inputs.get("metricQueries") or []
    assert isinstance(queries, list)
    return [str(q["metric"]["metricName"]) for q in queries if isinstance(q, dict) and q.get("metric")]


def test_with_a_burst_order_the_aws_scale_out_alarms_read_the_baseline_signal(tmp_path: Path) -> None:
    gated = HYBRID.replace("  gpufleet:fleet:\n", "  gpufleet:fleet:\n    burst: {order: by_price}\n", 1)
    alarms = _alarms(tmp_path, gated)
    high = alarms["gpufleet-hybrid-pool-burst-aws-gpu-high"]
    deep = alarms["gpufleet-hybrid-pool-burst-aws-queue-deep"]
    assert "FreeGpusAhead" in _signal_metrics(high)
    assert "FreeGpusAhead" in _signal_metrics(deep)
    expressions = [q.get("expression") for q in high["metricQueries"] if isinstance(q, dict)]  # type: ignore[union-attr]
    assert any(isinstance(e, str) and e.startswith("IF(FILL(") for e in expressions), json.dumps(expressions)
    # Scale-in is never gated.
    low = alarms["gpufleet-hybrid-pool-burst-aws-gpu-low"]
    assert "metricQueries" not in low or "FreeGpusAhead" not in _signal_metrics(low)


def test_without_a_burst_order_no_alarm_reads_the_signal(tmp_path: Path) -> None:
    alarms = _alarms(tmp_path, HYBRID)
    assert all("FreeGpusAhead" not in _signal_metrics(inputs) for inputs in alarms.values())
