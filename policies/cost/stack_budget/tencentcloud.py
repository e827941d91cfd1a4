"""Tencent Cloud facts of GF-COST-002: the billing Budget resource, what makes one satisfy the rule (a
quota with a warnJsons threshold at or below the alert percent), its fixed limit (in CNY), and the
texts naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost._common import fmt
from gpufleet.policies.cost.stack_budget._estimates import _number
from gpufleet.policies.props import as_list, get, get_ref

TC_BUDGET = "tencentcloud:Billing/budget:Budget"
BUDGET: str | None = TC_BUDGET
DESCRIBED = "Tencent billing.Budget"
REMEDIATION = (
    "Tencent Cloud: add tencentcloud.billing.Budget(budget_quota=..., warn_jsons="
    "[{cal_type: 'PERCENTAGE', threshold_value: '80', warn_type: 'ACTUAL'}])."
)


def budget_problem(props: Mapping[str, Any], alert: float) -> str | None:
    """What keeps this Tencent Cloud budget from satisfying the rule (None when it does)."""
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


def limit_of(props: Mapping[str, Any]) -> tuple[float, str] | None:
    """The budget's fixed monthly quota in CNY (none for a budget whose plan is not FIX)."""
    if str(get_ref(props, "planType") or "FIX").upper() != "FIX":
        return None
    quota = _number(get_ref(props, "budgetQuota"))
    return (quota, "CNY") if quota is not None else None
