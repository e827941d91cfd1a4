"""Owned capacity: the on-prem baseline's hardware beside the rented pools.

- **Whole cost of owning.** ``onprem.hardware`` names a server model of the catalogue's ``purchases`` and a
  count (default: one per GPU node). A month of it is ``count x`` one server's month of owning from
  ``gpufleet/ownership.py`` (the figure ``gpufleet advise buy-vs-rent`` uses): the amortised purchase
  (``price / amortisation_months``, converted with the catalogue's rate), power, hosting, maintenance
  and staff, at the catalogue's ``ownership`` defaults or the stack's ``onprem.hardware`` overrides.
  The line shows the amortised purchase as its first term. Owned capacity is shown beside the rented
  total, not added to it: the budget covers cloud spend.
- **Coverage.** The pools' usage profiles are read as the fleet's demand, in GPUs: each pool at each
  step's size for its hours a day (its largest steps first, from the start of the day), at its minimum
  size the rest of the day, and a pool without a profile at its maximum all day. The pools' peaks are
  taken to coincide (the burst a day is then the most it can be). The baseline takes the first
  ``gpu_count`` GPUs of the demand every hour; what is above bursts to the clouds. Schedules
  (off-hours) are not applied to the demand here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpufleet.components.catalog import Catalog
from gpufleet.cost.model import CostReport, PoolLine, PricedPool
from gpufleet.cost.units import HOURS_PER_MONTH, _money, _num

HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class Coverage:
    """One day of demand against the baseline, in GPUs and GPU-hours."""

    baseline_gpus: int
    demand_gpu_hours: float  # a day
    baseline_gpu_hours: float  # of the demand, a day
    burst_gpu_hours: float  # a day
    burst_hours: float  # hours a day the demand exceeds the baseline
    peak_gpus: float

    @property
    def covered_percent(self) -> float:
        return 100.0 * self.baseline_gpu_hours / self.demand_gpu_hours if self.demand_gpu_hours else 100.0

    @property
    def baseline_busy_percent(self) -> float:
        capacity = self.baseline_gpus * HOURS_PER_DAY
        return 100.0 * self.baseline_gpu_hours / capacity if capacity else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "baseline_gpus": self.baseline_gpus,
            "demand_gpu_hours_per_day": round(self.demand_gpu_hours, 2),
            "baseline_gpu_hours_per_day": round(self.baseline_gpu_hours, 2),
            "burst_gpu_hours_per_day": round(self.burst_gpu_hours, 2),
            "burst_hours_per_day": round(self.burst_hours, 2),
            "peak_gpus": round(self.peak_gpus, 2),
            "covered_percent": round(self.covered_percent, 2),
            "baseline_busy_percent": round(self.baseline_busy_percent, 2),
        }


@dataclass(frozen=True)
class OwnedCapacity:
    server: str
    count: int
    gpus: int
    price: float  # one server, in its own currency
    price_currency: str
    price_date: str
    months: int
    rate: float  # report currency per price currency
    currency: str
    coverage: Coverage | None = None
    terms: tuple[tuple[str, float, str], ...] = ()
    """One server's month of owning, term by term (name, amount, formula): gpufleet/ownership.py. The
    "hardware" term is the amortised purchase; without terms the month is that purchase alone."""

    @property
    def hardware_monthly(self) -> float:
        """The amortised purchase of all the servers, a month."""
        return self.count * self.price * self.rate / self.months

    @property
    def per_server_monthly(self) -> float:
        if not self.terms:
            return self.price * self.rate / self.months
        return sum(amount for _, amount, _ in self.terms)

    @property
    def monthly(self) -> float:
        """The whole cost of owning all the servers, a month."""
        return self.count * self.per_server_monthly

    @property
    def gpu_hour(self) -> float:
        """The owned GPU-hour, every hour of the month counted."""
        return self.monthly / (self.gpus * HOURS_PER_MONTH) if self.gpus else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "count": self.count,
            "gpus": self.gpus,
            "price": self.price,
            "price_currency": self.price_currency,
            "price_date": self.price_date,
            "amortisation_months": self.months,
            "rate": round(self.rate, 6),
            "monthly": round(self.monthly, 2),
            "hardware_monthly": round(self.hardware_monthly, 2),
            "per_server_monthly": round(self.per_server_monthly, 2),
            "ownership": {
                "per_server_monthly": {name: round(amount, 2) for name, amount, _ in self.terms},
                "formulas": {name: formula for name, _, formula in self.terms},
            },
            "gpu_hour": round(self.gpu_hour, 4),
            "coverage": None if self.coverage is None else self.coverage.to_json(),
        }


# ------------------------------------------------------------------------------------------ demand


def pool_demand(pool: PricedPool, gpus_per_instance: int) -> list[tuple[float, float]]:
    """A pool's day as (hours, GPUs) steps, largest first, covering 24 hours."""
    if pool.usage is None:
        return [(HOURS_PER_DAY, float(pool.max_size * gpus_per_instance))]
    steps = sorted(pool.usage.levels, key=lambda level: level.size, reverse=True)
    out = [(level.hours_per_day, level.size * gpus_per_instance) for level in steps]
    rest = HOURS_PER_DAY - sum(hours for hours, _ in out)
    if rest > 0:
        out.append((rest, float(pool.min_size * gpus_per_instance)))
    return out


