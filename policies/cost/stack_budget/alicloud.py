"""Alibaba Cloud facts of GF-COST-002: it has no budget resource, so the budget declared in the policy
config (or the fleet spec) is checked against the Alibaba Cloud pools' estimate; the texts naming it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.stack_budget._estimates import (
    MonthlyEstimator,
    declared_budget_problem,
    floor_estimate,
)
from gpufleet.policies.gpu import CatalogLike

# No budget resource: the rule checks the declared budget against the estimate.
BUDGET: str | None = None
DESCRIBED = "on Alibaba Cloud the declared budget is checked against the cost estimate"
REMEDIATION = (
    "Alibaba Cloud: declare the stack's budget in the policy config (`budgets: {monthly: 5000, currency: "
    "CNY}`)."
)


def alicloud_budget_problem(
    pools: Sequence[Pool],
    catalog: CatalogLike | None,
    declared: Any,
    estimator: MonthlyEstimator = floor_estimate,
    basis: str = "every pool at its minimum size, 730 h, on-demand",
) -> str | None:
    """What keeps the declared budget from holding the Alibaba Cloud pools' estimate (None when it does)."""
    return declared_budget_problem("alicloud", pools, catalog, declared, estimator=estimator, basis=basis)
