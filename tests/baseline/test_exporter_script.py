"""The exporter script, run in-process: free GPUs from recorded node and pod JSON, the datapoints it
publishes, its probe check, and its free_gpus_ahead against the burst compiler's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.components.baseline import exporter_script as script
from gpufleet.components.pools.burst import Gate, PoolHeadroom, free_gpus_ahead

BASELINE = {"gpufleet.io/capacity": "baseline"}


def node(name: str, gpus: Any = "8", *, labels: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"conditions": [{"type": "Ready", "status": extra.pop("ready", "True")}]}
    if gpus is not None:
        status["allocatable"] = {"cpu": "96", "nvidia.com/gpu": gpus}
    return {
        "metadata": {"name": name, "labels": BASELINE if labels is None else labels},
        "spec": extra,
        "status": status,
    }


def pod(
    on: str | None, gpus: Any = None, *, phase: str = "Running", limit_only: bool = False, **spec: Any
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if gpus is not None:
        resources = {"limits": {"nvidia.com/gpu": gpus}}
        if not limit_only:
            resources["requests"] = {"nvidia.com/gpu": gpus}
    body: dict[str, Any] = {"containers": [{"name": "main", "resources": resources}], **spec}
    if on is not None:
        body["nodeName"] = on
    return {"metadata": {"name": "p"}, "spec": body, "status": {"phase": phase}}


@pytest.mark.parametrize(
    ("nodes", "pods", "free"),
    [
        pytest.param([node("gpu-01"), node("gpu-02")], [], 16, id="empty-cluster"),
        pytest.param([node("gpu-01")], [pod("gpu-01", "3"), pod("gpu-01", "2")], 3, id="requests-subtract"),
        pytest.param([node("gpu-01")], [pod("gpu-01", "2", limit_only=True)], 6, id="limit-alone-counts"),
        pytest.param(
            [node("gpu-01")],
            [pod("gpu-01", "4", phase="Succeeded"), pod("gpu-01", "4", phase="Failed"), pod("gpu-01", "1")],
            7,
            id="terminated-pods-free-their-gpus",
        ),
        pytest.param(
            [node("gpu-01")], [pod("gpu-01", "1", phase="Pending")], 7, id="pending-bound-pod-holds"
        ),
        pytest.param([node("gpu-01")], [pod(None, "8", phase="Pending")], 8, id="unscheduled-pod-holds-none"),
        pytest.param(
            [node("gpu-01"), node("cpu-01", None, labels={})], [pod("cpu-01", "4")], 8, id="non-gpu-node"
        ),
        pytest.param([node("gpu-01", None)], [], 0, id="missing-allocatable"),
        pytest.param([node("gpu-01", "0")], [], 0, id="zero-allocatable"),
        pytest.param(
            [node("gpu-01", "2.5"), node("gpu-02", "-1"), node("gpu-03", True)], [], 0, id="bad-quantity"
        ),
        pytest.param([node("gpu-01", 4)], [], 4, id="integer-quantity"),
        pytest.param([node("gpu-01", labels={"gpu": "a100"})], [], 0, id="outside-the-selector"),
        pytest.param([node("gpu-01", unschedulable=True), node("gpu-02")], [], 8, id="cordoned-node"),
        pytest.param([node("gpu-01", ready="False"), node("gpu-02")], [], 8, id="not-ready-node"),
        pytest.param([node("gpu-01", "2")], [pod("gpu-01", "4")], 0, id="over-requested-never-negative"),
        pytest.param(
            [node("gpu-01", "2"), node("gpu-02")], [pod("gpu-01", "4")], 8, id="one-node-short-not-the-other"
        ),
        pytest.param(
            [node("gpu-01")],
            [
                pod(
                    "gpu-01",
                    "1",
                    initContainers=[{"name": "warm", "resources": {"requests": {"nvidia.com/gpu": "4"}}}],
                )
            ],
            4,
            id="init-container-larger",
        ),
        pytest.param(
            [node("gpu-01")],
            [
                pod(
                    "gpu-01",
                    "1",
                    initContainers=[
                        {
                            "name": "side",
                            "restartPolicy": "Always",
                            "resources": {"limits": {"nvidia.com/gpu": "2"}},
                        }
                    ],
                )
            ],
            5,
            id="sidecar-adds",
        ),
        pytest.param(
            [node("gpu-01"), {"metadata": None}, "junk"], ["junk", {"spec": None}], 8, id="junk-ignored"
        ),
    ],
)
def test_baseline_free(nodes: list[Any], pods: list[Any], free: int) -> None:
    assert script.baseline_free(nodes, pods, BASELINE) == free


def test_an_empty_selector_takes_every_gpu_node() -> None:
    nodes = [node("gpu-01", labels={}), node("gpu-02", labels={"x": "y"})]
    assert script.baseline_free(nodes, [], {}) == 16


@pytest.mark.parametrize(
    ("ahead", "free", "pools"),
    [
        ((), 5, []),
        ((), -3, []),
        (("alicloud:cn-hangzhou",), 0, [("alicloud:cn-hangzhou", 2, 8, 1), ("aws:us-east-1", 0, 4, 4)]),
        (
            ("alicloud:cn-hangzhou", "aws:us-west-2"),
            2,
            [("alicloud:cn-hangzhou", 9, 8, 1), ("aws:us-west-2", 1, 4, 8)],
        ),
        (("tencentcloud:ap-guangzhou",), 1, [("alicloud:cn-hangzhou", 0, 8, 1)]),
    ],
)
def test_the_vendored_free_gpus_ahead_agrees_with_the_compiler(
    ahead: tuple[str, ...], free: int, pools: list[tuple[str, int, int, int]]
) -> None:
    gate = Gate(site="aws:us-east-1", position=len(ahead) + 1, ahead=ahead, enforcement="metric-math")
    theirs = free_gpus_ahead(
        gate,
        free,
        [PoolHeadroom(site=s, in_service=i, max_size=m, gpus_per_instance=g) for s, i, m, g in pools],
    )
    ours = script.free_gpus_ahead(ahead, free, [script.Headroom(s, i, m, g) for s, i, m, g in pools])
    assert ours == theirs
    assert (script.SIGNAL_NAMESPACE, script.SIGNAL_METRIC, script.SITE_DIMENSION) == (
        "gpufleet/Baseline",
        "FreeGpusAhead",
        "Site",
    )


CONFIG = {
    "namespace": "gpufleet/Baseline",
    "metric": "FreeGpusAhead",
    "dimension": "Site",
    "interval_seconds": 60,
    "node_selector": BASELINE,
    "sites": [
        {"site": "aws:us-east-1", "region": "us-east-1", "ahead": []},
        {"site": "aws:us-west-2", "region": "us-west-2", "ahead": ["aws:us-east-1"]},
    ],
}


def test_one_run_publishes_one_datapoint_per_site_into_its_region() -> None:
    sent: list[tuple[dict[str, Any], str]] = []
    data = script.run_once(
        CONFIG,
        read=lambda: ([node("gpu-01"), node("gpu-02")], [pod("gpu-01", "8"), pod("gpu-02", "5")]),
        put=lambda by_region, namespace: sent.append((dict(by_region), namespace)),
    )
    point = {"MetricName": "FreeGpusAhead", "Value": 3.0, "Unit": "Count", "StorageResolution": 60}
    assert data["aws"] == {
        "us-east-1": [{**point, "Dimensions": [{"Name": "Site", "Value": "aws:us-east-1"}]}],
        "us-west-2": [{**point, "Dimensions": [{"Name": "Site", "Value": "aws:us-west-2"}]}],
    }
    assert data["failed"] == {}
    assert "alicloud" not in data  # no alicloud section in the config
    assert sent == [(data["aws"], "gpufleet/Baseline")]


def test_a_failed_reading_publishes_nothing() -> None:
    sent: list[Any] = []

    def broken() -> tuple[list[Any], list[Any]]:
        raise OSError("connection refused")

    with pytest.raises(OSError):
        script.run_once(CONFIG, read=broken, put=lambda *a: sent.append(a))
    assert sent == []


def test_the_probe_passes_on_a_fresh_heartbeat_only(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG), encoding="utf-8")
    beat = tmp_path / "heartbeat"
    args = ["--config", str(config), "--heartbeat", str(beat), "--check"]
    assert script.main(args) == 1  # nothing published yet
    beat.write_text("{}", encoding="utf-8")
    assert script.main(args) == 0
    old = beat.stat().st_mtime - 181  # three intervals and a second
    os.utime(beat, (old, old))
    assert script.main(args) == 1


def test_the_script_imports_only_the_standard_library() -> None:
    import ast

    tree = ast.parse(Path(script.__file__).read_text(encoding="utf-8"))
    imported = {
        (alias.name if isinstance(n, ast.Import) else n.module or "").split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for alias in (n.names if isinstance(n, ast.Import) else [n.names[0]])
    }
    assert "boto3" in imported  # the AWS publish, imported lazily
    assert imported - {"__future__", "boto3"} <= sys.stdlib_module_names
