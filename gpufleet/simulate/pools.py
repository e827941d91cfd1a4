"""A spec pool as the replay sees it: its compiled rules, size, spot share, off-hours and prices (from
the catalogue, as ``gpufleet cost`` prices it: the dearest listed type)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.components.catalog import Catalog
from gpufleet.components.pools.scaling import ScalingRules, rules_from_spec
from gpufleet.cost import CostError, PricedPool, price_pool
from gpufleet.cost.props import _default_region
from gpufleet.simulate.model import OffHoursWindow, SimPool


class SimulateError(ValueError):
    """Input the replay cannot use; the message names the file and field (exit 2)."""


def rules_of(pool: Any) -> ScalingRules:
    """The spec's ``scaling`` as the pool components compile it."""
    return rules_from_spec(pool.scaling)


def sim_pool(
    spec: Any,
    name: str,
    config: Mapping[str, Any],
    catalog: Catalog,
    *,
    source: str,
    currency: str | None = None,
    boot_minutes: int,
) -> tuple[SimPool, list[str]]:
    """The pool ``name`` of ``spec`` and the notes the report shows about it."""
    from gpufleet.components.spec import CONFIG_KEY

    if name not in spec.pools:
        known = ", ".join(sorted(spec.pools))
        raise SimulateError(f"{source}: {CONFIG_KEY}.pools has no pool {name!r}; its pools: {known}")
    pool = spec.pools[name]
    path = f"{CONFIG_KEY}.pools.{name}"
    region = pool.region or _default_region(config, pool.cloud)
    if region is None:
        raise SimulateError(
            f"{source}: {path}.region: is needed to price the pool (or set {pool.cloud}:region in the stack)"
        )
    code = currency or spec.budget.currency
    try:
        line = price_pool(
            PricedPool(
                name=name,
                cloud=pool.cloud,
                region=region,
                instance_types=tuple(pool.instance_types),
                min_size=pool.size.min,
                max_size=pool.size.max,
                spot_percent=float(pool.spot_percent),
                on_demand_base=pool.on_demand_base,
                source=source,
                path=path,
            ),
            catalog,
            code,
        )
    except CostError as exc:
        raise SimulateError(str(exc)) from None
    notes = [n for n in line.notes if "dearest" in n or "unconfirmed" in n]
    window = None
    if pool.off_hours is not None:
        if spec.environment == "prod":
            notes.append("off_hours is ignored in prod, as the fleet ignores it: replayed around the clock")
        else:
            hours = pool.off_hours
            window = OffHoursWindow(
                timezone=hours.timezone,
                stop=(hours.start_hour, hours.start_minute),
                start=(hours.end_hour, hours.end_minute),
                weekends=hours.weekends,
            )
    return (
        SimPool(
            name=name,
            cloud=pool.cloud,
            min_size=pool.size.min,
            max_size=pool.size.max,
            rules=rules_of(pool),
            boot_minutes=boot_minutes,
            on_demand_base=pool.on_demand_base,
            spot_percent=float(pool.spot_percent),
            on_demand_hourly=line.on_demand.amount * line.rate,
            spot_hourly=line.spot.amount * line.rate,
            currency=code,
            instance_type=f"{line.instance_type} in {region}",
            off_hours=window,
        ),
        notes,
    )
