"""GF-FIT-006: no GPU pool pays more an hour for one instance than its environment's ceiling.

Purchasing goes in three stages: spot first, on-demand where the pool buys it, and never above the
ceiling. A pool that buys only spot pays its types' spot price in its region; any on-demand share (a
base or a percentage) pays the on-demand price; the dearest of its types is the one judged. The ceiling
is per environment and GPU class (`instance_ceiling`: `{"dev": {"T4": 5, "currency": "CNY"}}`; `*`
stands for every class), converted at the catalogue's rates; `gpufleet check` adds a spec's
`budget.instance_ceiling` for every class of its stack's environment. A type or region the catalogue
does not price is not judged (`gpufleet check` names it unpriced).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._common import describe, fmt, per_env, stack_pools
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import entries, parts, rule_url, split_at_max
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-FIT-006",
    name="instance-price-under-ceiling",
    description=(
        "No GPU pool pays more an hour per instance (spot, or on-demand where it buys it) than its "
        "environment's ceiling."
    ),
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Buy the pool on spot only, choose a cheaper type of the class or another region, or raise the "
        "ceiling after a review (`instance_ceiling` in the policy config, `budget.instance_ceiling` in a "
        "gpufleet stack)."
    ),
    url=rule_url("GF-FIT-006"),
    config={
        "instance_ceiling": {
            "type": "object",
            "default": {"dev": {"T4": 5, "currency": "CNY"}},
            "description": "hourly ceiling per instance, by environment then GPU class (or *), and currency",
        }
    },
)


def _ceiling(entry: Any, gpu_class: str) -> tuple[float, str] | None:
    if not isinstance(entry, Mapping):
        return None
    currency = str(entry.get("currency", "CNY"))
    for key in (gpu_class, "*"):
        amount = entry.get(key)
        if isinstance(amount, int | float) and not isinstance(amount, bool):
            return float(amount), currency
    return None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    ceilings = RULE.settings(args)["instance_ceiling"]
    pools, _ = stack_pools(args)
    catalog = current_catalog()
    if catalog is None:
        return
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            if pool.env is None or pool.region is None:
                return
            pool.known("spot_percent")
            entry = per_env(ceilings, pool.env)
            on_demand, _ = split_at_max(pool)
            buys_on_demand = on_demand > 0 or pool.on_demand_base > 0 or not pool.max_size
            over: list[str] = []
            for name, found in entries(pool, catalog):
                ceiling = _ceiling(entry, found.gpu_class) if found is not None else None
                if found is None or ceiling is None or pool.region not in found.on_demand:
                    continue
                amount, currency = ceiling
                od_price = found.hourly(pool.region)
                od = catalog.convert(od_price.amount, od_price.currency, currency)
                sp_price = found.hourly(pool.region, spot=True)
                sp = catalog.convert(sp_price.amount, sp_price.currency, currency)
                paid, how = (od, "on-demand") if buys_on_demand else (sp, "spot")
                if paid > amount:
                    over.append(
                        f"{name} at {paid:.2f} {currency}/h {how} (spot {sp:.2f}, on-demand {od:.2f}) "
                        "over the "
                        f"{pool.env} ceiling of {fmt(amount)} {currency}/h for {found.gpu_class}"
                    )
            if over:
                report(f"{describe(pool)} pays more than its ceiling: {'; '.join(over)}", pool.urn)

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
