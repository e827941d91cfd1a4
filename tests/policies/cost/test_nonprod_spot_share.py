from __future__ import annotations

from typing import Any

from gpufleet.policies.cost.nonprod_spot_share import POLICY, RULE

from .helpers import UNKNOWN_NUM, UNKNOWN_STR, ali_pool, aws_pool, check_stack, res, tc_pool


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-COST-004", "non-prod-gpu-pools-on-spot")
    assert RULE.defaults() == {"min_spot_percent": {"dev": 100, "staging": 50}}


def test_compliant_spot_pools_per_cloud() -> None:
    assert check_stack(POLICY, [*aws_pool(), *ali_pool(), *tc_pool()]) == []


def test_on_demand_dev_pools_fail_per_cloud() -> None:
    stack = aws_pool(spot=False)
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
            stack[1].urn,
        )
    ]
    assert [m for m, _ in check_stack(POLICY, ali_pool(spot_strategy="NoSpot"))] == [
        "ESS scaling group 'grp' (dev) runs 0% of its capacity on spot; dev pools need at least 100%"
    ]
    assert [m for m, _ in check_stack(POLICY, tc_pool(charge="POSTPAID_BY_HOUR"))] == [
        "AS scaling group 'grp' (dev) runs 0% of its capacity on spot; dev pools need at least 100%"
    ]


def test_mixed_instances_share_in_staging() -> None:
    mip = {
        "instancesDistribution": {"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 50},
        "launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateName": "lt"},
            "overrides": [{"instanceType": "g5.2xlarge"}],
        },
    }
    asg = res(
        "aws:autoscaling/group:Group",
        "gpu",
        {"minSize": 0, "maxSize": 4, "mixedInstancesPolicy": mip},
        stack="staging",
    )
    # base 1 on demand, 3 above at 50% -> 1.5 of 4 on spot
    assert check_stack(POLICY, [asg]) == [
        (
            "Auto Scaling group 'gpu' (staging) runs 37.50% of its capacity on spot; staging pools "
            "need at least 50%",
            asg.urn,
        )
    ]
    mip["instancesDistribution"] = {"onDemandBaseCapacity": 0, "onDemandPercentageAboveBaseCapacity": 50}
    assert check_stack(POLICY, [asg]) == []


def test_alicloud_cost_optimized_mix_and_prod_not_judged() -> None:
    group = {
        "multiAzPolicy": "COST_OPTIMIZED",
        "onDemandBaseCapacity": 0,
        "onDemandPercentageAboveBaseCapacity": 20,
    }
    assert [m for m, _ in check_stack(POLICY, ali_pool(group=group, spot_strategy="SpotAsPriceGo"))] == [
        "ESS scaling group 'grp' (dev) runs 80% of its capacity on spot; dev pools need at least 100%"
    ]
    assert check_stack(POLICY, aws_pool(spot=False, stack="prod")) == []


def test_standalone_instances_and_node_groups() -> None:
    box = res(
        "aws:ec2/instance:Instance",
        "box",
        {"instanceType": "g5.2xlarge", "instanceMarketOptions": {"marketType": "spot"}},
    )
    ng = res(
        "aws:eks/nodeGroup:NodeGroup",
        "ng",
        {
            "instanceTypes": ["g5.2xlarge"],
            "capacityType": "ON_DEMAND",
            "scalingConfig": {"minSize": 0, "maxSize": 2},
        },
    )
    assert check_stack(POLICY, [box, ng]) == [
        ("EKS node group 'ng' (dev) runs 0% of its capacity on spot; dev pools need at least 100%", ng.urn)
    ]


def test_unknown_spot_percentage_with_proxy() -> None:
    mip = {
        "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": UNKNOWN_NUM},
        "launchTemplate": {"overrides": [{"instanceType": "g5.2xlarge"}]},
    }
    asg = res(
        "aws:autoscaling/group:Group",
        "gpu",
        {"minSize": 0, "maxSize": 4, "mixedInstancesPolicy": mip},
        proxy=True,
    )
    assert check_stack(POLICY, [asg]) == [
        (
            "could not be judged at preview: the number value at "
            ".mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity can't "
            "be known during "
            "preview",
            asg.urn,
        )
    ]


def _tc_pair(
    spot_max: int, on_demand_max: int, *, stack: str = "staging", tags: tuple[str, str] = ("t4", "t4")
) -> list[Any]:
    """A Tencent pool split as the site splits it: an all-spot and an on-demand AS group with one pool tag."""
    out = []
    for name, charge, size, tag in (
        ("t4-spot", "SPOTPAID", spot_max, tags[0]),
        ("t4-ondemand", "POSTPAID_BY_HOUR", on_demand_max, tags[1]),
    ):
        cfg = res(
            "tencentcloud:As/scalingConfig:ScalingConfig",
            f"{name}-config",
            {"instanceTypes": ["GN7.2XLARGE32"], "instanceChargeType": charge},
            stack=stack,
        )
        group = res(
            "tencentcloud:As/scalingGroup:ScalingGroup",
            name,
            {"minSize": 0, "maxSize": size, "configurationId": UNKNOWN_STR, "tags": {"gpufleet:pool": tag}},
            deps={"configurationId": [cfg]},
            stack=stack,
            provider_props={"region": "ap-guangzhou"},
        )
        out += [cfg, group]
    return out


def test_a_tencent_spot_and_on_demand_pair_is_judged_as_one_pool() -> None:
    # spot_percent 70 of 10: the site builds 7 all-spot and 3 on-demand; together 70% spot, over 50.
    assert check_stack(POLICY, _tc_pair(7, 3)) == []
    # In dev (100% needed) the same pair is one finding, on its on-demand group, naming both groups.
    stack = _tc_pair(7, 3, stack="dev")
    assert check_stack(POLICY, stack) == [
        (
            "Tencent pool 't4' (AS scaling groups 't4-spot' and 't4-ondemand') (dev) runs 70% of its "
            "capacity on spot; dev pools need at least 100%",
            stack[3].urn,
        )
    ]


def test_a_tencent_pair_short_of_the_staging_share_fires_once() -> None:
    stack = _tc_pair(1, 3)
    assert check_stack(POLICY, stack) == [
        (
            "Tencent pool 't4' (AS scaling groups 't4-spot' and 't4-ondemand') (staging) runs 25% of its "
            "capacity on spot; staging pools need at least 50%",
            stack[3].urn,
        )
    ]


def test_tencent_groups_of_different_pools_are_not_joined() -> None:
    stack = _tc_pair(7, 3, tags=("a", "b"))
    assert check_stack(POLICY, stack) == [
        (
            "AS scaling group 't4-ondemand' (staging) runs 0% of its capacity on spot; staging pools need "
            "at least 50%",
            stack[3].urn,
        )
    ]
