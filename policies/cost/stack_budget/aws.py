"""AWS facts of GF-COST-002: the AWS Budgets resource, what makes one satisfy the rule (a COST budget
with a limit and a subscribed notification at or below the alert percent), its fixed limit, and the
texts naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost._common import fmt
from gpufleet.policies.cost.stack_budget._estimates import _number
from gpufleet.policies.props import Malformed, as_list, get, get_ref, is_set, json_kind

AWS_BUDGET = "aws:budgets/budget:Budget"
BUDGET: str | None = AWS_BUDGET
DESCRIBED = "AWS Budgets"
REMEDIATION = (
    "AWS: add aws.budgets.Budget(budget_type='COST', limit_amount=..., limit_unit='USD', "
    "time_unit='MONTHLY', notifications=[{comparison_operator: 'GREATER_THAN', threshold: 80, "
    "threshold_type: 'PERCENTAGE', notification_type: 'FORECASTED', subscriber_email_addresses: "
    "[...]}])."
)
URL = "https://www.pulumi.com/registry/packages/aws/api-docs/budgets/budget/"


def budget_problem(props: Mapping[str, Any], alert: float) -> str | None:
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


def limit_of(props: Mapping[str, Any]) -> tuple[float, str] | None:
    """The budget's fixed monthly limit and its currency. Only a budget of type COST limits spend: a
    USAGE (or RI, Savings Plans) budget's limit is in its own unit (`GB`, `Hrs`), not money."""
    if get_ref(props, "budgetType") != "COST":
        return None
    limit = _number(get_ref(props, "limitAmount"))
    unit = get_ref(props, "limitUnit")
    if unit is not None and not isinstance(unit, str):
        raise Malformed(f".limitUnit is {json_kind(unit)}, not a currency code", unit)
    return (limit, unit or "USD") if limit is not None else None
