from __future__ import annotations

from gpufleet.policies.cost.worst_case_hourly import POLICY, RULE

from .helpers import UNKNOWN_NUM, ali_pool, aws_pool, check_stack, res, tc_pool


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-COST-007", "worst-case-hourly-under-cap")
    assert RULE.defaults() == {"max_hourly": {"dev": 50, "staging": 200, "prod": 2000}, "currency": "USD"}


def test_compliant_mixed_clouds() -> None:
    # 4 x 1.00 + 4 x 1.00 (7.2 CNY) + 2 x 2.00 (14.4 CNY) = 12 USD/h
    assert check_stack(POLICY, [*aws_pool(), *ali_pool(), *tc_pool()]) == []


def test_over_cap_exact_message() -> None:
    stack = [*aws_pool(group={"maxSize": 40}), *tc_pool()]
    assert check_stack(POLICY, stack, config={"max_hourly": {"dev": 40}}) == [
        (
            "the dev GPU pools can cost 44.00 USD/h at maximum size and on-demand prices, over the "
            "dev cap of 40 "
            "USD/h (gpu: 40 x g5.2xlarge (us-east-1) at 1.00 USD/h; grp: 2 x GN7.2XLARGE32 (ap-guangzhou) at "
            "2.00 USD/h)",
            None,
        )
    ]


def test_spot_pools_are_priced_on_demand_and_currency_converted() -> None:
    stack = ali_pool(group={"maxSize": 60})
    assert check_stack(POLICY, stack, config={"currency": "CNY", "max_hourly": {"dev": 400}}) == [
        (
            "the dev GPU pools can cost 432.00 CNY/h at maximum size and on-demand prices, over the "
            "dev cap of 400 "
            "CNY/h (grp: 60 x ecs.gn7i-c8g1.2xlarge (cn-hangzhou) at 7.20 CNY/h)",
            None,
        )
    ]


def test_environments_are_capped_separately() -> None:
    prod = res(
        "aws:ec2/instance:Instance",
        "big",
        {"instanceType": "p4d.24xlarge", "tags": {"env": "prod"}, "region": "us-east-1"},
    )
    assert check_stack(POLICY, [*aws_pool(), prod]) == []  # 30 USD/h is under prod's 2000, not counted in dev


def test_unpriced_type_is_left_out_not_a_finding() -> None:
    # A type the catalogue does not price is named on the cost line ("unpriced"); the rule judges the rest.
    box = res("aws:ec2/instance:Instance", "box", {"instanceType": "p5.48xlarge"})
    assert check_stack(POLICY, [box]) == []
    assert check_stack(POLICY, [box, *aws_pool()]) == []


def test_unpriced_pool_is_named_when_the_priced_ones_exceed_the_cap() -> None:
    box = res("aws:ec2/instance:Instance", "box", {"instanceType": "g7e.48xlarge"})
    assert check_stack(POLICY, [*aws_pool(group={"maxSize": 60}), box]) == [
        (
            "the dev GPU pools can cost 60.00 USD/h at maximum size and on-demand prices, over the dev cap "
            "of 50 USD/h (gpu: 60 x g5.2xlarge (us-east-1) at 1.00 USD/h; unpriced, not counted: box: "
            "g7e.48xlarge)",
            None,
        )
    ]


def test_unknown_max_with_proxy() -> None:
    lc = res("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {"instanceType": "g5.2xlarge"})
    asg = res(
        "aws:autoscaling/group:Group",
        "gpu",
        {"minSize": 0, "maxSize": UNKNOWN_NUM, "launchConfiguration": "lc"},
        proxy=True,
    )
    assert check_stack(POLICY, [lc, asg]) == [
        (
            "could not be judged at preview: the number value at .maxSize can't be known during preview",
            asg.urn,
        )
    ]
