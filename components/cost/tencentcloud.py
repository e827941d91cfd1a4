"""The Tencent Cloud site's budget: a monthly ``billing.Budget`` in CNY with the spec's alert.

Tencent bills in CNY: a spec budget in USD is converted with the catalogue's rate (dated, with its
source), so the alert fires at the spec's percentage of the same amount. The budget counts the
account's real cost: Tencent's budget API takes no tag filter in this SDK, so one account per fleet
stack, or a budget sized for the account, is what keeps it meaningful.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.catalog import load_catalog

CURRENCY = "CNY"


def monthly_cny(amount: float, currency: str) -> float:
    """``amount`` in CNY, converted at the catalogue's rate, to the fen."""
    if currency == CURRENCY:
        return round(amount, 2)
    return round(load_catalog().convert(amount, currency, CURRENCY), 2)


@dataclass(frozen=True, kw_only=True)
class TencentBudgetArgs:
    budget_name: str
    monthly: float
    currency: str
    alert_percent: int
    period_begin: str
    period_end: str
    provider: pulumi.ProviderResource | None = None

    def __post_init__(self) -> None:
        problems = []
        if self.monthly <= 0:
            problems.append(f"monthly: {self.monthly} must be above 0")
        if not 1 <= self.alert_percent <= 100:
            problems.append(f"alert_percent: {self.alert_percent} is outside 1..100")
        if problems:
            raise ValueError("TencentBudgetArgs: " + "; ".join(problems))


class TencentBudget(pulumi.ComponentResource):
    """``billing.Budget`` ``<name>-budget``: monthly, fixed, real cost, warning at ``alert_percent``."""

    quota_cny: float
    budget_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: TencentBudgetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:cost:TencentBudget", name, None, opts)
        self.quota_cny = monthly_cny(args.monthly, args.currency)
        budget = tencentcloud.billing.Budget(
            f"{name}-budget",
            budget_name=args.budget_name[:60],
            cycle_type="MONTH",
            period_begin=args.period_begin,
            period_end=args.period_end,
            plan_type="FIX",
            budget_quota=f"{self.quota_cny:.2f}",
            bill_type="BILL",
            fee_type="REAL_COST",
            budget_note=f"gpufleet {args.budget_name}: {args.monthly:g} {args.currency} a month",
            warn_jsons=[
                tencentcloud.billing.BudgetWarnJsonArgs(
                    warn_type="ACTUAL", cal_type="PERCENTAGE", threshold_value=str(args.alert_percent)
                )
            ],
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
        )
        self.budget_name = budget.budget_name
        self.register_outputs({"budget_name": self.budget_name})
