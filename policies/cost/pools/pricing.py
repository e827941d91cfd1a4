"""The pools' hourly envelope at on-demand prices (the worst case the cost rules judge) and the
committed monthly floor."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError

from policies.cost.pools.model import Pool
from policies.gpu import CatalogLike

HOURS_PER_MONTH = 730


@dataclass(frozen=True)
class PriceLine:
    """One pool's contribution to the envelope, for messages and reports."""

    pool: str
    instance_type: str
    region: str | None
    count_min: int
    count_max: int
    hourly_each: float
    currency: str
    note: str = ""

    def render(self) -> str:
        where = self.region or "region unknown"
        extra = f", {self.note}" if self.note else ""
        return (
            f"{self.pool}: {self.count_max} x {self.instance_type} ({where}) at "
            f"{self.hourly_each:.2f} {self.currency}/h{extra}"
        )


@dataclass(frozen=True)
class Envelope:
    min_hourly: float
    max_hourly: float
    currency: str
    lines: tuple[PriceLine, ...]
    unpriced: tuple[str, ...]  # "pool: type" that the catalogue could not price


def _on_demand_price(
    catalog: CatalogLike, cloud: str, instance_type: str, region: str | None
) -> tuple[float, str, str] | None:
    found = catalog.find(cloud, instance_type)
    if found is None:
        return None
    if region and region in found.on_demand:
        price = found.hourly(region, spot=False)
        return float(price.amount), str(price.currency), ""
    # Region unknown or unlisted: the worst case takes the highest listed regional price.
    best: tuple[float, str, str] | None = None
    for listed_region in found.on_demand:
        price = found.hourly(listed_region, spot=False)
        if best is None or float(price.amount) > best[0]:
            best = (float(price.amount), str(price.currency), f"highest listed price ({listed_region})")
    return best


def hourly_envelope(pools: Iterable[Pool], catalog: CatalogLike | None, currency: str = "USD") -> Envelope:
    """Hourly spend at min size and at max size, every instance at its on-demand price.

    A pool of several instance types is priced at its most expensive type (the worst case a
    mixed-instances policy can reach). Prices in other currencies are converted with the catalogue.
    """
    lines: list[PriceLine] = []
    unpriced: list[str] = []
    low = high = 0.0
    for pool in pools:
        best: tuple[float, str, str, str] | None = None
        for instance_type in pool.instance_types:
            priced = _on_demand_price(catalog, pool.cloud, instance_type, pool.region) if catalog else None
            if priced is None:
                unpriced.append(f"{pool.name}: {instance_type}")
                continue
            amount, price_currency, note = priced
            if price_currency != currency and catalog is not None:
                amount = catalog.convert(amount, price_currency, currency)
            if best is None or amount > best[0]:
                best = (amount, instance_type, note, price_currency)
        if not pool.instance_types:
            unpriced.append(f"{pool.name}: instance type unknown")
        if best is None:
            continue
        count_min = pool.min_size or 0
        count_max = pool.max_size if pool.max_size is not None else count_min
        lines.append(
            PriceLine(pool.name, best[1], pool.region, count_min, count_max, best[0], currency, best[2])
        )
        low += best[0] * count_min
        high += best[0] * count_max
    return Envelope(round(low, 4), round(high, 4), currency, tuple(lines), tuple(unpriced))


def monthly_estimate(envelope: Envelope) -> float:
    """The committed floor: every pool at its minimum size around the clock (730 h a month)."""
    return round(envelope.min_hourly * HOURS_PER_MONTH, 2)


def unknown_number(path: str) -> UnknownValueError:
    return UnknownValueError(UNKNOWN_NUMBER_VALUE, [path])
