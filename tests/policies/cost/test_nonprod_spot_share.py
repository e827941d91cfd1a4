from __future__ import annotations

from policies.cost.nonprod_spot_share import POLICY, RULE

from .helpers import UNKNOWN_NUM, ali_pool, aws_pool, check_stack, res, tc_pool


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
