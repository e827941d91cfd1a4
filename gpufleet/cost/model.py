"""What the pricing takes (a pool, its usage profile) and what it gives (lines, prices used, the
report and its stable JSON document)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gpufleet.components.catalog import Price
from gpufleet.cost.schedule import WeeklySchedule
from gpufleet.cost.units import HOURS_PER_MONTH, _num

if TYPE_CHECKING:
    from gpufleet.cost.owned import OwnedCapacity

REPORT_VERSION = 1


class CostError(ValueError):
    """Input the estimate cannot price (bad usage profile, unknown type or region, no price).

    The message names the stack file and the field path; the CLI prints it and exits 2.
    """


# --------------------------------------------------------------------------------------- the input


@dataclass(frozen=True)
class UsageLevel:
    size: float
    hours_per_day: float


@dataclass(frozen=True)
class UsageProfile:
    """Hours per day at each size while the pool is in use; at its minimum size the rest of the time.

    ``profile_form`` says how the spec wrote it: a ``usage.profile`` list (errors name
    ``usage.profile[i]``), or one step as ``usage.hours_per_day`` at ``usage.average_size``.
    """

    levels: tuple[UsageLevel, ...]
    days_per_month: float = 30.0
    profile_form: bool = False

    @property
    def named_as_profile(self) -> bool:
        return self.profile_form or len(self.levels) != 1


@dataclass(frozen=True)
class PricedPool:
    """One GPU pool as the pricing sees it.

    ``source`` and ``path`` name where the pool was described (``stacks/Pulumi.prod.yaml`` and
    ``gpufleet:fleet.pools.train``, or the program and the pool's URN) so errors point at it.
    """

    name: str
    cloud: str
    region: str
    instance_types: tuple[str, ...]
    min_size: int
    max_size: int
    spot_percent: float = 0.0
    on_demand_base: int = 0
    usage: UsageProfile | None = None
    schedule: WeeklySchedule | None = None
    disk_gib: float | None = None
    source: str = "stack config"
    path: str = ""
    notes: tuple[str, ...] = ()

    def where(self, field_name: str) -> str:
        path = f"{self.path}.{field_name}" if self.path else field_name
        return f"{self.source}: {path}"


def split_capacity(size: float, on_demand_base: int, spot_percent: float) -> tuple[float, float]:
    """(on-demand instances, spot instances) at ``size``."""
    base = min(size, float(on_demand_base))
    spot = (size - base) * spot_percent / 100.0
    return size - spot, spot


# -------------------------------------------------------------------------------------- the output


@dataclass(frozen=True)
class PriceUsed:
    """A catalogue price as a line used it, in its own currency."""

    what: str
    amount: float
    currency: str
    unit: str
    date: str
    source: str
    confirmed: bool

    @classmethod
    def of(cls, what: str, price: Price, unit: str) -> PriceUsed:
        return cls(what, price.amount, price.currency, unit, price.date, price.source, price.confirmed)

    def label(self) -> str:
        return f"{self.what}: {_num(self.amount, 5)} {self.currency}/{self.unit}"

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "amount": round(self.amount, 6),
            "currency": self.currency,
            "unit": self.unit,
            "date": self.date,
            "source": self.source,
            "confirmed": self.confirmed,
        }


@dataclass(frozen=True)
class StepCost:
    """One term of a pool's month: ``size`` instances for ``hours`` a month at ``hourly`` (the pool's cost
    an hour at that size, in the report's currency)."""

    label: str  # usage.profile[0], in use, size.min, max size
    size: float
    hours_per_day: float | None  # None for the hours no step covers
    hours: float
    hourly: float

    @property
    def monthly(self) -> float:
        return self.hourly * self.hours

    @property
    def instance_hours(self) -> float:
        return self.size * self.hours

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "size": self.size,
            "hours_per_day": self.hours_per_day,
            "hours": round(self.hours, 2),
            "hourly": round(self.hourly, 4),
            "monthly": round(self.monthly, 2),
        }


