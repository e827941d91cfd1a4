from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.cost.pools.tokens.alicloud import ALI_SCALING_CONFIGURATION, ALI_SCALING_GROUP
from gpufleet.policies.cost.stack_budget import POLICY, RULE
from gpufleet.policies.cost.stack_budget.alicloud import alicloud_budget_problem

from .helpers import UNKNOWN_STR, check_stack, res

AWS_BUDGET = "aws:budgets/budget:Budget"
TC_BUDGET = "tencentcloud:Billing/budget:Budget"


def aws_budget(**changes: object) -> dict[str, object]:
    notification = {
        "comparisonOperator": "GREATER_THAN",
        "threshold": 80,
        "thresholdType": "PERCENTAGE",
        "notificationType": "FORECASTED",
        "subscriberEmailAddresses": ["ops@example.com"],
    }
    props: dict[str, object] = {
        "budgetType": "COST",
        "limitAmount": "5000",
        "limitUnit": "USD",
        "timeUnit": "MONTHLY",
        "notifications": [notification],
    }
    for key, value in changes.items():
        if key.startswith("n_"):
            notification[key[2:]] = value
        else:
            props[key] = value
    return props


def tc_budget(**changes: object) -> dict[str, object]:
    warn = {"calType": "PERCENTAGE", "thresholdValue": "80", "warnType": "ACTUAL"}
    warn.update({k[2:]: str(v) for k, v in changes.items() if k.startswith("w_")})
    return {"budgetQuota": "10000", "planType": "FIX", "cycleType": "MONTH", "warnJsons": [warn]}


BUCKET = res("aws:s3/bucket:Bucket", "b", {})


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-COST-002", "stack-has-budget-alert")
    assert RULE.defaults() == {"alert_percent": 80, "budgets": None, "monthly_estimates": None}


def test_aws_compliant_and_missing() -> None:
    assert check_stack(POLICY, [BUCKET, res(AWS_BUDGET, "budget", aws_budget())]) == []
    assert check_stack(POLICY, [BUCKET]) == [
        (
            "the stack creates aws resources but no budget (aws:budgets/budget:Budget); add one with "
            "an alert "
            "at or below 80% of its limit",
            None,
        )
    ]


def test_aws_one_change_negatives() -> None:
    budget = res(AWS_BUDGET, "budget", aws_budget(n_threshold=90))
    assert check_stack(POLICY, [budget]) == [
        (
            "AWS budget 'budget' alerts at 90%; add a notification at or below 80% with a subscriber",
            budget.urn,
        )
    ]
    budget = res(AWS_BUDGET, "budget", aws_budget(n_subscriberEmailAddresses=[]))
    assert check_stack(POLICY, [budget])[0][0] == (
        "AWS budget 'budget' alerts at 80% (no subscriber); add a notification at or below 80% with "
        "a subscriber"
    )
    budget = res(AWS_BUDGET, "budget", aws_budget(budgetType="USAGE"))
    assert check_stack(POLICY, [budget])[0][0] == "AWS budget 'budget' is a USAGE budget; use budgetType COST"
    budget = res(AWS_BUDGET, "budget", aws_budget(notifications=[]))
    assert check_stack(POLICY, [budget])[0][0] == (
        "AWS budget 'budget' has no notification; add one at or below 80% with a subscriber"
    )


def test_aws_absolute_threshold_against_limit_and_config() -> None:
    budget = res(AWS_BUDGET, "budget", aws_budget(n_thresholdType="ABSOLUTE_VALUE", n_threshold=3500))
    assert check_stack(POLICY, [budget]) == []  # 70% of 5000
    assert check_stack(POLICY, [budget], config={"alert_percent": 60})[0][0] == (
        "AWS budget 'budget' alerts at 70%; add a notification at or below 60% with a subscriber"
    )


def test_one_good_budget_is_enough() -> None:
    bad = res(AWS_BUDGET, "bad", aws_budget(n_threshold=95))
    good = res(AWS_BUDGET, "good", aws_budget())
    assert check_stack(POLICY, [bad, good]) == []


def test_unknown_and_proxy() -> None:
    budget = res(AWS_BUDGET, "budget", aws_budget(n_threshold=UNKNOWN_STR), proxy=True)
    assert check_stack(POLICY, [budget]) == [
        (
            "could not be judged at preview: the string value at .notifications.0.threshold can't be known "
            "during preview",
            budget.urn,
        )
    ]


