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

A budget must also be able to hold what the stack is expected to spend: its limit is compared with
the stack's monthly estimate for that cloud. `gpufleet check` passes the usage-based estimate (usage
profile and off-hours schedule, `gpufleet cost`) in the `monthly_estimates` config; without it (e.g.
under `pulumi preview`) the estimate is the committed floor, every pool at its minimum size around
the clock at on-demand prices, which no real month can undercut.

A cloud is judged when the stack creates at least one resource on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import CLOUD_NAMES as CLOUD_LABELS
from gpufleet.policies.cost._common import fmt, stack_pools
from gpufleet.policies.cost.pools import POOL_TYPES, Pool, hourly_envelope, monthly_estimate
from gpufleet.policies.gpu import CatalogLike, current_catalog
from gpufleet.policies.props import Malformed, as_list, as_number, get, get_ref, is_set, is_unknown, json_kind
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges, not_judged

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
        "monthly_estimates": {
            "type": ["object", "null"],
            "description": "per cloud, {amount, currency}: the monthly estimate gpufleet check passes",
            "additionalProperties": {
                "type": "object",
                "properties": {"amount": {"type": "number"}, "currency": {"type": "string"}},
            },
            "default": None,
        },
    },
)

MonthlyEstimator = Callable[[Sequence[Pool], CatalogLike | None, str], float]


def floor_estimate(pools: Sequence[Pool], catalog: CatalogLike | None, currency: str) -> float:
    return monthly_estimate(hourly_envelope(pools, catalog, currency))


def _number(value: Any) -> float | None:
    return None if is_unknown(value) else as_number(value)


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


def stack_estimate(
    settings: Mapping[str, Any],
    pools: Sequence[Pool],
    catalog: CatalogLike | None,
    cloud: str,
    currency: str,
) -> tuple[float, str] | None:
    """The cloud's monthly estimate in `currency` and what it is: the given usage-based one, else the
    committed floor of its pools (None when the cloud has no pool and no estimate was given)."""
    given = (settings.get("monthly_estimates") or {}).get(cloud)
    if isinstance(given, Mapping) and _number(given.get("amount")) is not None:
        amount = float(given["amount"])
        given_currency = str(given.get("currency") or currency)
        if given_currency != currency and catalog is not None:
            amount = catalog.convert(amount, given_currency, currency)
        return amount, "the stack's monthly estimate (usage profile and schedules)"
    cloud_pools = [pool for pool in pools if pool.cloud == cloud]
    if not cloud_pools:
        return None
    return (
        floor_estimate(cloud_pools, catalog, currency),
        "the committed floor (every pool at its minimum size, 730 h, on-demand)",
    )


def limit_of(resource_type: str, props: Mapping[str, Any]) -> tuple[float, str] | None:
    """A fixed monthly budget limit and its currency, when the budget states one.

    Only an AWS budget of type COST limits spend: a USAGE (or RI, Savings Plans) budget's limit is in
    its own unit (`GB`, `Hrs`), not money."""
    if resource_type == AWS_BUDGET:
        if get_ref(props, "budgetType") != "COST":
            return None
        limit = _number(get_ref(props, "limitAmount"))
        unit = get_ref(props, "limitUnit")
        if unit is not None and not isinstance(unit, str):
            raise Malformed(f".limitUnit is {json_kind(unit)}, not a currency code", unit)
        return (limit, unit or "USD") if limit is not None else None
    if str(get_ref(props, "planType") or "FIX").upper() != "FIX":
        return None
    quota = _number(get_ref(props, "budgetQuota"))
    return (quota, "CNY") if quota is not None else None


def alicloud_budget_problem(
    pools: Sequence[Pool],
    catalog: CatalogLike | None,
    declared: Any,
    estimator: MonthlyEstimator = floor_estimate,
    basis: str = "every pool at its minimum size, 730 h, on-demand",
) -> str | None:
    if not isinstance(declared, Mapping) or _number(declared.get("monthly")) is None:
        return (
            "the stack creates Alibaba Cloud resources but declares no budget (Alibaba Cloud has no budget "
            "resource): declare it in the fleet spec (gpufleet:fleet.budget) or the policy config "
            "(budgets: {monthly, currency})"
        )
    monthly = float(declared["monthly"])
    currency = str(declared.get("currency") or "USD")
    estimate = estimator([p for p in pools if p.cloud == "alicloud"], catalog, currency)
    if estimate > monthly:
        return (
            f"the Alibaba Cloud pools' monthly estimate of {estimate:.2f} {currency} ({basis}) "
            f"exceeds the declared budget of {fmt(monthly)} {currency}"
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
        satisfied = any(problem is None and error is None for _, problem, error in results)
        if satisfied:
            judge(
                None,
                partial(
                    _check_spend,
                    args,
                    settings=settings,
                    cloud=cloud,
                    budgets=budgets,
                    label=label,
                    report=report,
                ),
            )
            continue
        for budget, problem, failure in results:
            if failure is not None:
                not_judged(budget.urn, failure)
            else:
                report(f"{label} '{budget.name}' {problem}", budget.urn)

    if "alicloud" in clouds:

        def check_alicloud() -> None:
            pools, _ = stack_pools(args)
            given = (settings.get("monthly_estimates") or {}).get("alicloud")
            if isinstance(given, Mapping) and _number(given.get("amount")) is not None:

                def usage_based(found: Sequence[Pool], catalog: CatalogLike | None, currency: str) -> float:
                    estimate = stack_estimate(settings, found, catalog, "alicloud", currency)
                    return estimate[0] if estimate else 0.0

                problem = alicloud_budget_problem(
                    pools,
                    current_catalog(),
                    settings["budgets"],
                    usage_based,
                    "usage profile and schedules",
                )
            else:
                problem = alicloud_budget_problem(pools, current_catalog(), settings["budgets"])
            if problem:
                report(problem, None)

        judge(None, check_alicloud)


def _check_spend(
    args: StackValidationArgs,
    *,
    settings: Mapping[str, Any],
    cloud: str,
    budgets: Sequence[Any],
    label: str,
    report: ReportViolation,
) -> None:
    """The largest fixed limit among the cloud's budgets must hold the cloud's monthly estimate."""
    catalog = current_catalog()
    fixed: list[tuple[tuple[float, str], Any]] = []
    for budget in budgets:
        try:
            found = limit_of(budget.resource_type, budget.props)
            if found is not None:
                _convertible(catalog, found[1])
                fixed.append((found, budget))
        except Malformed as error:
            report(error.about(f"{label} '{budget.name}'"), budget.urn)
    if not fixed:
        return
    (limit, currency), budget = max(fixed, key=lambda item: item[0][0])
    pools, _ = stack_pools(args)
    estimate = stack_estimate(settings, pools, catalog, cloud, currency)
    if estimate is None:
        return
    amount, basis = estimate
    if amount > limit:
        report(
            f"{label} '{budget.name}' limits {CLOUD_LABELS[cloud]} spend to {fmt(limit)} {currency} a month, "
            f"below {basis} of {amount:.2f} {currency}; raise the limit or shrink the pools",
            budget.urn,
        )


def _convertible(catalog: CatalogLike | None, currency: str) -> None:
    """A budget's currency must be one the price catalogue converts, or the limit cannot be compared."""
    if catalog is None:
        return
    try:
        catalog.convert(1.0, "USD", currency)
    except KeyError:
        raise Malformed(".limitUnit is not a currency the price catalogue knows", currency) from None


POLICY = GfStackPolicy(RULE, validate, judges(AWS_BUDGET, TC_BUDGET, POOL_TYPES))
