"""The pools' hourly envelope at on-demand prices (the worst case the cost rules judge) and the
committed monthly floor."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError

from gpufleet.policies.cost.pools.families import expand, vcpu_count
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.gpu import CatalogLike

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
    catalog: CatalogLike, cloud: str, entry: Any, region: str | None
) -> tuple[float, str, str] | None:
    """The on-demand price of a catalogue entry in `region`; None when the catalogue has no price
    there (the pool is then "unpriced", as on the cost line). An unknown region is priced at the
    highest listed regional price (the worst case)."""
    if entry is None:
        return None
    if region:
        if region not in entry.on_demand:
            return None
        price = entry.hourly(region, spot=False)
        return float(price.amount), str(price.currency), ""
    best: tuple[float, str, str] | None = None
    for listed_region in entry.on_demand:
        price = entry.hourly(listed_region, spot=False)
        if best is None or float(price.amount) > best[0]:
            best = (float(price.amount), str(price.currency), f"highest listed price ({listed_region})")
    return best


@dataclass(frozen=True)
class _Shape:
    """One type a pool may run, priced: what each instance costs and how many the pool holds."""

    instance_type: str
    hourly_each: float
    count_min: int
    count_max: int
    note: str


def _shapes(pool: Pool, catalog: CatalogLike | None, currency: str) -> tuple[list[_Shape], list[str]]:
    """The pool's priced types, and "pool: why" for each it cannot price."""
    shapes: list[_Shape] = []
    unpriced: list[str] = []
    for name, entry in expand(catalog, pool.cloud, pool.instance_types):
        priced = _on_demand_price(catalog, pool.cloud, entry, pool.region) if catalog else None
        if priced is None:
            where = f" in {pool.region}" if entry is not None and pool.region else ""
            unpriced.append(f"{pool.name}: {name}{where}")
            continue
        amount, price_currency, note = priced
        if price_currency != currency and catalog is not None:
            amount = catalog.convert(amount, price_currency, currency)
        if pool.max_vcpus is not None:
            count_max = vcpu_count(pool.max_vcpus, entry)
            count_min = 0 if not pool.min_vcpus else vcpu_count(pool.min_vcpus, entry)
            if count_max is None or count_min is None:
                unpriced.append(f"{pool.name}: {name} (vCPUs unknown)")
                continue
            extra = f"{pool.max_vcpus} vCPUs"
            note = f"{extra}, {note}" if note else extra
        else:
            count_min = pool.min_size or 0
            count_max = pool.max_size if pool.max_size is not None else count_min
        shapes.append(_Shape(name, amount, count_min, count_max, note))
    return shapes, unpriced


def worst_shape(pool: Pool, catalog: CatalogLike | None, currency: str) -> tuple[_Shape | None, list[str]]:
    """The type that costs the pool most at its maximum (a pool of several types can reach it), and
    what could not be priced."""
    shapes, unpriced = _shapes(pool, catalog, currency)
    if pool.max_vcpus is not None:
        best = max(shapes, key=lambda s: s.hourly_each * s.count_max, default=None)
    else:
        best = max(shapes, key=lambda s: s.hourly_each, default=None)
    return best, unpriced


def hourly_envelope(pools: Iterable[Pool], catalog: CatalogLike | None, currency: str = "USD") -> Envelope:
    """Hourly spend at min size and at max size, every instance at its on-demand price.

    A pool of several instance types is priced at its most expensive type (the worst case a
    mixed-instances policy can reach); a pool sized in vCPUs (AWS Batch) at the type whose instances
    cost most for its `maxVcpus`. Prices in other currencies are converted with the catalogue. A type
    or region the catalogue has no price for is named in `unpriced` and left out.
    """
    lines: list[PriceLine] = []
    unpriced: list[str] = []
    low = high = 0.0
    for pool in pools:
        best, missing = worst_shape(pool, catalog, currency)
        unpriced.extend(missing)
        if not pool.instance_types:
            unpriced.append(f"{pool.name}: instance type unknown")
        if best is None:
            continue
        lines.append(
            PriceLine(
                pool.name,
                best.instance_type,
                pool.region,
                best.count_min,
                best.count_max,
                best.hourly_each,
                currency,
                best.note,
            )
        )
        low += best.hourly_each * best.count_min
        high += best.hourly_each * best.count_max
    return Envelope(round(low, 4), round(high, 4), currency, tuple(lines), tuple(unpriced))


def monthly_estimate(envelope: Envelope) -> float:
    """The committed floor: every pool at its minimum size around the clock (730 h a month)."""
    return round(envelope.min_hourly * HOURS_PER_MONTH, 2)


def unknown_number(path: str) -> UnknownValueError:
    return UnknownValueError(UNKNOWN_NUMBER_VALUE, [path])
