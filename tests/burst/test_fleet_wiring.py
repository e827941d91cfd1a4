"""The fleet hands each pool its burst gate and builds the gate's publisher: with `burst`, the AWS pool's
scale-out alarms hold back while anything ahead has a free GPU, and the BaselineSignal role, its Roles
Anywhere trust and the exporter on the on-prem cluster are built; the Alibaba and Tencent pools, whose
alarms cannot AND two namespaces, scale as before; without `burst` nothing of the signal is built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from tests.burst.conftest import QUEUE_FED_HYBRID
from tests.cli.helpers import copy_project

HYBRID = QUEUE_FED_HYBRID
FLEET = "gpufleet-hybrid"
SECRET_SIG = "4dabf18193072939515e22adb298388d"


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> ResourceGraph:
    project = copy_project(tmp_path_factory.mktemp("gated") / "p", stacks={"hybrid": HYBRID})
    return run_program(project, "hybrid")


def _without_burst() -> str:
    doc = yaml.safe_load(HYBRID)
    fleet = doc["config"]["gpufleet:fleet"]
    del fleet["burst"]
    del fleet["onprem"]["signal"]
    return yaml.safe_dump(doc, sort_keys=False)


def _alarms(graph: ResourceGraph) -> dict[str, dict[str, Any]]:
    return {r.name: r.inputs for r in graph.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")}


def _signal_metrics(inputs: dict[str, Any]) -> list[str]:
    queries = inputs.get("metricQueries") or []
    assert isinstance(queries, list)
    return [str(q["metric"]["metricName"]) for q in queries if isinstance(q, dict) and q.get("metric")]


def test_with_a_burst_order_the_aws_scale_out_alarms_read_the_baseline_signal(gated: ResourceGraph) -> None:
    alarms = _alarms(gated)
    high = alarms[f"{FLEET}-pool-burst-aws-gpu-high"]
    (backlog,) = [r for r in gated.of_type("aws:autoscaling/policy:Policy") if r.name.endswith("aws-backlog")]
    assert "FreeGpusAhead" in _signal_metrics(high)
    assert "FreeGpusAhead" in json.dumps(backlog.inputs)
    expressions = [q.get("expression") for q in high["metricQueries"] if isinstance(q, dict)]
    assert any(isinstance(e, str) and e.startswith("IF(FILL(") for e in expressions), json.dumps(expressions)
    # Scale-in is never gated.
    low = alarms[f"{FLEET}-pool-burst-aws-gpu-low"]
    assert "metricQueries" not in low or "FreeGpusAhead" not in _signal_metrics(low)


def _subtree(graph: ResourceGraph, type_: str, name: str) -> list[tuple[str, str]]:
    (parent,) = [r for r in graph.of_type(type_) if r.name == name]
    return sorted((r.type, r.name) for r in graph.children(parent.urn))


def test_the_signal_is_built_with_its_trust_and_its_exporter(gated: ResourceGraph) -> None:
    assert _subtree(gated, "gpufleet:baseline:BaselineSignal", FLEET) == [
        ("aws:iam/role:Role", f"{FLEET}-signal-role"),
        ("aws:iam/rolePolicy:RolePolicy", f"{FLEET}-signal-publish"),
        ("aws:rolesanywhere/profile:Profile", f"{FLEET}-signal-profile"),
        ("aws:rolesanywhere/trustAnchor:TrustAnchor", f"{FLEET}-signal-anchor"),
    ]
    exporter = f"{FLEET}-signal-exporter"
    assert _subtree(gated, "gpufleet:baseline:SignalExporter", exporter) == [
        ("kubernetes:apps/v1:Deployment", f"{exporter}-deployment"),
        ("kubernetes:core/v1:ConfigMap", f"{exporter}-config"),
        ("kubernetes:core/v1:Namespace", f"{exporter}-ns"),
        ("kubernetes:core/v1:Secret", f"{exporter}-client"),
        ("kubernetes:core/v1:ServiceAccount", f"{exporter}-account"),
        ("kubernetes:networking.k8s.io/v1:NetworkPolicy", f"{exporter}-egress"),
        ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", f"{exporter}-reader"),
        ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", f"{exporter}-reader-binding"),
    ]
    (exporter_component,) = gated.of_type("gpufleet:baseline:SignalExporter")
    # Every exporter object goes to the on-prem cluster through the baseline's provider, never the
    # ambient kubeconfig.
    providers = {r.provider for r in gated.children(exporter_component.urn)}
    assert providers == {
        f"urn:pulumi:hybrid::gpufleet::gpufleet:fleet:HybridGpuFleet$gpufleet:baseline:OnPremBaseline"
        f"$pulumi:providers:kubernetes::{FLEET}-onprem-cluster"
    }


def test_the_trust_anchor_and_secret_come_from_the_secret_config(gated: ResourceGraph) -> None:
    (anchor,) = gated.of_type("aws:rolesanywhere/trustAnchor:TrustAnchor")
    source = anchor.inputs["source"]
    assert source["sourceType"] == "CERTIFICATE_BUNDLE"
    assert SECRET_SIG in source["sourceData"]["x509CertificateData"]  # kept secret
    (secret,) = gated.of_type("kubernetes:core/v1:Secret")
    assert SECRET_SIG in secret.inputs["stringData"]
    assert sorted(secret.inputs["stringData"]["value"]) == ["tls.crt", "tls.key"]


def test_the_exporter_publishes_for_the_aws_site_on_the_named_gpu_nodes(gated: ResourceGraph) -> None:
    (config_map,) = [r for r in gated.of_type("kubernetes:core/v1:ConfigMap") if r.name.endswith("-config")]
    config = json.loads(config_map.inputs["data"]["config.json"])
    # The hybrid stack gates Alibaba too: its section is pinned in tests/burst/test_china_exporter.py.
    assert [s["site"] for s in config.pop("alicloud")["sites"]] == ["alicloud:cn-hangzhou"]
    assert config == {
        "dimension": "Site",
        "interval_seconds": 60,
        "metric": "FreeGpusAhead",
        "namespace": "gpufleet/Baseline",
        # The named DGX nodes are labelled gpufleet.io/capacity=baseline by the baseline.
        "node_selector": {"gpufleet.io/capacity": "baseline"},
        "order": ["aws:us-east-1", "alicloud:cn-hangzhou", "tencentcloud:ap-guangzhou"],
        "sites": [{"ahead": [], "region": "us-east-1", "site": "aws:us-east-1"}],
    }
    (fleet,) = gated.of_type("gpufleet:fleet:HybridGpuFleet")
    assert sorted(fleet.outputs["signal_arns"]) == ["profile", "role", "trust_anchor"]


def test_without_a_burst_order_nothing_reads_or_publishes_the_signal(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "p", stacks={"hybrid": _without_burst()})
    graph = run_program(project, "hybrid")
    assert all("FreeGpusAhead" not in _signal_metrics(inputs) for inputs in _alarms(graph).values())
    assert graph.of_type("gpufleet:baseline:BaselineSignal", "gpufleet:baseline:SignalExporter") == []
    assert graph.of_type("aws:rolesanywhere/profile:Profile") == []


def test_the_stack_exports_the_signal_arns(gated: ResourceGraph) -> None:
    (stack,) = gated.of_type("pulumi:pulumi:Stack")
    assert sorted(stack.outputs["burst_signal_arns"]) == ["profile", "role", "trust_anchor"]
