"""AWS Batch compute environments, ACK node pools and TKE node pools are GPU pools: each cost rule
fires on them and passes their compliant look-alike (GF-COST-002..007, per launcher)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.cost import (
    autoscaling_sanity,
    cost_tags,
    gpu_instance_allowlist,
    nonprod_off_hours,
    nonprod_spot_share,
    stack_budget,
    worst_case_hourly,
)
from gpufleet.policies.cost.pools import discover_pools, hourly_envelope

from .helpers import UNKNOWN_NUM, UNKNOWN_STR, FakeCatalog, check_resource, check_stack, res

BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"
ACK = "alicloud:cs/nodePool:NodePool"
TKE = "tencentcloud:Kubernetes/nodePool:NodePool"
DEV_ONLY = "dev allows only T4, A10G, A10, L4 GPUs"


def batch(compute: Mapping[str, Any] | None = None, **props: Any) -> PolicyResource:
    resources = {
        "type": "SPOT",
        "instanceTypes": ["g5"],
        "maxVcpus": 64,
        "subnets": ["subnet-1"],
        **(compute or {}),
    }
    return res(
        BATCH, "batch", {"type": "MANAGED", "region": "us-east-1", "computeResources": resources, **props}
    )


def ack(**props: Any) -> PolicyResource:
    given = {
        "clusterId": "c-1",
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
        "spotStrategy": "SpotAsPriceGo",
        "scalingConfig": {"enable": True, "minSize": 0, "maxSize": 4},
        **props,
    }
    return res(
        ACK,
        "ack",
        {k: v for k, v in given.items() if v is not None},
        provider_props={"region": "cn-hangzhou"},
    )


def tke(config: Mapping[str, Any] | None = None, **props: Any) -> PolicyResource:
    scaling = {"instanceType": "GN7.2XLARGE32", "instanceChargeType": "SPOTPAID", **(config or {})}
    given = {"clusterId": "cls-1", "vpcId": "vpc-1", "minSize": 0, "maxSize": 4, "autoScalingConfig": scaling}
    given.update(props)
    return res(
        TKE,
        "tke",
        {k: v for k, v in given.items() if v is not None},
        provider_props={"region": "ap-guangzhou"},
    )


def messages(
    policy: Any, resources: list[PolicyResource], config: Mapping[str, Any] | None = None
) -> list[str]:
    return [message for message, _ in check_stack(policy, resources, config=config)]


# --- the pool model -------------------------------------------------------------------------------
def test_batch_is_a_pool_sized_in_vcpus(fake_catalog: FakeCatalog) -> None:
    (pool,) = discover_pools([batch()], fake_catalog)
    assert (pool.kind, pool.instance_types, pool.spot_percent) == (
        "Batch compute environment",
        ("g5",),
        100.0,
    )
    assert (pool.min_vcpus, pool.max_vcpus) == (0, 64)
    # 64 vCPUs buy at most 8 g5.2xlarge (8 vCPUs each) or 2 g5.12xlarge (48 each).
    assert (pool.min_size, pool.max_size, pool.idle_scale_in, pool.scalable) == (0, 8, True, False)


def test_batch_general_purpose_choices_are_left_out_of_a_gpu_pool(fake_catalog: FakeCatalog) -> None:
    (pool,) = discover_pools([batch({"instanceTypes": ["optimal", "g4dn", "default_x86_64"]})], fake_catalog)
    assert pool.instance_types == ("g4dn",)
    envelope = hourly_envelope([pool], fake_catalog)
    assert (envelope.unpriced, [line.render() for line in envelope.lines]) == (
        (),
        ["batch: 16 x g4dn.xlarge (us-east-1) at 0.50 USD/h, 64 vCPUs"],
    )


def test_batch_without_gpus_fargate_and_unmanaged_are_not_pools(fake_catalog: FakeCatalog) -> None:
    assert discover_pools([batch({"instanceTypes": ["optimal"]})], fake_catalog) == []
    assert discover_pools([batch({"type": "FARGATE_SPOT", "instanceTypes": None})], fake_catalog) == []
    assert discover_pools([batch(type="UNMANAGED")], fake_catalog) == []


def test_node_pools_are_cluster_scaled_pools(fake_catalog: FakeCatalog) -> None:
    ali, tc = discover_pools([ack(), tke(config={"backupInstanceTypes": ["GN7.5XLARGE80"]})], fake_catalog)
    assert (ali.kind, ali.region, ali.min_size, ali.max_size, ali.spot_percent) == (
        "ACK node pool",
        "cn-hangzhou",
        0,
        4,
        100.0,
    )
    assert (ali.cluster_scaled, ali.idle_scale_in) == (True, True)
    assert (tc.kind, tc.instance_types, tc.region, tc.spot_percent) == (
        "TKE node pool",
        ("GN7.2XLARGE32", "GN7.5XLARGE80"),
        "ap-guangzhou",
        100.0,
    )
    # Without a scaling config the ACK pool stays at desiredSize (a string in the SDK).
    (fixed,) = discover_pools([ack(scalingConfig=None, desiredSize="3")], fake_catalog)
    assert (fixed.min_size, fixed.max_size, fixed.idle_scale_in) == (3, 3, False)


def test_batch_envelope_takes_the_dearest_type_for_its_vcpus(fake_catalog: FakeCatalog) -> None:
    envelope = hourly_envelope(discover_pools([batch({"maxVcpus": 1000})], fake_catalog), fake_catalog)
    # g5.12xlarge: 21 x 7.20 = 151.20 beats g5.2xlarge: 125 x 1.00.
    assert [line.render() for line in envelope.lines] == [
        "batch: 21 x g5.12xlarge (us-east-1) at 7.20 USD/h, 1000 vCPUs"
    ]
    assert (envelope.min_hourly, envelope.max_hourly) == (0.0, 151.2)


def test_a_region_the_catalogue_does_not_price_is_unpriced_on_every_cloud(fake_catalog: FakeCatalog) -> None:
    jakarta = res(
        TKE,
        "tke",
        {"minSize": 0, "maxSize": 4, "autoScalingConfig": {"instanceType": "GN7.2XLARGE32"}},
        provider_props={"region": "ap-jakarta"},
    )
    stack = [ack(region="cn-wulanchabu"), jakarta, batch(region="ap-south-2")]
    pools = discover_pools(stack, fake_catalog)
    envelope = hourly_envelope(pools, fake_catalog)
    assert envelope.lines == ()
    assert envelope.unpriced == (
        "ack: ecs.gn7i-c8g1.2xlarge in cn-wulanchabu",
        "tke: GN7.2XLARGE32 in ap-jakarta",
        "batch: g5.2xlarge in ap-south-2",
        "batch: g5.12xlarge in ap-south-2",
    )


# --- GF-COST-003: GPU classes allowed ------------------------------------------------------------
def test_allowlist_fires_on_each_launcher() -> None:
    policy = gpu_instance_allowlist.POLICY
    assert messages(policy, [batch({"instanceTypes": ["g5", "p4d"]})]) == [
        f"Batch compute environment 'batch' (dev) uses p4d (A100); {DEV_ONLY}"
    ]
    assert messages(policy, [batch({"instanceTypes": ["p4d.24xlarge"]})]) == [
        f"Batch compute environment 'batch' (dev) uses p4d.24xlarge (A100); {DEV_ONLY}"
    ]
    assert messages(policy, [ack(instanceTypes=["ecs.gn7-c12g1.3xlarge"])]) == [
        f"ACK node pool 'ack' (dev) uses ecs.gn7-c12g1.3xlarge (A100); {DEV_ONLY}"
    ]
    assert messages(policy, [tke(config={"backupInstanceTypes": ["GT4.41XLARGE948"]})]) == [
        f"TKE node pool 'tke' (dev) uses GT4.41XLARGE948 (A100); {DEV_ONLY}"
    ]


def test_allowlist_passes_dev_classes_on_each_launcher() -> None:
    assert (
        check_stack(gpu_instance_allowlist.POLICY, [batch({"instanceTypes": ["g5", "g4dn"]}), ack(), tke()])
        == []
    )


# --- GF-COST-004: spot share ---------------------------------------------------------------------
def test_spot_share_fires_on_on_demand_launchers() -> None:
    stack = [
        batch({"type": "EC2"}),
        ack(spotStrategy="NoSpot"),
        tke(config={"instanceChargeType": "POSTPAID_BY_HOUR"}),
    ]
    assert messages(nonprod_spot_share.POLICY, stack) == [
        "Batch compute environment 'batch' (dev) runs 0% of its capacity on spot; dev pools need at least "
        "100%",
        "ACK node pool 'ack' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
        "TKE node pool 'tke' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
    ]


def test_ack_cost_optimized_split_is_the_share() -> None:
    split = ack(
        multiAzPolicy="COST_OPTIMIZED", onDemandBaseCapacity="0", onDemandPercentageAboveBaseCapacity="50"
    )
    assert messages(nonprod_spot_share.POLICY, [split]) == [
        "ACK node pool 'ack' (dev) runs 50% of its capacity on spot; dev pools need at least 100%"
    ]


def test_spot_share_passes_spot_launchers() -> None:
    assert check_stack(nonprod_spot_share.POLICY, [batch(), ack(), tke()]) == []


# --- GF-COST-005: scale to zero ------------------------------------------------------------------
def test_idle_floor_above_zero_fires() -> None:
    stack = [
        batch({"minVcpus": 16}),
        ack(scalingConfig={"enable": True, "minSize": 2, "maxSize": 4}),
        tke(minSize=1),
    ]
    assert messages(nonprod_off_hours.POLICY, stack) == [
        "Batch compute environment 'batch' (dev) keeps its minVcpus 16 running when idle and has no "
        "off-hours schedule to zero; set the minimum to 0",
        "ACK node pool 'ack' (dev) keeps its minimum size 2 running when idle and has no off-hours schedule "
        "to zero; set the minimum to 0",
        "TKE node pool 'tke' (dev) keeps its minimum size 1 running when idle and has no off-hours schedule "
        "to zero; set the minimum to 0",
    ]


def test_fixed_size_node_pools_fire() -> None:
    stack = [ack(scalingConfig=None, desiredSize="2"), tke(enableAutoScale=False)]
    assert messages(nonprod_off_hours.POLICY, stack) == [
        "ACK node pool 'ack' (dev) has a fixed size and no off-hours schedule to zero; enable its "
        "autoscaling with a minimum of 0",
        "TKE node pool 'tke' (dev) has a fixed size and no off-hours schedule to zero; enable its "
        "autoscaling with a minimum of 0",
    ]


def test_launchers_that_idle_to_zero_pass() -> None:
    assert check_stack(nonprod_off_hours.POLICY, [batch(), ack(), tke()]) == []


# --- GF-COST-006: autoscaling sanity -------------------------------------------------------------
def test_cluster_scaled_node_pools_need_no_cloud_scaling_policy() -> None:
    assert check_stack(autoscaling_sanity.POLICY, [batch(), ack(), tke()]) == []


def test_autoscaled_ack_pool_without_a_maximum_fires() -> None:
    assert messages(autoscaling_sanity.POLICY, [ack(scalingConfig={"enable": True, "minSize": 0})]) == [
        "ACK node pool 'ack' has no maximum size; set a finite maxSize"
    ]


# --- GF-COST-007: worst-case hourly --------------------------------------------------------------
def test_worst_case_fires_per_launcher() -> None:
    policy = worst_case_hourly.POLICY
    assert messages(policy, [batch({"maxVcpus": 1000})]) == [
        "the dev GPU pools can cost 151.20 USD/h at maximum size and on-demand prices, over the dev cap of "
        "50 USD/h (batch: 21 x g5.12xlarge (us-east-1) at 7.20 USD/h, 1000 vCPUs)"
    ]
    assert messages(policy, [ack(scalingConfig={"enable": True, "minSize": 0, "maxSize": 60})]) == [
        "the dev GPU pools can cost 60.00 USD/h at maximum size and on-demand prices, over the dev cap of "
        "50 USD/h (ack: 60 x ecs.gn7i-c8g1.2xlarge (cn-hangzhou) at 1.00 USD/h)"
    ]
    assert messages(policy, [tke(maxSize=30)]) == [
        "the dev GPU pools can cost 60.00 USD/h at maximum size and on-demand prices, over the dev cap of "
        "50 USD/h (tke: 30 x GN7.2XLARGE32 (ap-guangzhou) at 2.00 USD/h)"
    ]


def test_worst_case_passes_under_the_cap() -> None:
    # 14.40 + 4.00 + 8.00 USD/h.
    assert check_stack(worst_case_hourly.POLICY, [batch(), ack(), tke()]) == []


def test_unknown_max_vcpus_is_not_judged() -> None:
    stack = [batch({"maxVcpus": UNKNOWN_NUM})]
    [(message, urn)] = check_stack(worst_case_hourly.POLICY, stack, proxy=True)
    assert urn == stack[0].urn
    assert message.startswith("could not be judged at preview") and "computeResources.maxVcpus" in message


# --- GF-COST-002: the budget holds the committed floor -------------------------------------------
def test_alibaba_budget_counts_ack_node_pools() -> None:
    config = {"budgets": {"monthly": 5000, "currency": "CNY"}}
    floor = ack(scalingConfig={"enable": True, "minSize": 2, "maxSize": 4})
    # 2 x 7.20 CNY x 730 h.
    assert messages(stack_budget.POLICY, [floor], config) == [
        "the Alibaba Cloud pools' monthly estimate of 10512.00 CNY (every pool at its minimum size, 730 h, "
        "on-demand) exceeds the declared budget of 5000 CNY"
    ]
    assert check_stack(stack_budget.POLICY, [ack()], config=config) == []


def test_aws_and_tencent_budgets_hold_batch_and_tke_floors() -> None:
    from .test_stack_budget import aws_budget, tc_budget

    aws = res("aws:budgets/budget:Budget", "budget", aws_budget(limitAmount="1000"))
    # minVcpus 16: the dearest type at maxVcpus (g5.12xlarge) holds it in 1 instance, 7.20 USD x 730 h.
    assert check_stack(stack_budget.POLICY, [aws, batch({"minVcpus": 16})]) == [
        (
            "AWS budget 'budget' limits AWS spend to 1000 USD a month, below the committed floor (every pool "
            "at its minimum size, 730 h, on-demand) of 5256.00 USD; raise the limit or shrink the pools",
            aws.urn,
        )
    ]
    assert check_stack(stack_budget.POLICY, [aws, batch()]) == []
    tc = res("tencentcloud:Billing/budget:Budget", "bud", tc_budget())
    # minSize 1: 14.40 CNY x 730 h.
    assert check_stack(stack_budget.POLICY, [tc, tke(minSize=1)]) == [
        (
            "Tencent Cloud budget 'bud' limits Tencent Cloud spend to 10000 CNY a month, below the committed "
            "floor (every pool at its minimum size, 730 h, on-demand) of 10512.00 CNY; raise the limit or "
            "shrink the pools",
            tc.urn,
        )
    ]
    assert check_stack(stack_budget.POLICY, [tc, tke()]) == []


def test_unknown_desired_size_of_a_fixed_ack_pool_is_not_judged() -> None:
    # A fixed pool's size is its desiredSize: unknown at preview, the worst case cannot be summed.
    stack = [ack(scalingConfig=None, desiredSize=UNKNOWN_STR)]
    [(message, urn)] = check_stack(worst_case_hourly.POLICY, stack, proxy=True)
    assert urn == stack[0].urn
    assert message.startswith("could not be judged at preview") and ".desiredSize" in message


# --- GF-COST-001: cost tags on the launchers ------------------------------------------------------
@pytest.mark.parametrize("token", [BATCH, ACK, TKE])
def test_cost_tags_fire_on_untagged_launchers_and_pass_tagged_ones(token: str) -> None:
    assert check_resource(cost_tags.POLICY, token, {}, name="gpu") == [
        f"{token} 'gpu' lacks the cost tags project, team, cost-center, env; set project, team, "
        "cost-center, env in `tags`"
    ]
    tags = {"project": "p", "team": "t", "cost-center": "c", "env": "dev"}
    assert check_resource(cost_tags.POLICY, token, {"tags": tags}, name="gpu") == []
