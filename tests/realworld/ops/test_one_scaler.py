"""GF-COST-006's one scaler per group, on a raw program with one GPU group per cloud that
cluster-autoscaler sizes (tagged ``gpufleet:scaler: cluster-autoscaler``): without a scaling policy the
group is not "absent autoscaling"; with one, on each cloud, the rule names the group and the policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import outcome

PROGRAM = Path(__file__).resolve().parent / "one_scaler"
TAIL = (
    "act on it too: a group has one scaler; remove them (cluster-autoscaler sizes it) or tag it "
    "gpufleet:scaler=alarms"
)


def test_groups_cluster_autoscaler_sizes_need_no_scaling_policy() -> None:
    assert outcome(PROGRAM).of("GF-COST-006") == []


@pytest.mark.parametrize(
    ("variant", "group", "message"),
    [
        (
            "aws",
            "nodes",
            "Auto Scaling group 'nodes' is tagged gpufleet:scaler=cluster-autoscaler, but its scaling "
            f"policies or alarms ('nodes-cpu') {TAIL}",
        ),
        (
            "alicloud",
            "ali-nodes",
            "ESS scaling group 'ali-nodes' is tagged gpufleet:scaler=cluster-autoscaler, but its scaling "
            f"policies or alarms ('ali-nodes-out') {TAIL}",
        ),
        (
            "tencentcloud",
            "tc-nodes",
            "AS scaling group 'tc-nodes' is tagged gpufleet:scaler=cluster-autoscaler, but its scaling "
            f"policies or alarms ('tc-nodes-out') {TAIL}",
        ),
    ],
)
def test_a_scaling_policy_on_a_cluster_autoscaler_group_is_a_second_scaler(
    variant: str, group: str, message: str
) -> None:
    found = outcome(PROGRAM, variant).of("GF-COST-006")
    assert [(f.message, f.urn.rsplit("::", 1)[1], f.enforcement) for f in found] == [
        (message, group, "mandatory")
    ]
