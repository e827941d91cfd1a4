"""GF-COST-002: each stack has a budget with an alert at or below `alert_percent` of its limit.

- AWS: an `aws:budgets/budget:Budget` of `budgetType` COST with a limit (`limitAmount` or
  `plannedLimits`) and a notification whose threshold is at or below the alert percent
  (`thresholdType` PERCENTAGE, or ABSOLUTE_VALUE converted against the limit), `notificationType`
  ACTUAL or FORECASTED, and a subscriber (`subscriberEmailAddresses` / `subscriberSnsTopicArns`).
- Tencent Cloud: a `tencentcloud:Billing/budget:Budget` with `budgetQuota` and a `warnJsons` entry
  (`calType` PERCENTAGE, or ABS converted against a fixed quota; `warnType` ACTUAL or FORECAST).
- Alibaba Cloud has no budget resource in its SDK: the stack's budget is declared in the policy
  config (`budgets: {monthly, currency}`) and checked against the stack's monthly estimate for its
  Alibaba Cloud pools. Until a usage-based estimate exists the estimate is the committed floor
  (every pool at its minimum size around the clock, on-demand prices: `pools.monthly_estimate`);
  `alicloud_budget_problem` takes any other estimator.

A cloud is judged when the stack creates at least one resource on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from policies.cost._common import fmt, stack_pools
from policies.cost.pools import CatalogLike, Pool, current_catalog, hourly_envelope, monthly_estimate
from policies.props import as_list, get, get_ref, is_set
from policies.rule import GfStackPolicy, Rule, judge, not_judged

AWS_BUDGET = "aws:budgets/budget:Budget"
TC_BUDGET = "tencentcloud:Billing/budget:Budget"

RULE = Rule(
    id="GF-COST-002",
    name="stack-has-budget-alert",
    description=(
        "Each stack has a budget with an alert at or below 80% of its limit (AWS Budgets, Tencent "
        "billing.Budget; on Alibaba Cloud the declared budget is checked against the cost estimate)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "AWS: add aws.budgets.Budget(budget_type='COST', limit_amount=..., limit_unit='USD', "
        "time_unit='MONTHLY', notifications=[{comparison_operator: 'GREATER_THAN', threshold: 80, "
        "threshold_type: 'PERCENTAGE', notification_type: 'FORECASTED', subscriber_email_addresses: "
        "[...]}]). Tencent Cloud: add tencentcloud.billing.Budget(budget_quota=..., warn_jsons="
        "[{cal_type: 'PERCENTAGE', threshold_value: '80', warn_type: 'ACTUAL'}]). Alibaba Cloud: "
        "declare the stack's budget in the policy config (`budgets: {monthly: 5000, currency: CNY}`)."
    ),
    url="https://www.pulumi.com/registry/packages/aws/api-docs/budgets/budget/",
    config={
        "alert_percent": {"type": "number", "default": 80},
        "budgets": {
            "type": ["object", "null"],
            "properties": {"monthly": {"type": "number"}, "currency": {"type": "string"}},
            "default": None,
        },
    },
)

MonthlyEstimator = Callable[[Sequence[Pool], CatalogLike | None, str], float]


def floor_estimate(pools: Sequence[Pool], catalog: CatalogLike | None, currency: str) -> float:
    return monthly_estimate(hourly_envelope(pools, catalog, currency))


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def aws_budget_problem(props: Mapping[str, Any], alert: float) -> str | None:
    """What keeps this AWS budget from satisfying the rule (None when it does)."""
    budget_type = get(props, "budgetType")
    if budget_type != "COST":
        return f"is a {budget_type} budget; use budgetType COST"
    limit = _number(get(props, "limitAmount")) if "limitAmount" in props else None
    if limit is None and not as_list(get_ref(props, "plannedLimits")):
        return "has no limit; set limitAmount (or plannedLimits)"
    seen: list[str] = []
    for notification in as_list(get(props, "notifications")):
        threshold = _number(get(notification, "threshold"))
        kind = str(get(notification, "thresholdType") or "PERCENTAGE").upper()
        percent = threshold
        if kind == "ABSOLUTE_VALUE":
            percent = None if not limit or threshold is None else threshold * 100.0 / limit
        when = str(get(notification, "notificationType") or "")
        subscribed = is_set(notification, "subscriberEmailAddresses") or is_set(
            notification, "subscriberSnsTopicArns"
        )
        if percent is not None and percent <= alert and when in ("ACTUAL", "FORECASTED") and subscribed:
            return None
        if percent is not None:
            seen.append(f"{fmt(percent)}%{'' if subscribed else ' (no subscriber)'}")
    if not seen:
        return f"has no notification; add one at or below {fmt(alert)}% with a subscriber"
    return f"alerts at {', '.join(seen)}; add a notification at or below {fmt(alert)}% with a subscriber"


def tencent_budget_problem(props: Mapping[str, Any], alert: float) -> str | None:
    quota = get(props, "budgetQuota")
    if quota in (None, ""):
        return "has no budgetQuota"
    fixed = _number(quota) if str(get(props, "planType") or "FIX").upper() == "FIX" else None
    seen: list[str] = []
    for warn in as_list(get(props, "warnJsons")):
        value = _number(get(warn, "thresholdValue"))
        kind = str(get(warn, "calType") or "").upper()
        percent = (
            value
            if kind == "PERCENTAGE"
            else (value * 100.0 / fixed if value is not None and fixed else None)
        )
        when = str(get(warn, "warnType") or "").upper()
        if percent is not None and percent <= alert and when in ("ACTUAL", "FORECAST"):
            return None
        if percent is not None:
            seen.append(f"{fmt(percent)}%")
    if not seen:
        return f"has no warnJsons threshold; add one at or below {fmt(alert)}% (calType PERCENTAGE)"
    return f"warns at {', '.join(seen)}; add a warnJsons threshold at or below {fmt(alert)}%"


def alicloud_budget_problem(
    pools: Sequence[Pool],
    catalog: CatalogLike | None,
    declared: Any,
    estimator: MonthlyEstimator = floor_estimate,
) -> str | None:
    if not isinstance(declared, Mapping) or _number(declared.get("monthly")) is None:
        return (
            "the stack creates Alibaba Cloud resources, which have no budget resource, and could not "
            "be judged: declare the budget in the policy config (budgets: {monthly, currency})"
        )
    monthly = float(declared["monthly"])
    currency = str(declared.get("currency") or "USD")
    estimate = estimator([p for p in pools if p.cloud == "alicloud"], catalog, currency)
    if estimate > monthly:
        return (
            f"the Alibaba Cloud pools' monthly estimate of {estimate:.2f} {currency} (every pool at "
            f"its minimum size, 730 h, on-demand) exceeds the declared budget of {fmt(monthly)} {currency}"
        )
    return None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    alert = float(settings["alert_percent"])
    clouds = {r.resource_type.split(":", 1)[0] for r in args.resources}
    by_type: dict[str, list[Any]] = {AWS_BUDGET: [], TC_BUDGET: []}
    for resource in args.resources:
        if resource.resource_type in by_type:
            by_type[resource.resource_type].append(resource)

    for cloud, token, check, label in (
        ("aws", AWS_BUDGET, aws_budget_problem, "AWS budget"),
        ("tencentcloud", TC_BUDGET, tencent_budget_problem, "Tencent Cloud budget"),
    ):
        if cloud not in clouds:
            continue
        budgets = by_type[token]
        if not budgets:
            report(
                f"the stack creates {cloud} resources but no budget ({token}); add one with an alert "
                f"at or below {fmt(alert)}% of its limit",
                None,
            )
            continue
        results: list[tuple[Any, str | None, UnknownValueError | None]] = []
        for budget in budgets:
            try:
                results.append((budget, check(budget.props, alert), None))
            except UnknownValueError as unknown:
                results.append((budget, None, unknown))
        if any(problem is None and error is None for _, problem, error in results):
            continue
        for budget, problem, failure in results:
            if failure is not None:
                not_judged(budget.urn, failure)
            else:
                report(f"{label} '{budget.name}' {problem}", budget.urn)

    if "alicloud" in clouds:

        def check_alicloud() -> None:
            pools, _ = stack_pools(args)
            problem = alicloud_budget_problem(pools, current_catalog(), settings["budgets"])
            if problem:
                report(problem, None)

        judge(report, None, check_alicloud)


POLICY = GfStackPolicy(RULE, validate)
