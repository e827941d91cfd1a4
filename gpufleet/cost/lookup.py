"""Prices and rates looked up in the catalogue; a miss is a CostError naming the field."""

from __future__ import annotations

from collections.abc import Sequence

from gpufleet.components.catalog import Catalog, InstanceType, Price, UnknownInstanceType
from gpufleet.cost.model import CostError, PricedPool


def _catalog_type(catalog: Catalog, pool: PricedPool, index: int) -> InstanceType:
    name = pool.instance_types[index]
    try:
        return catalog.get(pool.cloud, name)
    except UnknownInstanceType as exc:
        raise CostError(f"{pool.where(f'instance_types[{index}]')}: {exc}") from None


def unpriced_types(catalog: Catalog, cloud: str, region: str, instance_types: Sequence[str]) -> list[str]:
    """Why the catalogue cannot price these types in ``region``, one phrase each; empty when it can."""
    reasons: list[str] = []
    for name in instance_types:
        found = catalog.find(cloud, name)
        if found is None:
            reasons.append(f"{cloud} {name} is not in the catalogue")
        elif region not in found.on_demand:
            reasons.append(f"the catalogue has no {cloud} {name} price in {region!r}")
    return reasons


def _hourly(catalog: Catalog, pool: PricedPool, index: int) -> tuple[InstanceType, Price]:
    instance_type = _catalog_type(catalog, pool, index)
    if pool.region not in instance_type.on_demand:
        known = ", ".join(sorted(instance_type.on_demand))
        raise CostError(
            f"{pool.where('region')}: the catalogue has no price for {pool.cloud} {instance_type.name} "
            f"in {pool.region!r}; priced regions: {known}"
        )
    return instance_type, instance_type.hourly(pool.region)


def _rate(catalog: Catalog, from_currency: str, to_currency: str, where: str) -> float:
    try:
        return catalog.rate(from_currency, to_currency)
    except KeyError as exc:
        raise CostError(f"{where}: {exc.args[0]}") from None


def _service_price(catalog: Catalog, cloud: str, key: str, where: str) -> Price:
    prices = catalog.service(cloud)
    price = prices.price(key) if prices else None
    if price is None:
        raise CostError(f"{where}: the catalogue has no {cloud} price for {key}")
    return price