def coverage(baseline_gpus: int, demands: Sequence[Sequence[tuple[float, float]]]) -> Coverage:
    """The day's demand (each pool's steps laid from the start of the day, added up) against the
    baseline: it takes up to ``baseline_gpus`` every hour, the rest bursts."""
    cuts = {0.0, HOURS_PER_DAY}
    for steps in demands:
        at = 0.0
        for hours, _ in steps:
            at += hours
            cuts.add(min(at, HOURS_PER_DAY))
    edges = sorted(cuts)
    demand = baseline = burst = burst_hours = peak = 0.0
    for start, end in itertools.pairwise(edges):
        length = end - start
        if length <= 0:
            continue
        level = sum(_level_at(steps, start) for steps in demands)
        peak = max(peak, level)
        demand += level * length
        baseline += min(level, baseline_gpus) * length
        if level > baseline_gpus:
            burst += (level - baseline_gpus) * length
            burst_hours += length
    return Coverage(
        baseline_gpus=baseline_gpus,
        demand_gpu_hours=demand,
        baseline_gpu_hours=baseline,
        burst_gpu_hours=burst,
        burst_hours=burst_hours,
        peak_gpus=peak,
    )


def _level_at(steps: Sequence[tuple[float, float]], hour: float) -> float:
    at = 0.0
    for hours, gpus in steps:
        if at <= hour < at + hours:
            return gpus
        at += hours
    return 0.0


# ------------------------------------------------------------------------------------------ adapter


def owned_capacity(
    onprem: Any,
    purchases: Mapping[str, Mapping[str, Any]],
    catalog: Catalog,
    currency: str,
    *,
    pools: Sequence[PricedPool] = (),
    lines: Sequence[PoolLine] = (),
) -> OwnedCapacity | None:
    """The baseline's owned capacity, or None when the spec names no hardware. ``pools`` and their
    priced ``lines`` (matched by name, for the instance type priced) give the coverage."""
    if onprem is None or onprem.hardware is None:
        return None
    from gpufleet.ownership import load_ownership

    hardware = onprem.hardware
    quote = purchases[hardware.server]
    price_currency = str(quote["currency"])
    rate = catalog.rate(price_currency, currency)
    owning = load_ownership().with_hardware(hardware)
    terms = owning.monthly_terms(
        float(quote["amount"]) * rate,
        onprem.gpu_nodes.gpus_per_node,
        lambda amount: catalog.convert(amount, owning.currency, currency),
    )
    cover = None
    if pools:
        types = {line.pool: line.instance_type for line in lines}
        demands = []
        for pool in pools:
            instance = catalog.find(pool.cloud, types.get(pool.name, pool.instance_types[0]))
            if instance is not None:
                demands.append(pool_demand(pool, instance.gpu_count))
        cover = coverage(onprem.gpu_count, demands)
    return OwnedCapacity(
        server=hardware.server,
        count=onprem.owned_servers,
        gpus=onprem.gpu_count,
        price=float(quote["amount"]),
        price_currency=price_currency,
        price_date=str(quote.get("date", "")),
        months=owning.life_months,
        rate=rate,
        currency=currency,
        coverage=cover,
        terms=tuple(terms),
    )


def render_owned(owned: OwnedCapacity, rented_monthly: float) -> list[str]:
    """The text report's owned-capacity lines, each figure checkable by hand."""
    c = owned.currency
    rate = "" if owned.price_currency == c else f" at {_num(owned.rate, 4)} {c}/{owned.price_currency}"
    others = "".join(
        f" + {name} {_money(owned.count * amount)}" for name, amount, _ in owned.terms if name != "hardware"
    )
    whole = f"{others} = {_money(owned.monthly)} {c}" if others else ""
    out = [
        f"owned: {owned.count} x {owned.server} at {_money(owned.price)} {owned.price_currency} "
        f"(quoted {owned.price_date}){rate} / {owned.months} months = {_money(owned.hardware_monthly)} {c} "
        f"hardware{whole} a month (the whole cost of owning, as gpufleet advise buy-vs-rent weighs it), "
        f"{owned.gpus} GPUs, {_num(owned.gpu_hour, 4)} {c}/GPU-hour over {_num(HOURS_PER_MONTH)} h",
        f"owned and rented side by side: owned {_money(owned.monthly)} {c}, rented (estimate) "
        f"{_money(rented_monthly)} {c} a month; owned is not counted against the budget",
    ]
    cover = owned.coverage
    if cover is not None:
        out.append(
            f"baseline coverage: of {_num(cover.demand_gpu_hours)} GPU-hours a day the pools' usage asks "
            f"for, the baseline's {cover.baseline_gpus} GPUs take {_num(cover.baseline_gpu_hours)} "
            f"({_num(cover.covered_percent, 1)}%); {_num(cover.burst_gpu_hours)} burst to the clouds over "
            f"{_num(cover.burst_hours)} h a day (peak {_num(cover.peak_gpus)} GPUs, peaks taken to "
            f"coincide); the baseline is busy {_num(cover.baseline_busy_percent, 1)}% of the day"
        )
    return out


def with_owned(report: CostReport, spec: Any, pools: Sequence[PricedPool], catalog: Catalog) -> CostReport:
    """``report`` with the spec's owned capacity (none without a spec or ``onprem.hardware``)."""
    from gpufleet.components.spec.onprem_checks import purchase_models

    onprem = getattr(spec, "onprem", None) if spec is not None else None
    owned = owned_capacity(
        onprem, purchase_models(), catalog, report.currency, pools=pools, lines=report.pools
    )
    return report if owned is None else replace(report, owned=owned)