@dataclass(frozen=True)
class PoolLine:
    """One pool's figures, in the report's currency (prices in their own)."""

    pool: str
    cloud: str
    region: str
    instance_type: str
    min_size: int
    max_size: int
    spot_percent: float
    on_demand_base: int
    on_demand: PriceUsed
    spot: PriceUsed
    rate: float
    currency: str
    hourly_min: float
    hourly_max: float
    hourly_worst: float
    scheduled_hours: float
    usage_hours: float
    instance_hours: float
    monthly_estimate: float
    monthly_envelope: float
    basis: str
    schedule: str
    peak_size: float = 0.0
    notes: tuple[str, ...] = ()
    steps: tuple[StepCost, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "cloud": self.cloud,
            "region": self.region,
            "instance_type": self.instance_type,
            "min": self.min_size,
            "max": self.max_size,
            "spot_percent": self.spot_percent,
            "on_demand_base": self.on_demand_base,
            "on_demand_price": self.on_demand.to_json(),
            "spot_price": self.spot.to_json(),
            "rate": round(self.rate, 6),
            "hourly_min": round(self.hourly_min, 4),
            "hourly_max": round(self.hourly_max, 4),
            "hourly_worst": round(self.hourly_worst, 4),
            "scheduled_hours": round(self.scheduled_hours, 2),
            "usage_hours": round(self.usage_hours, 2),
            "instance_hours": round(self.instance_hours, 2),
            "monthly_estimate": round(self.monthly_estimate, 2),
            "monthly_envelope": round(self.monthly_envelope, 2),
            "basis": self.basis,
            "schedule": self.schedule,
            "peak_size": self.peak_size,
            "steps": [step.to_json() for step in self.steps],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class OtherLine:
    """Something beside the GPUs: volumes, NAT gateways, VPN connections, bucket storage."""

    kind: str
    name: str
    quantity: str
    price: PriceUsed
    rate: float
    currency: str
    hourly_min: float
    hourly_max: float
    monthly_estimate: float
    monthly_envelope: float
    notes: tuple[str, ...] = ()
    cloud: str = ""
    prices: tuple[PriceUsed, ...] = ()  # each price a blended line used, with its own date and source

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "quantity": self.quantity,
            "price": self.price.to_json(),
            "rate": round(self.rate, 6),
            "hourly_min": round(self.hourly_min, 4),
            "hourly_max": round(self.hourly_max, 4),
            "monthly_estimate": round(self.monthly_estimate, 2),
            "monthly_envelope": round(self.monthly_envelope, 2),
            "prices": [p.to_json() for p in self.prices],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Conversion:
    from_currency: str
    to_currency: str
    rate: float
    date: str
    source: str

    def label(self) -> str:
        return (
            f"1 {self.from_currency} = {_num(self.rate, 4)} {self.to_currency} "
            f"(catalogue rate of {self.date}, {self.source})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.from_currency,
            "to": self.to_currency,
            "rate": round(self.rate, 6),
            "date": self.date,
            "source": self.source,
        }


class BudgetLike(Protocol):
    @property
    def monthly(self) -> float: ...

    @property
    def currency(self) -> str: ...

    @property
    def alert_percent(self) -> int: ...


@dataclass(frozen=True)
class BudgetView:
    """The stack's budget in the report's currency."""

    monthly: float
    currency: str
    alert_percent: int
    declared: str  # as written in the spec, e.g. "60000 USD"

    def to_json(self) -> dict[str, Any]:
        return {
            "monthly": round(self.monthly, 2),
            "currency": self.currency,
            "alert_percent": self.alert_percent,
            "declared": self.declared,
        }


@dataclass(frozen=True)
class CostReport:
    stack: str
    currency: str
    pools: tuple[PoolLine, ...]
    other: tuple[OtherLine, ...] = ()
    notes: tuple[str, ...] = ()
    conversions: tuple[Conversion, ...] = ()
    basis: str = "spec"
    budget: BudgetView | None = None
    # "pool: why" for each GPU pool the catalogue cannot price (type or region it has no price for):
    # left out of every total, named on the cost line instead of stopping the check.
    unpriced: tuple[str, ...] = ()
    # The on-prem baseline's hardware (gpufleet.cost.owned): shown beside the totals, never in them.
    owned: OwnedCapacity | None = None

    @property
    def hourly_min(self) -> float:
        return sum(p.hourly_min for p in self.pools) + sum(o.hourly_min for o in self.other)

    @property
    def hourly_max(self) -> float:
        return sum(p.hourly_max for p in self.pools) + sum(o.hourly_max for o in self.other)

    @property
    def hourly_worst(self) -> float:
        return sum(p.hourly_worst for p in self.pools) + sum(o.hourly_max for o in self.other)

    @property
    def monthly_estimate(self) -> float:
        return sum(p.monthly_estimate for p in self.pools) + sum(o.monthly_estimate for o in self.other)

    @property
    def monthly_envelope(self) -> float:
        return sum(p.monthly_envelope for p in self.pools) + sum(o.monthly_envelope for o in self.other)

    def monthly_by_cloud(self) -> dict[str, float]:
        """The monthly estimate split by cloud (budgets are per cloud account)."""
        split: dict[str, float] = {}
        lines: list[PoolLine | OtherLine] = [*self.pools, *self.other]
        for line in lines:
            if line.cloud:
                split[line.cloud] = split.get(line.cloud, 0.0) + line.monthly_estimate
        return {cloud: round(amount, 2) for cloud, amount in sorted(split.items())}

    def totals(self) -> dict[str, float]:
        return {
            "hourly_min": round(self.hourly_min, 4),
            "hourly_max": round(self.hourly_max, 4),
            "hourly_worst": round(self.hourly_worst, 4),
            "monthly_estimate": round(self.monthly_estimate, 2),
            "monthly_envelope": round(self.monthly_envelope, 2),
        }

    def to_json(self) -> dict[str, Any]:
        """The stable document `gpufleet cost --format json` prints and `--compare` reads."""
        return {
            "version": REPORT_VERSION,
            "stack": self.stack,
            "currency": self.currency,
            "hours_per_month": HOURS_PER_MONTH,
            "basis": self.basis,
            "pools": [p.to_json() for p in self.pools],
            "other": [o.to_json() for o in self.other],
            "totals": self.totals(),
            "budget": self.budget.to_json() if self.budget else None,
            "rates": [c.to_json() for c in self.conversions],
            "notes": list(self.notes),
            "unpriced": list(self.unpriced),
        } | ({"owned": self.owned.to_json()} if self.owned is not None else {})

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"
