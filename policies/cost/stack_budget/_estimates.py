"""What GF-COST-002 compares budgets with, the same for every cloud: the monthly estimate of a cloud's
pools (given by `gpufleet check`, else their committed floor), and the check of a budget declared in
the policy config for a cloud that has no budget resource (Alibaba Cloud)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpufleet.components.clouds import profile
from gpufleet.policies.cost._common import fmt
from gpufleet.policies.cost.pools import Pool, hourly_envelope, monthly_estimate
from gpufleet.policies.gpu import CatalogLike
from gpufleet.policies.props import as_number, is_unknown

MonthlyEstimator = Callable[[Sequence[Pool], CatalogLike | None, str], float]


def floor_estimate(pools: Sequence[Pool], catalog: CatalogLike | None, currency: str) -> float:
    return monthly_estimate(hourly_envelope(pools, catalog, currency))


def _number(value: Any) -> float | None:
    return None if is_unknown(value) else as_number(value)


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


def declared_budget_problem(
    cloud: str,
    pools: Sequence[Pool],
    catalog: CatalogLike | None,
    declared: Any,
    *,
    estimator: MonthlyEstimator = floor_estimate,
    basis: str = "every pool at its minimum size, 730 h, on-demand",
) -> str | None:
    """What keeps the budget declared for `cloud` (which has no budget resource) from satisfying the
    rule: none declared, or the cloud's pools estimated above it (None when it holds)."""
    name = profile(cloud).name
    if not isinstance(declared, Mapping) or _number(declared.get("monthly")) is None:
        return (
            f"the stack creates {name} resources but declares no budget ({name} has no budget "
            "resource): declare it in the fleet spec (gpufleet:fleet.budget) or the policy config "
            "(budgets: {monthly, currency})"
        )
    monthly = float(declared["monthly"])
    currency = str(declared.get("currency") or "USD")
    estimate = estimator([p for p in pools if p.cloud == cloud], catalog, currency)
    if estimate > monthly:
        return (
            f"the {name} pools' monthly estimate of {estimate:.2f} {currency} ({basis}) "
            f"exceeds the declared budget of {fmt(monthly)} {currency}"
        )
    return None
