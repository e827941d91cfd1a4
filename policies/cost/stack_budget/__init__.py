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
  `declared_budget_problem` takes any other estimator.

A budget must also be able to hold what the stack is expected to spend: its limit is compared with
the stack's monthly estimate for that cloud. `gpufleet check` passes the usage-based estimate (usage
profile and off-hours schedule, `gpufleet cost`) in the `monthly_estimates` config; without it (e.g.
under `pulumi preview`) the estimate is the committed floor, every pool at its minimum size around
the clock at on-demand prices, which no real month can undercut.

A cloud is judged when the stack creates at least one resource on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from types import ModuleType
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import CLOUD_NAMES as CLOUD_LABELS
from gpufleet.components.clouds import Cloud, cloud_parts, part_of, profile
from gpufleet.policies.cost._clouds import sole
from gpufleet.policies.cost._common import fmt, stack_pools
from gpufleet.policies.cost.pools import POOL_TYPES, Pool
from gpufleet.policies.cost.stack_budget._estimates import (
    MonthlyEstimator,
    _number,
    declared_budget_problem,
    floor_estimate,
    stack_estimate,
)
from gpufleet.policies.gpu import CatalogLike, current_catalog
from gpufleet.policies.props import Malformed
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges, not_judged

# Each cloud's budget facts (`stack_budget/<cloud>.py`): BUDGET (its budget resource's type token, or
# None when it has none and the declared budget is checked), DESCRIBED and REMEDIATION (its part of the
# texts), and for a budget resource `budget_problem` and `limit_of`.
PARTS = cloud_parts(__name__)
# The clouds with a budget resource, then those whose declared budget is checked, in the registry's
# order: the order the rule's texts name them and its judgements run.
_WITH_RESOURCE = {key: part for key, part in PARTS.items() if part.BUDGET is not None}
_DECLARED = tuple(key for key, part in PARTS.items() if part.BUDGET is None)
BUDGET_TYPES: tuple[str, ...] = tuple(part.BUDGET for part in _WITH_RESOURCE.values())

RULE = Rule(
    id="GF-COST-002",
    name="stack-has-budget-alert",
    description=(
        "Each stack has a budget with an alert at or below 80% of its limit ("
        + "; ".join(
            [
                ", ".join(p.DESCRIBED for p in _WITH_RESOURCE.values()),
                *(PARTS[k].DESCRIBED for k in _DECLARED),
            ]
        )
        + ")."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=" ".join(p.REMEDIATION for p in (*_WITH_RESOURCE.values(), *(PARTS[k] for k in _DECLARED))),
    url=sole(PARTS, "URL"),
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


def limit_of(resource_type: str, props: Mapping[str, Any]) -> tuple[float, str] | None:
    """A fixed monthly budget limit and its currency, when the budget states one (its cloud reads it)."""
    owner = part_of(PARTS, resource_type)
    if owner is None or owner.BUDGET is None:
        return None
    limit: tuple[float, str] | None = owner.limit_of(props)
    return limit


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    clouds = {r.resource_type.split(":", 1)[0] for r in args.resources}
    by_type: dict[str, list[Any]] = {token: [] for token in BUDGET_TYPES}
    for resource in args.resources:
        if resource.resource_type in by_type:
            by_type[resource.resource_type].append(resource)

    for cloud, part in _WITH_RESOURCE.items():
        if cloud not in clouds:
            continue
        _check_budgets(args, settings, cloud, part, budgets=by_type[part.BUDGET], report=report)
    for cloud in _DECLARED:
        if cloud in clouds:
            judge(None, partial(_check_declared, args, settings, cloud, report))


def _check_budgets(
    args: StackValidationArgs,
    settings: Mapping[str, Any],
    cloud: Cloud,
    part: ModuleType,
    *,
    budgets: list[Any],
    report: ReportViolation,
) -> None:
    """The cloud's budget resources: one must satisfy the rule (then its limit must hold the estimate)."""
    alert = float(settings["alert_percent"])
    token, check, label = part.BUDGET, part.budget_problem, f"{profile(cloud).name} budget"
    if not budgets:
        report(
            f"the stack creates {cloud} resources but no budget ({token}); add one with an alert "
            f"at or below {fmt(alert)}% of its limit",
            None,
        )
        return
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
        return
    for budget, problem, failure in results:
        if failure is not None:
            not_judged(budget.urn, failure)
        else:
            report(f"{label} '{budget.name}' {problem}", budget.urn)


def _check_declared(
    args: StackValidationArgs, settings: Mapping[str, Any], cloud: str, report: ReportViolation
) -> None:
    """A cloud without a budget resource: its declared budget must hold its pools' estimate."""
    pools, _ = stack_pools(args)
    given = (settings.get("monthly_estimates") or {}).get(cloud)
    if isinstance(given, Mapping) and _number(given.get("amount")) is not None:

        def usage_based(found: Sequence[Pool], catalog: CatalogLike | None, currency: str) -> float:
            estimate = stack_estimate(settings, found, catalog, cloud, currency)
            return estimate[0] if estimate else 0.0

        problem = declared_budget_problem(
            cloud,
            pools,
            current_catalog(),
            settings["budgets"],
            estimator=usage_based,
            basis="usage profile and schedules",
        )
    else:
        problem = declared_budget_problem(cloud, pools, current_catalog(), settings["budgets"])
    if problem:
        report(problem, None)


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


POLICY = GfStackPolicy(RULE, validate, judges(*BUDGET_TYPES, POOL_TYPES))

__all__ = [
    "BUDGET_TYPES",
    "PARTS",
    "POLICY",
    "RULE",
    "MonthlyEstimator",
    "floor_estimate",
    "limit_of",
    "stack_estimate",
    "validate",
]