def test_tencent_budget() -> None:
    instance = res("tencentcloud:Cos/bucket:Bucket", "b", {})
    assert check_stack(POLICY, [instance, res(TC_BUDGET, "bud", tc_budget())]) == []
    budget = res(TC_BUDGET, "bud", tc_budget(w_thresholdValue=90))
    assert check_stack(POLICY, [instance, budget]) == [
        ("Tencent Cloud budget 'bud' warns at 90%; add a warnJsons threshold at or below 80%", budget.urn)
    ]
    budget = res(TC_BUDGET, "bud", tc_budget(w_calType="ABS", w_thresholdValue=7000))
    assert check_stack(POLICY, [instance, budget]) == []
    assert check_stack(POLICY, [instance])[0][0].startswith(
        "the stack creates tencentcloud resources but no budget (tencentcloud:Billing/budget:Budget)"
    )


def _ali_stack() -> list[PolicyResource]:
    group = res(
        ALI_SCALING_GROUP, "grp", {"minSize": 1, "maxSize": 4}, provider_props={"region": "cn-hangzhou"}
    )
    config = res(
        ALI_SCALING_CONFIGURATION,
        "cfg",
        {"scalingGroupId": UNKNOWN_STR, "instanceType": "ecs.gn7i-c8g1.2xlarge"},
        deps={"scalingGroupId": [group]},
    )
    return [group, config]


def test_alicloud_declared_budget_against_estimate() -> None:
    stack = _ali_stack()
    assert check_stack(POLICY, stack) == [
        (
            "the stack creates Alibaba Cloud resources but declares no budget (Alibaba Cloud has no budget "
            "resource): declare it in the fleet spec (gpufleet:fleet.budget) or the policy config "
            "(budgets: {monthly, currency})",
            None,
        )
    ]
    # floor: 1 instance x 7.2 CNY/h x 730 h = 5256 CNY
    assert check_stack(POLICY, stack, config={"budgets": {"monthly": 6000, "currency": "CNY"}}) == []
    assert check_stack(POLICY, stack, config={"budgets": {"monthly": 5000, "currency": "CNY"}}) == [
        (
            "the Alibaba Cloud pools' monthly estimate of 5256.00 CNY (every pool at its minimum "
            "size, 730 h, "
            "on-demand) exceeds the declared budget of 5000 CNY",
            None,
        )
    ]


def test_alicloud_estimator_is_pluggable() -> None:
    problem = alicloud_budget_problem(
        [], None, {"monthly": 10, "currency": "USD"}, estimator=lambda pools, catalog, currency: 11.0
    )
    assert problem is not None and "estimate of 11.00 USD" in problem


def test_stack_without_cloud_resources_passes() -> None:
    assert check_stack(POLICY, [res("kubernetes:apps/v1:Deployment", "d", {})]) == []


def test_aws_budget_must_hold_the_committed_floor() -> None:
    # floor: 2 x g5.2xlarge always on, on demand, at the fake catalogue's 1.00 USD/h: 2 x 1.00 x 730 = 1460
    pool = aws_pool_with_min(2)
    small = res(AWS_BUDGET, "budget", aws_budget(limitAmount="1000"))
    assert check_stack(POLICY, [*pool, small]) == [
        (
            "AWS budget 'budget' limits AWS spend to 1000 USD a month, below the committed floor (every "
            "pool at its minimum size, 730 h, on-demand) of 1460.00 USD; raise the limit or shrink the pools",
            small.urn,
        )
    ]
    assert check_stack(POLICY, [*pool, res(AWS_BUDGET, "budget", aws_budget(limitAmount="2000"))]) == []


def test_aws_budget_against_the_usage_based_estimate_given_by_check() -> None:
    pool = aws_pool_with_min(0)
    budget = res(AWS_BUDGET, "budget", aws_budget(limitAmount="5000"))
    given = {"monthly_estimates": {"aws": {"amount": 5200.5, "currency": "USD"}}}
    assert check_stack(POLICY, [*pool, budget], config=given) == [
        (
            "AWS budget 'budget' limits AWS spend to 5000 USD a month, below the stack's monthly "
            "estimate (usage profile and schedules) of 5200.50 USD; raise the limit or shrink the pools",
            budget.urn,
        )
    ]
    # a pool at min 0 commits nothing: without an estimate from check the floor is 0
    assert check_stack(POLICY, [*pool, budget]) == []


def aws_pool_with_min(size: int) -> list[PolicyResource]:
    from .helpers import aws_pool

    return aws_pool(group={"minSize": size})
