"""GPU capacity launched by AWS Batch, an ACK node pool and a TKE node pool, written with the raw SDKs
(see gpu_launchers/__main__.py): the compliant program, one mistake per variant judged by the whole
pack, and the estimate `gpufleet cost` makes of it. Asserted for the rules these launchers feed."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from gpufleet.graph import ResourceGraph
from tests.cli.helpers import invoke
from tests.realworld.aws.harness import Outcome, run_variant
from tests.realworld.netaccess.support import judge

PROGRAM = Path(__file__).resolve().parent / "gpu_launchers"
RULES = {
    "GF-ACC-003",
    "GF-STOR-008",
    "GF-COST-001",
    "GF-COST-002",
    "GF-COST-003",
    "GF-COST-004",
    "GF-COST-005",
    "GF-COST-006",
    "GF-COST-007",
}
# Alibaba Cloud has no budget resource: the stack's budget is declared in the pack config.
BUDGET = {"stack-has-budget-alert": {"budgets": {"monthly": 50000, "currency": "CNY"}}}
DEV_ONLY = "dev allows only T4, A10G, A10, L4 GPUs"
SPOT_TAIL = "runs 0% of its capacity on spot; dev pools need at least 100%"
DISK_TAIL = "encrypt it or enable the account's default volume encryption"
IDLE_TAIL = "running when idle and has no off-hours schedule to zero; set the minimum to 0"

# variant -> {(rule id, resource name or "" for the stack, message)}
VARIANTS: dict[str, set[tuple[str, str, str]]] = {
    "batch-no-ssm": {
        (
            "GF-ACC-003",
            "train",
            "Batch compute environment 'train' (g5) uses role 'batch-node', which does not grant Session "
            "Manager access; attach AmazonSSMManagedInstanceCore (or allow ssm:UpdateInstanceInformation and "
            "ssmmessages channel actions)",
        )
    },
    "batch-on-demand": {("GF-COST-004", "train", f"Batch compute environment 'train' (dev) {SPOT_TAIL}")},
    "batch-a100": {
        ("GF-COST-003", "train", f"Batch compute environment 'train' (dev) uses p4d (A100); {DEV_ONLY}")
    },
    "batch-warm": {
        ("GF-COST-005", "train", f"Batch compute environment 'train' (dev) keeps its minVcpus 32 {IDLE_TAIL}")
    },
    "batch-huge": {
        (
            "GF-COST-007",
            "",
            "the dev GPU pools can cost 1040.48 USD/h at maximum size and on-demand prices, over the dev cap "
            "of 50 USD/h (train: 1024 x g5.xlarge (us-east-1) at 1.01 USD/h, 4096 vCPUs; ack-gpu: 4 x "
            "ecs.gn7i-c8g1.2xlarge (cn-hangzhou) at 1.32 USD/h; tke-gpu: 4 x GN7.2XLARGE32 (ap-guangzhou) at "
            "1.26 USD/h)",
        )
    },
    "batch-no-template": {
        (
            "GF-STOR-008",
            "train",
            "Batch compute environment 'train' has an unencrypted root volume (no "
            f"computeResources.launchTemplate with encrypted volumes); {DISK_TAIL}",
        )
    },
    "ack-no-session-manager": {
        (
            "GF-ACC-003",
            "ack-gpu",
            "ACK node pool 'ack-gpu' (ecs.gn7i-c8g1.2xlarge) is not reachable by Session Manager: enable it "
            "with alicloud.ecs.EcsSessionManagerStatus (status Enabled) in this stack",
        )
    },
    "ack-a100": {
        (
            "GF-COST-003",
            "ack-gpu",
            f"ACK node pool 'ack-gpu' (dev) uses ecs.gn7-c12g1.3xlarge (A100); {DEV_ONLY}",
        )
    },
    "ack-on-demand": {("GF-COST-004", "ack-gpu", f"ACK node pool 'ack-gpu' (dev) {SPOT_TAIL}")},
    "ack-fixed": {
        (
            "GF-COST-005",
            "ack-gpu",
            "ACK node pool 'ack-gpu' (dev) has a fixed size and no off-hours schedule to zero; enable its "
            "autoscaling with a minimum of 0",
        )
    },
    "ack-plain-disk": {
        (
            "GF-STOR-008",
            "ack-gpu",
            f"ACK node pool 'ack-gpu' has an unencrypted data disk #0 (dataDisks[].encrypted); {DISK_TAIL}",
        )
    },
    "tke-no-tat": {
        (
            "GF-ACC-003",
            "tke-gpu",
            "TKE node pool 'tke-gpu' (GN7.2XLARGE32) is not operated through TAT: this stack has no "
            "tencentcloud.tat Command or Invoker (or scaling-group lifecycle command); use TAT instead of "
            "SSH",
        )
    },
    "tke-warm": {
        ("GF-COST-005", "tke-gpu", f"TKE node pool 'tke-gpu' (dev) keeps its minimum size 1 {IDLE_TAIL}")
    },
    "tke-huge": {
        (
            "GF-COST-007",
            "",
            "the dev GPU pools can cost 97.18 USD/h at maximum size and on-demand prices, over the dev cap "
            "of 50 USD/h (train: 1 x g5.48xlarge (us-east-1) at 16.29 USD/h, 64 vCPUs; ack-gpu: 4 x "
            "ecs.gn7i-c8g1.2xlarge (cn-hangzhou) at 1.32 USD/h; tke-gpu: 60 x GN7.2XLARGE32 (ap-guangzhou) "
            "at 1.26 USD/h)",
        )
    },
    "tke-on-demand": {("GF-COST-004", "tke-gpu", f"TKE node pool 'tke-gpu' (dev) {SPOT_TAIL}")},
    "tke-plain-disk": {
        (
            "GF-STOR-008",
            "tke-gpu",
            "TKE node pool 'tke-gpu' has an unencrypted data disk #0 "
            f"(autoScalingConfig.dataDisks[].encrypt); {DISK_TAIL}",
        )
    },
}


def graph_of(variant: str) -> ResourceGraph:
    return run_variant(PROGRAM, variant, "dev")


@cache
def outcome(variant: str, budget: str = json.dumps(BUDGET)) -> Outcome:
    return judge(graph_of(variant), json.loads(budget))


def findings(found: Outcome) -> set[tuple[str, str, str]]:
    return {
        (v.rule_id, v.urn.rsplit("::", 1)[-1] if v.urn else "", v.message)
        for v in found.violations
        if v.rule_id in RULES
    }


def test_the_program_registers_each_launcher() -> None:
    graph = graph_of("none")
    assert [r.name for r in graph.of_type("aws:batch/computeEnvironment:ComputeEnvironment")] == ["train"]
    assert [r.name for r in graph.of_type("alicloud:cs/nodePool:NodePool")] == ["ack-gpu"]
    assert [r.name for r in graph.of_type("tencentcloud:Kubernetes/nodePool:NodePool")] == ["tke-gpu"]


def test_compliant_program_passes_these_rules() -> None:
    assert findings(outcome("none")) == set(), outcome("none").summary()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_reported_by_its_rule(variant: str) -> None:
    found = outcome(variant)
    assert findings(found) == VARIANTS[variant], found.summary()
    assert all(v.enforcement == "mandatory" for v in found.violations if v.rule_id in RULES)


def test_alibaba_budget_holds_the_fixed_ack_pool() -> None:
    # Two nodes around the clock: 2 x 9.5326 CNY (the catalogue's cn-hangzhou list price) x 730 h.
    tight = json.dumps({"stack-has-budget-alert": {"budgets": {"monthly": 10000, "currency": "CNY"}}})
    assert ("GF-COST-002", "", "the Alibaba Cloud pools' monthly estimate of 13917.60 CNY (every pool at its "
            "minimum size, 730 h, on-demand) exceeds the declared budget of 10000 CNY") in findings(
        outcome("ack-fixed", tight)
    )  # fmt: skip
    assert not [v for v in outcome("none", tight).violations if v.rule_id == "GF-COST-002"]


def test_cost_command_prices_every_launcher() -> None:
    run = invoke("cost", str(PROGRAM), "--stack", "dev", "--format", "json")
    assert run.exit_code == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    pools = {p["pool"]: p for p in report["pools"]}
    assert {name: (p["cloud"], p["instance_type"], p["max"]) for name, p in pools.items()} == {
        "train": ("aws", "g5.48xlarge", 1),
        "ack-gpu": ("alicloud", "ecs.gn7i-c8g1.2xlarge", 4),
        "tke-gpu": ("tencentcloud", "GN7.2XLARGE32", 4),
    }
    assert {p["spot_percent"] for p in pools.values()} == {100.0}
    assert report.get("unpriced", []) == []
