"""Our own stacks under checkov: every failure fixed, or skipped with a reason (in checkov-config.json, or on
the Kubernetes object itself for the on-prem baseline)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpufleet.checkov.config import load_checkov_skips
from gpufleet.checkov.export import export_graph
from gpufleet.checkov.merge import write_exports
from gpufleet.checkov.run import run_checkov
from gpufleet.cli import app
from gpufleet.components.baseline.autoscaler import KEYS_FROM_ENV
from gpufleet.engine import run_program

pytestmark = pytest.mark.checkov
ROOT = Path(__file__).resolve().parents[2]


# Failures that wait for a skip in checkov-config.json (none left: CKV_ALI_11 and CKV_ALI_12 are skipped
# with their reasons).
PENDING_SKIPS: dict[str, set[str]] = {}
# The Alibaba and Tencent sites are small (checkov has few checks for their types).
MIN_PASSED = {"cn-dev": 10, "tc-dev": 3}
# The cluster-autoscaler Deployments of the scheduler: each selected by its own NetworkPolicy (CKV2_K8S_6)
# and given its API token by a projected volume, not the automount (CKV_K8S_38). The Alibaba and Tencent
# providers read their keys from environment variables only, so CKV_K8S_35 is skipped on those two
# Deployments with the reason (autoscaler.KEYS_FROM_ENV); nothing is left open.
AUTOSCALER = "gpufleet-hybrid-autoscaler-"
OPEN_HYBRID: list[tuple[str, str]] = []
KEYS_FROM_ENV_SITES = ("alicloud-cn-hangzhou", "tencentcloud-ap-guangzhou")


def _open(findings: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(check, autoscaler object) of each finding, the object told by its name in the resource."""
    found = []
    for f in findings:
        resource = str(f.get("resource", ""))
        names = [n for n in resource.replace("/", ".").split(".") if n.startswith(AUTOSCALER)]
        found.append((f["check_id"], names[0] if names else resource))
    return sorted(found)


def test_our_stacks_are_clean_with_documented_skips(checkov_bin: Path) -> None:
    result = CliRunner().invoke(app, ["check", str(ROOT), "--all-stacks", "--checkov-bin", str(checkov_bin)])
    assert result.exit_code == 0, result.output
    stacks = {s["stack"]: s for s in json.loads(result.stdout)["stacks"]}
    assert set(stacks) == {"dev", "prod", "account", "cn-dev", "tc-dev", "hybrid"}
    skips = load_checkov_skips(None, ROOT)
    # The hybrid stack has no open checkov finding: the on-prem baseline's GPU daemons skip what cannot be
    # fixed on the objects themselves, with the reason (test_the_hybrid_baseline_skips_per_object_only).
    hybrid = stacks.pop("hybrid")["checkov"]
    assert hybrid["status"] == "ran"
    assert _open(hybrid["findings"]) == OPEN_HYBRID
    # The baseline's 14 objects and its address plan, and the burst signal's exporter (7).
    # ... and the scheduler's (Kueue flavors and queues, three cluster-autoscalers with their RBAC, KEDA).
    # ... and the AWS autoscaler's client-certificate Secret for its signing helper (1).
    # ... and one NetworkPolicy per autoscaler (3).
    assert hybrid["exported"]["kubernetes_objects"] == 15 + 7 + 29 + 1 + 3
    # The links' VPN, route and gateway types and the burst publishers' identities are mapped: checkov
    # sees every resource of the stack.
    assert hybrid["exported"]["unmapped_types"] == {}
    for name, stack in stacks.items():
        block = stack["checkov"]
        assert block["status"] == "ran", name
        failed = sorted(f["check_id"] for f in block["findings"])
        assert failed == sorted(PENDING_SKIPS.get(name, set()) - set(skips)), (name, block["findings"])
        assert block["passed"] >= MIN_PASSED.get(name, 40), name
        assert block["skipped_checks"] == skips
        # Every resource of our stacks has a Terraform type: checkov saw all of them.
        assert block["exported"]["unmapped_types"] == {}, name
        assert set(block["seconds"]) == {"export", "checkov_all_stacks", "policy_pack"}
    # One checkov run for all the stacks: the same time in each block.
    assert len({s["checkov"]["seconds"]["checkov_all_stacks"] for s in stacks.values()}) == 1


def test_every_skip_has_a_reason_that_names_why() -> None:
    skips = load_checkov_skips(None, ROOT)
    assert sorted(skips) == [
        "CKV2_AWS_10",
        "CKV2_AWS_11",
        "CKV2_AWS_12",
        "CKV2_AWS_57",
        "CKV2_AWS_62",
        "CKV_ALI_11",
        "CKV_ALI_12",
        "CKV_AWS_144",
        "CKV_AWS_18",
        "CKV_AWS_252",
        "CKV_AWS_290",
        "CKV_AWS_338",
        "CKV_AWS_341",
        "CKV_AWS_355",
    ]
    assert all(len(reason) > 40 for reason in skips.values())


def test_the_hybrid_baseline_skips_per_object_only(checkov_bin: Path) -> None:
    """checkov reads the skips from the DaemonSets' own annotations (no --skip-check): exactly the root
    checks on both daemons and NVIDIA_VISIBLE_DEVICES=all on the exporter, each with the object's reason;
    every other Kubernetes check passes."""
    export = export_graph(run_program(ROOT, "hybrid"))
    with tempfile.TemporaryDirectory() as tmp:
        files = write_exports([export], Path(tmp))
        manifests = [Path(tmp) / name for name in files if name.endswith(".k8s.yaml")]
        run = run_checkov(checkov_bin, manifests)
    assert run.error is None, run.error
    [report] = [r for r in run.reports if r.get("check_type") == "kubernetes"]
    results: dict[str, Any] = report["results"]
    assert _open(results["failed_checks"]) == OPEN_HYBRID
    assert len(results["passed_checks"]) >= 150
    annotations = {
        (m["kind"], m["metadata"]["name"]): m["metadata"]["annotations"]
        for m in export.manifests
        if m["kind"] in ("DaemonSet", "Deployment") and m["metadata"].get("annotations")
    }
    reasons = {
        (key, value.partition("=")[0]): value.partition("=")[2]
        for key, values in annotations.items()
        for value in values.values()
    }
    skipped = sorted(
        (c["check_id"], c["resource"], c["check_result"]["suppress_comment"])
        for c in results["skipped_checks"]
    )
    plugin, exporter = "gpufleet-hybrid-nvidia-device-plugin", "gpufleet-hybrid-dcgm-exporter"
    daemons = [
        ("DaemonSet", plugin, "CKV_K8S_23"),
        ("DaemonSet", plugin, "CKV_K8S_40"),
        ("DaemonSet", exporter, "CKV_K8S_23"),
        ("DaemonSet", exporter, "CKV_K8S_40"),
        ("DaemonSet", exporter, "CKV_GPUF_7"),
    ]
    # The two autoscalers whose providers read keys from the environment only, and no other object.
    env_keys = [("Deployment", f"{AUTOSCALER}{site}", "CKV_K8S_35") for site in KEYS_FROM_ENV_SITES]
    assert set(annotations) == {(kind, name) for kind, name, _ in daemons + env_keys}
    assert skipped == sorted(
        (check, f"{kind}.kube-system.{name}", reasons[(kind, name), check])
        for kind, name, check in daemons + env_keys
    )
    assert (
        reasons[("Deployment", f"{AUTOSCALER}alicloud-cn-hangzhou"), "CKV_K8S_35"]
        == KEYS_FROM_ENV["alicloud"]
    )
    assert all(len(reason) > 80 for reason in reasons.values())
