"""Cost before deploy: price a fleet from the GPU catalogue, check it against its budget, diff two runs.

Two layers:

1. Pure pricing over `PricedPool` (cloud, region, instance types, size, spot share, on-demand base,
   usage profile, weekly schedule). No graph, no spec: table-tested against hand-computed figures.
2. Adapters: `estimate_stack` prices a ResourceGraph (the GPU pools found by the cost rules' pool model,
   with the stack spec's usage profile overlaid by pool name); `estimate_spec` prices a FleetSpec alone.

Conventions, stated once and shown in every report:

- A month is 730 hours (8,760 h / 12), i.e. 30.42 days of 24 h. A weekly schedule's running hours per
  month are its running hours per week x 730 / 168.
- A usage profile is a list of steps, hours a day at a size (the spec's ``usage.profile``; its one-step
  form ``hours_per_day`` at ``average_size`` is one step). The month of a pool with a profile is

      sum over steps of (cost an hour at the step's size) x hours_per_day x in-use days
      + (cost an hour at size.min) x (scheduled hours a month - the steps' hours a month)

  i.e. every scheduled hour that no step covers is priced at size.min. The cost an hour at a size splits
  it into on-demand and spot instances as below, so it is not proportional to the size.
- ``days_per_month`` counts calendar days. A schedule that stops the pool on some days of the week
  (weekends) removes those days in proportion: 30 days with weekends off are 30 x 5/7 in-use days. The
  steps' hours a day must fit in the longest running day the schedule leaves.
- Spot share: the on-demand base runs on demand; of the instances above it, ``spot_percent`` run at the
  spot price (catalogue on-demand less the type's typical spot discount), the rest on demand. Counts are
  not rounded: 5 instances at 50% spot cost 2.5 x on-demand + 2.5 x spot.
- A pool listing several instance types is priced at the dearest of them, for the estimate and the
  envelope alike: the mixed-instances policy may land on any of them, and a budget check must not
  under-state. The line names the type used and the types passed over.
- Without a usage profile (a pool outside the spec, or a spec pool without ``usage``) the estimate is
  the pool at its maximum size for every hour its schedule lets it run, and the line says so.
- The envelope is every pool at maximum size for 730 h, spot share at the spot price; ``hourly_worst``
  is every pool at maximum size with every instance on demand (the GF-COST-007 worst case).
- Prices stay in the currency they were published in; each line converts to the report's currency with
  the catalogue's rates, and the report shows the rate and its date.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from components.catalog import Catalog, InstanceType, Price, UnknownInstanceType, load_catalog

__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "HOURS_PER_WEEK",
    "PROFILE_RULE",
    "CostDiff",
    "CostError",
    "CostReport",
    "DiffRow",
    "OtherLine",
    "PoolLine",
    "PriceUsed",
    "PricedPool",
    "StepCost",
    "TableView",
    "UsageLevel",
    "UsageProfile",
    "WeeklySchedule",
    "bucket_storage_line",
    "cost_block",
    "diff",
    "estimate_spec",
    "estimate_stack",
    "lifecycle_stages",
    "other_table",
    "pool_table",
    "price_pool",
    "price_pools",
    "render_diff_markdown",
    "render_diff_text",
    "render_markdown",
    "render_text",
    "split_capacity",
    "step_lines",
    "text_summary",
    "text_title",
    "transfer_line",
    "unpriced_types",
]

HOURS_PER_MONTH = 730.0
HOURS_PER_WEEK = 168.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0
REPORT_VERSION = 1
PROFILE_RULE = (
    "a usage profile's month: each step's hours a day x days a month (days the schedule stops the pool "
    "taken out in proportion), at the pool's cost an hour at that step's size; every scheduled hour no "
    "step covers at size.min"
)
_MINUTES_PER_DAY = 1440
_MINUTES_PER_WEEK = 7 * _MINUTES_PER_DAY
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class CostError(ValueError):
    """Input the estimate cannot price (bad usage profile, unknown type or region, no price).

    The message names the stack file and the field path; the CLI prints it and exits 2.
    """


# ---------------------------------------------------------------------------------------- schedules

_CRON_DAY_NAMES = {"SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6}


def _cron_field(text: str, low: int, high: int, names: Mapping[str, int] | None = None) -> frozenset[int]:
    values: set[int] = set()
    for item in text.split(","):
        step = 1
        part = item
        if "/" in item:
            part, step_text = item.split("/", 1)
            step = int(step_text)
            if step < 1:
                raise ValueError(f"step must be >= 1 in {text!r}")
        if part == "*":
            start, end = low, high
        elif "-" in part:
            first, last = part.split("-", 1)
            start, end = _cron_value(first, names), _cron_value(last, names)
        else:
            start = _cron_value(part, names)
            end = high if step > 1 else start
        if not (low <= start <= high and low <= end <= high) or start > end:
            raise ValueError(f"{text!r} is outside {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)


def _cron_value(text: str, names: Mapping[str, int] | None) -> int:
    if names and text.upper() in names:
        return names[text.upper()]
    return int(text)


@dataclass(frozen=True)
class _Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    weekdays: frozenset[int]  # cron numbering: 0 = Sunday

    @classmethod
    def parse(cls, expression: str) -> _Cron:
        fields = expression.split()
        if len(fields) != 5:
            raise ValueError(f"{expression!r} is not a five-field cron expression")
        minute, hour, day_of_month, month, weekday = fields
        if day_of_month not in ("*", "?") or month != "*":
            raise ValueError(f"{expression!r} depends on the day of the month or the month")
        days = (
            frozenset(range(7))
            if weekday in ("*", "?")
            else frozenset(d % 7 for d in _cron_field(weekday, 0, 7, _CRON_DAY_NAMES))
        )
        return cls(_cron_field(minute, 0, 59), _cron_field(hour, 0, 23), days)

    def fires(self, day: int, minute_of_day: int) -> bool:
        """``day`` 0 = Monday."""
        return (
            (day + 1) % 7 in self.weekdays
            and minute_of_day // 60 in self.hours
            and minute_of_day % 60 in self.minutes
        )


@functools.lru_cache(maxsize=256)
def _replayed_week(stops: tuple[str, ...], starts: tuple[str, ...]) -> tuple[int, ...]:
    """Minutes on per weekday of `WeeklySchedule.from_crons`, replayed once per distinct set of
    recurrences: a fleet's pools mostly share one off-hours schedule, and a replay is 20,160 steps."""
    stop_crons = [_Cron.parse(s) for s in stops]
    start_crons = [_Cron.parse(s) for s in starts]
    running = True
    on = [0] * 7
    # The first week settles the state the schedule leaves at Monday 00:00; the second is counted.
    for minute in range(2 * _MINUTES_PER_WEEK):
        day, minute_of_day = (minute // _MINUTES_PER_DAY) % 7, minute % _MINUTES_PER_DAY
        if any(c.fires(day, minute_of_day) for c in stop_crons):
            running = False
        if any(c.fires(day, minute_of_day) for c in start_crons):
            running = True
        if running and minute >= _MINUTES_PER_WEEK:
            on[day] += 1
    return tuple(on)


@dataclass(frozen=True)
class WeeklySchedule:
    """When a pool may run: the minutes it runs on each day of the week, Monday first."""

    on_minutes: tuple[int, ...]
    description: str

    def __post_init__(self) -> None:
        if len(self.on_minutes) != 7 or not all(0 <= m <= _MINUTES_PER_DAY for m in self.on_minutes):
            raise ValueError(f"on_minutes must be 7 values in 0..1440, got {self.on_minutes}")

    @classmethod
    def always(cls) -> WeeklySchedule:
        return cls((_MINUTES_PER_DAY,) * 7, "around the clock")

    @classmethod
    def from_crons(cls, stops: Sequence[str], starts: Sequence[str], description: str) -> WeeklySchedule:
        """Replay a week of stop (scale to zero) and start (restore) recurrences, from a settled state.

        Raises ValueError for a recurrence this cannot replay (day-of-month or month fields).
        """
        return cls(_replayed_week(tuple(stops), tuple(starts)), description)

    @classmethod
    def from_off_hours(cls, scale_to_zero: str, weekends: bool, timezone: str = "") -> WeeklySchedule:
        """The spec's off-hours window ("20:00-08:00"), replayed with the same recurrences the pool gets."""
        match = re.fullmatch(r"(\d\d):(\d\d)-(\d\d):(\d\d)", scale_to_zero.strip())
        if match is None:
            raise ValueError(f'scale_to_zero must be "HH:MM-HH:MM", got {scale_to_zero!r}')
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        stop = f"{m1} {h1} * * *"
        start = f"{m2} {h2} * * {'1-5' if weekends else '*'}"
        where = f" {timezone}" if timezone else ""
        weekend = ", and weekends" if weekends else ""
        return cls.from_crons([stop], [start], f"off {scale_to_zero}{where}{weekend}")

    @property
    def on_hours_per_week(self) -> float:
        return sum(self.on_minutes) / 60.0

    @property
    def on_hours_per_month(self) -> float:
        return self.on_hours_per_week * HOURS_PER_MONTH / HOURS_PER_WEEK

    @property
    def longest_day_hours(self) -> float:
        return max(self.on_minutes) / 60.0

    @property
    def running_days_per_week(self) -> int:
        return sum(1 for m in self.on_minutes if m > 0)

    @property
    def always_on(self) -> bool:
        return all(m == _MINUTES_PER_DAY for m in self.on_minutes)


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
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"


# ------------------------------------------------------------------------------------------ pricing


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


def _validate_usage(pool: PricedPool, schedule: WeeklySchedule) -> list[tuple[UsageLevel, float]]:
    """Each level with its in-use hours per month; CostError naming the field for an impossible profile."""
    usage = pool.usage
    if usage is None:
        return []
    if not usage.levels:
        raise CostError(f"{pool.where('usage.profile')}: needs at least one size with its hours per day")
    if not 1 <= usage.days_per_month <= 31:
        raise CostError(
            f"{pool.where('usage.days_per_month')}: must be between 1 and 31, "
            f"got {_num(usage.days_per_month)}"
        )
    single = not usage.named_as_profile
    total_hours_per_day = 0.0
    for i, level in enumerate(usage.levels):
        size_field = "usage.average_size" if single else f"usage.profile[{i}].size"
        hours_field = "usage.hours_per_day" if single else f"usage.profile[{i}].hours_per_day"
        if not pool.min_size <= level.size <= pool.max_size:
            raise CostError(
                f"{pool.where(size_field)}: must be between size.min ({pool.min_size}) and size.max "
                f"({pool.max_size}), got {_num(level.size)}"
            )
        if not 0 <= level.hours_per_day <= 24:
            raise CostError(
                f"{pool.where(hours_field)}: must be between 0 and 24, got {_num(level.hours_per_day)}"
            )
        total_hours_per_day += level.hours_per_day
    longest = schedule.longest_day_hours
    if total_hours_per_day > longest + 1e-9:
        field_name = "usage.hours_per_day" if single else "usage.profile"
        raise CostError(
            f"{pool.where(field_name)}: {_num(total_hours_per_day)} h a day in use, but the schedule "
            f"({schedule.description}) lets the pool run at most {_num(longest)} h a day"
        )
    day_share = schedule.running_days_per_week / 7.0
    levels = [(level, level.hours_per_day * usage.days_per_month * day_share) for level in usage.levels]
    in_use = sum(hours for _, hours in levels)
    if in_use > schedule.on_hours_per_month + 1e-9:
        raise CostError(
            f"{pool.where('usage.days_per_month')}: {_num(in_use)} h a month in use exceeds the "
            f"{_num(schedule.on_hours_per_month)} h the schedule ({schedule.description}) lets the pool run"
        )
    return levels


def price_pool(pool: PricedPool, catalog: Catalog, currency: str) -> PoolLine:
    """Price one pool; amounts in ``currency``, converted with the catalogue's rates."""
    if not pool.instance_types:
        raise CostError(f"{pool.where('instance_types')}: no instance type to price")
    if pool.min_size < 0 or pool.max_size < pool.min_size:
        raise CostError(f"{pool.where('size')}: need 0 <= min ({pool.min_size}) <= max ({pool.max_size})")
    if not 0 <= pool.spot_percent <= 100:
        raise CostError(f"{pool.where('spot_percent')}: must be 0..100, got {_num(pool.spot_percent)}")
    choices = []
    for index in range(len(pool.instance_types)):
        instance_type, price = _hourly(catalog, pool, index)
        rate = _rate(catalog, price.currency, currency, pool.where("region"))
        choices.append((price.amount * rate, index, instance_type, price, rate))
    # Dearest first; on a tie the earlier listed (primary) type.
    _, _, instance_type, on_demand, rate = max(choices, key=lambda c: (c[0], -c[1]))
    spot = instance_type.hourly(pool.region, spot=True)
    notes = list(pool.notes)
    if len(choices) > 1:
        others = ", ".join(t.name for _, _, t, _, _ in choices if t is not instance_type)
        notes.append(f"priced at the dearest listed type {instance_type.name} (also listed: {others})")
    if not on_demand.confirmed:
        notes.append(f"the {instance_type.name} price is unconfirmed: check it on {on_demand.source}")

    def per_hour(size: float) -> float:
        on_demand_count, spot_count = split_capacity(size, pool.on_demand_base, pool.spot_percent)
        return (on_demand_count * on_demand.amount + spot_count * spot.amount) * rate

    schedule = pool.schedule or WeeklySchedule.always()
    scheduled = schedule.on_hours_per_month
    levels = _validate_usage(pool, schedule)
    steps: list[StepCost] = []
    if pool.usage is not None and levels:
        usage_hours = sum(hours for _, hours in levels)
        idle_hours = max(0.0, scheduled - usage_hours)
        named = pool.usage.named_as_profile
        for i, (level, hours) in enumerate(levels):
            label = f"usage.profile[{i}]" if named else "in use"
            steps.append(StepCost(label, level.size, level.hours_per_day, hours, per_hour(level.size)))
        if idle_hours > 1e-9:
            steps.append(StepCost("size.min", pool.min_size, None, idle_hours, per_hour(pool.min_size)))
        basis = _profile_basis(
            pool.usage,
            levels=levels,
            schedule=schedule,
            min_size=pool.min_size,
            idle_hours=idle_hours,
            scheduled=scheduled,
        )
    else:
        usage_hours = 0.0
        steps.append(StepCost("max size", pool.max_size, None, scheduled, per_hour(pool.max_size)))
        basis = f"no usage profile: max size {pool.max_size} for all {_num(scheduled)} scheduled h"
    monthly = sum(step.monthly for step in steps)
    instance_hours = sum(step.instance_hours for step in steps)
    # The servers one would own: the largest size the pool actually runs at.
    used = [step.size for step in steps if step.hours > 1e-9]
    peak = max(used) if used else float(pool.min_size)
    return PoolLine(
        pool=pool.name,
        cloud=pool.cloud,
        region=pool.region,
        instance_type=instance_type.name,
        min_size=pool.min_size,
        max_size=pool.max_size,
        spot_percent=pool.spot_percent,
        on_demand_base=pool.on_demand_base,
        on_demand=PriceUsed.of(f"{pool.cloud} {instance_type.name} {pool.region} on-demand", on_demand, "h"),
        spot=PriceUsed.of(
            f"{pool.cloud} {instance_type.name} {pool.region} spot ({instance_type.spot_basis(pool.region)})",
            spot,
            "h",
        ),
        rate=rate,
        currency=currency,
        hourly_min=per_hour(pool.min_size),
        hourly_max=per_hour(pool.max_size),
        hourly_worst=pool.max_size * on_demand.amount * rate,
        scheduled_hours=scheduled,
        usage_hours=usage_hours,
        instance_hours=instance_hours,
        monthly_estimate=monthly,
        monthly_envelope=per_hour(pool.max_size) * HOURS_PER_MONTH,
        basis=basis,
        schedule=schedule.description,
        peak_size=peak,
        notes=tuple(notes),
        steps=tuple(steps),
    )


def _profile_basis(
    usage: UsageProfile,
    *,
    levels: Sequence[tuple[UsageLevel, float]],
    schedule: WeeklySchedule,
    min_size: int,
    idle_hours: float,
    scheduled: float,
) -> str:
    """The rule applied to this pool, with its figures: 'usage profile over 30 days: 8 x 4 h/day
    (120 h), 3 x 10 h/day (300 h); size.min 2 for the other 310 of 730 scheduled h'."""
    days = f"{_num(usage.days_per_month)} days"
    running = schedule.running_days_per_week
    if running < 7:
        in_use_days = usage.days_per_month * running / 7
        days += f" x {running}/7 running days ({_num(in_use_days)} days)"
    parts = ", ".join(f"{_num(lv.size)} x {_num(lv.hours_per_day)} h/day ({_num(h)} h)" for lv, h in levels)
    return (
        f"usage profile over {days}: {parts}; size.min {min_size} for the other {_num(idle_hours)} of "
        f"{_num(scheduled)} scheduled h"
    )


def _service_price(catalog: Catalog, cloud: str, key: str, where: str) -> Price:
    prices = catalog.service(cloud)
    price = prices.price(key) if prices else None
    if price is None:
        raise CostError(f"{where}: the catalogue has no {cloud} price for {key}")
    return price


def volume_line(pool: PricedPool, line: PoolLine, catalog: Catalog, currency: str) -> OtherLine | None:
    """Each instance's root volume, billed while the instance exists (scale-in deletes it)."""
    if not pool.disk_gib:
        return None
    services = catalog.service(pool.cloud)
    price = services.price("block_gib_month") if services else None
    if price is None:
        return None
    rate = _rate(catalog, price.currency, currency, pool.where("disk_gib"))
    per_instance_hour = pool.disk_gib * price.amount / HOURS_PER_MONTH * rate
    notes = []
    if services is not None and services.region != pool.region:
        notes.append(f"list price of {services.region} used for {pool.region}")
    return OtherLine(
        kind="volume",
        name=pool.name,
        quantity=f"{_num(pool.disk_gib)} GiB per instance, {_num(line.instance_hours)} instance-h",
        price=PriceUsed.of(f"{pool.cloud} block storage", price, "GiB-month"),
        cloud=pool.cloud,
        rate=rate,
        currency=currency,
        hourly_min=per_instance_hour * pool.min_size,
        hourly_max=per_instance_hour * pool.max_size,
        monthly_estimate=per_instance_hour * line.instance_hours,
        monthly_envelope=per_instance_hour * pool.max_size * HOURS_PER_MONTH,
        notes=tuple(notes),
    )


def fixed_hourly_line(
    kind: str, name: str, *, cloud: str, key: str, count: int, catalog: Catalog, currency: str, where: str
) -> OtherLine:
    """Something billed per hour whether used or not (NAT gateway, VPN connection), 730 h a month."""
    price = _service_price(catalog, cloud, key, where)
    rate = _rate(catalog, price.currency, currency, where)
    hourly = count * price.amount * rate
    return OtherLine(
        kind=kind,
        name=name,
        quantity=f"{count} x {_num(HOURS_PER_MONTH)} h",
        price=PriceUsed.of(f"{cloud} {kind}", price, "h"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=hourly,
        hourly_max=hourly,
        monthly_estimate=hourly * HOURS_PER_MONTH,
        monthly_envelope=hourly * HOURS_PER_MONTH,
    )


def standalone_volume_line(
    name: str, *, cloud: str, gib: float, catalog: Catalog, currency: str, where: str
) -> OtherLine:
    price = _service_price(catalog, cloud, "block_gib_month", where)
    rate = _rate(catalog, price.currency, currency, where)
    monthly = gib * price.amount * rate
    return OtherLine(
        kind="volume",
        name=name,
        quantity=f"{_num(gib)} GiB",
        price=PriceUsed.of(f"{cloud} block storage", price, "GiB-month"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=monthly / HOURS_PER_MONTH,
        hourly_max=monthly / HOURS_PER_MONTH,
        monthly_estimate=monthly,
        monthly_envelope=monthly,
    )


# S3 Intelligent-Tiering moves an object down a tier after this many consecutive days without access.
IT_TIERS = (("frequent", 0), ("infrequent", 30), ("archive_instant", 90))
IT_CLASS = "INTELLIGENT_TIERING"
IT_RULE = (
    "INTELLIGENT_TIERING objects are taken as not read once there: its frequent tier for their first "
    "30 days in the class, infrequent from day 30, archive instant from day 90 (a read moves an object "
    "back to frequent, which only the frequent price covers); its monitoring fee of 0.0025 USD per "
    "1,000 objects a month is left out: the spec gives no object count"
)


def lifecycle_stages(
    first_class: str, transitions: Sequence[tuple[int, str]], expire_days: int, noncurrent_days: int = 0
) -> list[tuple[str, int]]:
    """(storage class, days) an object spends in each class from its write to its deletion.

    Transitions at or after ``expire_days`` never happen. In a versioned bucket expiry only makes the
    object noncurrent: it stays ``noncurrent_days`` more in the class it had reached, still billed.
    """
    stages: list[tuple[str, int]] = []
    start, current = 0, first_class
    for days, storage_class in sorted(transitions):
        if days >= expire_days:
            break
        if days > start:
            stages.append((current, days - start))
        start, current = days, storage_class
    stages.append((current, expire_days - start + noncurrent_days))
    return stages


def _tiered(stages: Sequence[tuple[str, int]], services: Any) -> list[tuple[str, str, int]]:
    """(storage class, price key, days) with INTELLIGENT_TIERING split into its access tiers where the
    catalogue prices them."""
    split: list[tuple[str, str, int]] = []
    for storage_class, days in stages:
        tiers_priced = services is not None and all(
            services.price(f"intelligent_tiering_gib_month.{tier}") is not None for tier, _ in IT_TIERS
        )
        if storage_class != IT_CLASS or not tiers_priced:
            split.append((storage_class, f"object_gib_month.{storage_class}", days))
            continue
        bounds = [after for _, after in IT_TIERS[1:]] + [days]
        for (tier, after), until in zip(IT_TIERS, bounds, strict=True):
            held = min(days, until) - after
            if held > 0:
                split.append((f"{IT_CLASS} {tier}", f"intelligent_tiering_gib_month.{tier}", held))
    return split


def bucket_storage_line(
    name: str,
    *,
    cloud: str,
    gib_written_per_month: float,
    first_class: str,
    transitions: Sequence[tuple[int, str]],
    expire_days: int,
    catalog: Catalog,
    currency: str,
    where: str = "storage",
    noncurrent_days: int = 0,
    kept_gib: float = 0.0,
    kept_class: str = "STANDARD",
    region: str = "",
    notes: Sequence[str] = (),
    explain_tiers: bool = True,
) -> OtherLine:
    """Steady-state storage of a bucket written at a constant rate, by class over the lifecycle, plus
    ``kept_gib`` that no lifecycle rule deletes (datasets) in ``kept_class``.

    Objects spend ``transitions[0].days`` days in ``first_class``, then the days to the next transition
    in each later class, and are deleted at ``expire_days`` (plus ``noncurrent_days`` in a versioned
    bucket). At a constant write rate W GiB a month the bucket holds W x (days in class) / 30.42 GiB in
    each class. Early-deletion minimums are not added.
    """
    if gib_written_per_month < 0:
        raise CostError(f"{where}: GiB written per month must be >= 0, got {_num(gib_written_per_month)}")
    if kept_gib < 0:
        raise CostError(f"{where}: GiB kept must be >= 0, got {_num(kept_gib)}")
    services = catalog.service(cloud)
    held_by_class: list[tuple[str, float, int | None, Price]] = []
    if gib_written_per_month > 0 or kept_gib == 0:
        stages = lifecycle_stages(first_class, transitions, expire_days, noncurrent_days)
        for label, key, days in _tiered(stages, services):
            price = _service_price(catalog, cloud, key, where)
            held_by_class.append((label, gib_written_per_month * days / DAYS_PER_MONTH, days, price))
    if kept_gib > 0:
        price = _service_price(catalog, cloud, f"object_gib_month.{kept_class}", where)
        held_by_class.append((f"{kept_class} kept", kept_gib, None, price))
    amount = sum(held * price.amount for _, held, _, price in held_by_class)
    held_total = sum(held for _, held, _, _ in held_by_class)
    first_price = held_by_class[0][3]
    if any(price.currency != first_price.currency for _, _, _, price in held_by_class):
        raise CostError(f"{where}: the {cloud} object storage prices are in more than one currency")
    rate = _rate(catalog, first_price.currency, currency, where)
    monthly = amount * rate
    parts = [
        f"{_num(held)} GiB {label} ({f'{days} d' if days is not None else 'no expiry'} "
        f"at {_num(price.amount, 5)})"
        for label, held, days, price in held_by_class
    ]
    prices: dict[str, PriceUsed] = {}
    for label, _, _, price in held_by_class:
        what = f"{cloud} object storage {label.removesuffix(' kept')}"
        prices.setdefault(what, PriceUsed.of(what, price, "GiB-month"))
    summary = PriceUsed(
        f"{cloud} object storage by class",
        amount / max(held_total, 1e-12),
        first_price.currency,
        "GiB-month (blended)",
        first_price.date,
        services.sources.get("object_gib_month", services.source) if services else first_price.source,
        all(p.confirmed for p in prices.values()),
    )
    written = f"{_num(gib_written_per_month)} GiB written a month"
    kept = f"{_num(kept_gib)} GiB kept" if kept_gib > 0 else ""
    line_notes = list(notes)
    if region and services is not None and services.region != region:
        line_notes.append(f"list price of {services.region} used for {region}")
    if explain_tiers and any(label.startswith(IT_CLASS) for label, _, _, _ in held_by_class):
        line_notes.append(IT_RULE)
    return OtherLine(
        kind="bucket",
        name=name,
        quantity=", ".join(x for x in (written if gib_written_per_month > 0 else "", kept) if x)
        + (": " if held_by_class else "")
        + "; ".join(parts),
        price=summary,
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=monthly / HOURS_PER_MONTH,
        hourly_max=monthly / HOURS_PER_MONTH,
        monthly_estimate=monthly,
        monthly_envelope=monthly,
        notes=tuple(line_notes),
        prices=tuple(prices.values()),
    )


def transfer_line(
    kind: str,
    name: str,
    *,
    cloud: str,
    region: str,
    key: str,
    gib_per_month: float,
    catalog: Catalog,
    currency: str,
    where: str,
    notes: Sequence[str] = (),
) -> OtherLine:
    """Data billed by volume (``transfer_out_gib`` to the internet, ``transfer_inter_region_gib`` to
    another region), sent from ``region`` at a constant rate over the month."""
    if gib_per_month < 0:
        raise CostError(f"{where}: GiB a month must be >= 0, got {_num(gib_per_month)}")
    price = _service_price(catalog, cloud, key, where)
    rate = _rate(catalog, price.currency, currency, where)
    monthly = gib_per_month * price.amount * rate
    services = catalog.service(cloud)
    line_notes = list(notes)
    if services is not None and services.region != region:
        line_notes.append(f"list price of {services.region} used for {region}")
    what = "to the internet" if key == "transfer_out_gib" else "to another region"
    return OtherLine(
        kind=kind,
        name=name,
        quantity=f"{_num(gib_per_month)} GiB a month from {region} {what}",
        price=PriceUsed.of(f"{cloud} data transfer {what}", price, "GiB"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=monthly / HOURS_PER_MONTH,
        hourly_max=monthly / HOURS_PER_MONTH,
        monthly_estimate=monthly,
        monthly_envelope=monthly,
        notes=tuple(line_notes),
    )


def _conversions(catalog: Catalog, currency: str, lines: Iterable[PriceUsed]) -> tuple[Conversion, ...]:
    seen = sorted({p.currency for p in lines if p.currency != currency})
    return tuple(
        Conversion(c, currency, catalog.rate(c, currency), catalog.rates_date, catalog.rates_source)
        for c in seen
    )


def _budget_view(budget: BudgetLike | None, catalog: Catalog, currency: str, where: str) -> BudgetView | None:
    if budget is None:
        return None
    rate = _rate(catalog, budget.currency, currency, where)
    return BudgetView(
        monthly=budget.monthly * rate,
        currency=currency,
        alert_percent=budget.alert_percent,
        declared=f"{_num(budget.monthly)} {budget.currency}",
    )


def price_pools(
    pools: Sequence[PricedPool],
    catalog: Catalog | None = None,
    *,
    currency: str = "USD",
    stack: str = "",
    other: Sequence[OtherLine] = (),
    notes: Sequence[str] = (),
    basis: str = "spec",
    budget: BudgetLike | None = None,
    budget_where: str = "budget",
    unpriced: Sequence[str] = (),
) -> CostReport:
    """Price every pool (and its root volumes) into one report in ``currency``.

    ``unpriced`` names the pools left out because the catalogue has no price for them (``pool: why``)."""
    catalog = catalog or load_catalog()
    if currency not in catalog.per_usd:
        known = ", ".join(sorted(catalog.per_usd))
        raise CostError(f"--currency: unknown currency {currency!r}; the catalogue's rates know {known}")
    lines: list[PoolLine] = []
    extras: list[OtherLine] = []
    for pool in pools:
        line = price_pool(pool, catalog, currency)
        lines.append(line)
        volume = volume_line(pool, line, catalog, currency)
        if volume is not None:
            extras.append(volume)
        elif pool.disk_gib:
            notes = [
                *notes,
                f"{pool.name}: root volumes not priced: the catalogue has no {pool.cloud} block price",
            ]
    extras.extend(other)
    used = [p for line in lines for p in (line.on_demand,)] + [o.price for o in extras]
    budget_view = _budget_view(budget, catalog, currency, budget_where)
    if budget is not None and budget.currency != currency:
        used.append(PriceUsed("budget", budget.monthly, budget.currency, "month", "", "", True))
    return CostReport(
        stack=stack,
        currency=currency,
        pools=tuple(lines),
        other=tuple(extras),
        notes=(
            f"a month is {_num(HOURS_PER_MONTH)} h ({_num(DAYS_PER_MONTH)} days); schedules count "
            f"their running hours per week x {_num(HOURS_PER_MONTH)} / {_num(HOURS_PER_WEEK)}",
            *((PROFILE_RULE,) if any(pool.usage is not None for pool in pools) else ()),
            *notes,
        ),
        conversions=_conversions(catalog, currency, used),
        basis=basis,
        budget=budget_view,
        unpriced=tuple(unpriced),
    )


# ------------------------------------------------------------------------------------ budget check


def budget_used_percent(report: CostReport) -> float | None:
    if report.budget is None or report.budget.monthly <= 0:
        return None
    return report.monthly_estimate / report.budget.monthly * 100.0


def cost_block(
    report: CostReport, budget: BudgetLike | None = None, catalog: Catalog | None = None
) -> dict[str, Any]:
    """The check JSON's ``cost`` block (DESIGN.md output contract).

    ``budget`` overrides the report's own (converted to the report's currency); with no budget at all,
    ``budget`` and ``budget_used_percent`` are null.
    """
    view = report.budget
    if budget is not None:
        view = _budget_view(budget, catalog or load_catalog(), report.currency, "budget")
    used = None
    if view is not None and view.monthly > 0:
        used = round(report.monthly_estimate / view.monthly * 100.0, 2)
    block: dict[str, Any] = {
        "currency": report.currency,
        "hourly_min": round(report.hourly_min, 4),
        "hourly_max": round(report.hourly_max, 4),
        "monthly_estimate": round(report.monthly_estimate, 2),
        "budget": round(view.monthly, 2) if view is not None else None,
        "budget_used_percent": used,
    }
    if report.unpriced:
        # Only when some pool could not be priced: the figures above leave it out.
        block["unpriced"] = list(report.unpriced)
    return block


def budget_status(report: CostReport) -> str | None:
    """One sentence on the estimate against the budget, or None without a budget."""
    view = report.budget
    used = budget_used_percent(report)
    if view is None or used is None:
        return None
    figures = (
        f"monthly estimate {_money(report.monthly_estimate)} {report.currency} is {used:.1f}% of the budget "
        f"{_money(view.monthly)} {report.currency} (declared {view.declared})"
    )
    if used > 100:
        return f"OVER BUDGET: {figures}"
    if used >= view.alert_percent:
        return f"above the {view.alert_percent}% alert: {figures}"
    return f"within budget: {figures}"


# ------------------------------------------------------------------------------------------ adapters


def _usage_of(spec_usage: Any) -> UsageProfile | None:
    """The spec's ``usage`` (a profile, or its one-step form) as the pricing's profile."""
    if spec_usage is None:
        return None
    return UsageProfile(
        levels=tuple(UsageLevel(float(step.size), float(step.hours_per_day)) for step in spec_usage.steps),
        days_per_month=float(spec_usage.days_per_month),
        profile_form=bool(spec_usage.is_profile),
    )


def _spec_schedule(pool: Any, environment: str) -> tuple[WeeklySchedule | None, str | None]:
    hours = pool.off_hours
    if hours is None:
        return None, None
    if environment == "prod":
        # The fleet ignores off_hours in prod (production capacity is never switched off by a timetable).
        return None, "off_hours is ignored in prod: priced around the clock"
    return WeeklySchedule.from_off_hours(hours.scale_to_zero, hours.weekends, hours.timezone), None


def _default_region(config: Mapping[str, Any], cloud: str) -> str | None:
    value = config.get(f"{cloud}:region")
    return value if isinstance(value, str) and value else None


def estimate_spec(
    spec: Any,
    *,
    catalog: Catalog | None = None,
    currency: str | None = None,
    stack: str = "",
    source: str = "stack config",
    config: Mapping[str, Any] | None = None,
) -> CostReport:
    """Price a FleetSpec on its own (no program run): every pool as the spec describes it."""
    from components.spec import CONFIG_KEY

    catalog = catalog or load_catalog()
    currency = currency or spec.budget.currency
    pools: list[PricedPool] = []
    for name, pool in spec.pools.items():
        path = f"{CONFIG_KEY}.pools.{name}"
        region = pool.region or _default_region(config or {}, pool.cloud)
        if region is None:
            raise CostError(
                f"{source}: {path}.region: is needed to price the pool "
                f"(or set {pool.cloud}:region in the stack)"
            )
        schedule, note = _spec_schedule(pool, spec.environment)
        pools.append(
            PricedPool(
                name=name,
                cloud=pool.cloud,
                region=region,
                instance_types=tuple(pool.instance_types),
                min_size=pool.size.min,
                max_size=pool.size.max,
                spot_percent=float(pool.spot_percent),
                on_demand_base=pool.on_demand_base,
                usage=_usage_of(pool.usage),
                schedule=schedule,
                disk_gib=float(pool.disk_gib),
                source=source,
                path=path,
                notes=(note,) if note else (),
            )
        )
    notes: list[str] = []
    other = _transfer_lines(spec, pools, catalog, currency, notes)
    if spec.storage.checkpoints.written_gib_per_month is not None or spec.storage.datasets_gib is not None:
        notes.append(
            "bucket storage is priced from the lifecycle the program builds: see the stack's estimate "
            "(gpufleet cost -s STACK), not this spec-only one"
        )
    return price_pools(
        pools,
        catalog,
        currency=currency,
        stack=stack,
        other=other,
        notes=notes,
        basis="spec",
        budget=spec.budget,
        budget_where=f"{source}: {CONFIG_KEY}.budget.currency",
    )


# Type tokens of what bills by the hour or by size beside the pools (from the installed SDKs).
_NAT_GATEWAYS = {
    "aws:ec2/natGateway:NatGateway": "aws",
    "alicloud:vpc/natGateway:NatGateway": "alicloud",
    "tencentcloud:Nat/gateway:Gateway": "tencentcloud",
}
_VPN_CONNECTIONS = {
    "aws:ec2/vpnConnection:VpnConnection": "aws",
    "alicloud:vpn/gateway:Gateway": "alicloud",
    "tencentcloud:Vpn/gateway:Gateway": "tencentcloud",
}
_VOLUMES = {
    "aws:ebs/volume:Volume": ("aws", "size"),
    "alicloud:ecs/ecsDisk:EcsDisk": ("alicloud", "size"),
    "alicloud:ecs/disk:Disk": ("alicloud", "size"),
    "tencentcloud:Cbs/storage:Storage": ("tencentcloud", "storageSize"),
}
_BUCKETS = (
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketV2:BucketV2",
    "alicloud:oss/bucket:Bucket",
    "tencentcloud:Cos/bucket:Bucket",
)
POOL_TAG = "gpufleet:pool"


def _tags(props: Mapping[str, Any]) -> dict[str, str]:
    tags = props.get("tags")
    found: dict[str, str] = {}
    if isinstance(tags, Mapping):
        found.update({str(k): str(v) for k, v in tags.items()})
    elif isinstance(tags, list):  # AWS ASG tags: [{key, value, propagateAtLaunch}]
        for tag in tags:
            if isinstance(tag, Mapping) and "key" in tag:
                found[str(tag["key"])] = str(tag.get("value", ""))
    return found


def _match_spec_pool(name: str, tags: Mapping[str, str], spec_pools: Iterable[str]) -> tuple[str | None, str]:
    """The spec pool a discovered pool belongs to: by its gpufleet:pool tag, else its logical name."""
    names = list(spec_pools)
    tagged = tags.get(POOL_TAG)
    if tagged in names:
        return tagged, "tag"
    candidates = [
        n
        for n in names
        if name == n or name.startswith(f"{n}-") or f"-{n}-" in name or name.endswith(f"-{n}")
    ]
    if not candidates:
        return None, ""
    return max(candidates, key=len), "name"


@dataclass(frozen=True)
class _Action:
    recurrence: str
    max_size: int | None
    desired: int | None

    @property
    def stops(self) -> bool:
        # A start action may restore desired capacity 0 (a pool whose minimum is 0): only a zero
        # maximum, or a zero desired capacity with no maximum given, takes the pool to zero.
        return self.max_size == 0 or (self.max_size is None and self.desired == 0)


_SCHEDULE_TYPES = ("aws:autoscaling/schedule:Schedule", "tencentcloud:As/schedule:Schedule")


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def _pool_actions(pool: Any, graph: Any) -> tuple[list[_Action], str | None]:
    """The pool's scheduled actions; where none was joined to it by reference, the schedules that share
    its component parent (a reference to the group's name may be unknown before deploy)."""
    actions = [_Action(s.recurrence, s.max_size, s.desired) for s in pool.schedules if s.recurrence]
    if actions:
        return actions, None
    resource = graph.get(pool.urn)
    parent = resource.parent if resource is not None else None
    if not parent:
        return [], None
    siblings = [r for r in graph.children(parent) if r.type == pool.resource_type]
    if len(siblings) != 1:
        return [], None
    for schedule in graph.children(parent):
        if schedule.type in _SCHEDULE_TYPES and isinstance(schedule.inputs.get("recurrence"), str):
            actions.append(
                _Action(
                    schedule.inputs["recurrence"],
                    _int_or_none(schedule.inputs.get("maxSize")),
                    _int_or_none(schedule.inputs.get("desiredCapacity")),
                )
            )
    return actions, "schedules joined to the pool through their shared component" if actions else None


def _graph_schedule(actions: Sequence[_Action]) -> tuple[WeeklySchedule | None, str | None]:
    stops = [a.recurrence for a in actions if a.stops]
    starts = [a.recurrence for a in actions if not a.stops]
    if not stops:
        return None, None
    description = "stop " + ", ".join(f"'{s}'" for s in stops)
    description += "; start " + ", ".join(f"'{s}'" for s in starts) if starts else "; never restarted"
    try:
        schedule = WeeklySchedule.from_crons(stops, starts, description)
    except ValueError as exc:
        return None, f"schedule not understood ({exc}): priced around the clock"
    return schedule, None


def _spot_above_base(pool: Any) -> float:
    """The pool model gives the spot share of the whole pool at max size; pricing wants the share of
    the instances above the on-demand base."""
    share = float(pool.spot_percent or 0.0)
    size = int(pool.max_size or 0)
    above = size - min(int(pool.on_demand_base), size)
    if above <= 0:
        return 0.0
    return min(100.0, round(share * size / above, 6))


def estimate_stack(
    graph: Any,
    *,
    catalog: Catalog | None = None,
    currency: str | None = None,
    source: str | None = None,
) -> CostReport:
    """Price the GPU pools (and NAT, VPN, volumes) a program run registers.

    The stack's spec (``gpufleet:fleet`` in ``graph.config``), where there is one, supplies each pool's
    usage profile and the budget, matched by the ``gpufleet:pool`` tag, else by logical name. The pools'
    shape (types, sizes, spot share, schedules) comes from the graph: that is what would be deployed.
    """
    from components.spec import CONFIG_KEY, SpecError, load_fleet_from_config
    from gpufleet.evaluate import default_stack_tags, stack_policy_resources
    from policies.cost.pools import discover_pools

    catalog = catalog or load_catalog()
    source = source or f"stacks/Pulumi.{graph.stack}.yaml"
    spec = None
    if CONFIG_KEY in graph.config:
        try:
            spec = load_fleet_from_config(graph.config, source)
        except SpecError as exc:
            raise CostError(str(exc)) from None
    # Built once per graph: `check` judges the same objects with the stack policies.
    found = discover_pools(stack_policy_resources(graph), catalog, default_stack_tags(graph))
    notes: list[str] = []
    if spec is None:
        notes.append(
            "no gpufleet:fleet spec: every pool is estimated at its maximum size for the hours its "
            "schedules (if any) let it run"
        )
    priced: list[PricedPool] = []
    unpriced: list[str] = []
    matched: set[str] = set()
    for pool in found:
        resource = graph.get(pool.urn)
        tags = _tags(resource.inputs) if resource is not None else {}
        spec_name, how = _match_spec_pool(pool.name, tags, spec.pools if spec else ())
        spec_pool = spec.pools[spec_name] if spec and spec_name else None
        name = spec_name or pool.name
        pool_notes: list[str] = []
        if spec_name:
            matched.add(spec_name)
            if how == "name":
                pool_notes.append(f"matched to spec pool {spec_name} by logical name {pool.name}")
        region = (
            pool.region
            or (spec.pool_region(spec_name, "") if spec and spec_name else "")
            or (_default_region(graph.config, pool.cloud) or "")
        )
        if not region:
            raise CostError(f"{source}: {pool.urn}: the pool's region is unknown; set {pool.cloud}:region")
        if pool.max_size is None or not pool.instance_types:
            notes.append(f"{pool.name}: size or instance type unknown at preview: not priced")
            continue
        reasons = unpriced_types(catalog, pool.cloud, region, pool.instance_types)
        if reasons:
            # A type or region the catalogue does not price never stops a check: the pool is named
            # as unpriced and left out of every total (the security rules still judge it).
            unpriced.append(f"{name}: {'; '.join(reasons)}")
            continue
        actions, joined_note = _pool_actions(pool, graph)
        schedule, schedule_note = _graph_schedule(actions)
        pool_notes.extend(n for n in (joined_note, schedule_note) if n)
        if spec_pool is not None and spec_pool.off_hours is not None and schedule is None:
            pool_notes.append("the spec's off_hours is not deployed: priced around the clock")
        path = f"{CONFIG_KEY}.pools.{spec_name}" if spec_name else pool.urn
        priced.append(
            PricedPool(
                name=name,
                cloud=pool.cloud,
                region=region,
                instance_types=tuple(pool.instance_types),
                min_size=pool.min_size or 0,
                max_size=pool.max_size,
                spot_percent=_spot_above_base(pool),
                on_demand_base=pool.on_demand_base,
                usage=_usage_of(spec_pool.usage) if spec_pool is not None else None,
                schedule=schedule,
                disk_gib=float(spec_pool.disk_gib) if spec_pool is not None else None,
                source=source,
                path=path,
                notes=tuple(pool_notes),
            )
        )
    if spec is not None:
        for spec_name in spec.pools:
            if spec_name not in matched:
                notes.append(f"spec pool {spec_name} has no GPU pool in the program's resources: not priced")
    report_currency = currency or (spec.budget.currency if spec else None) or "USD"
    other = _other_lines(graph, catalog, report_currency, source, notes)
    other += _storage_lines(graph, spec, catalog, report_currency, source=source, notes=notes)
    other += _transfer_lines(spec, priced, catalog, report_currency, notes)
    return price_pools(
        priced,
        catalog,
        currency=report_currency,
        stack=graph.stack,
        other=other,
        notes=notes,
        basis="graph+spec" if spec else "graph",
        budget=spec.budget if spec else None,
        budget_where=f"{source}: {CONFIG_KEY}.budget.currency",
        unpriced=unpriced,
    )


def _other_lines(
    graph: Any, catalog: Catalog, currency: str, source: str, notes: list[str]
) -> list[OtherLine]:
    lines: list[OtherLine] = []
    hourly = [("nat", "nat_gateway_hour", _NAT_GATEWAYS), ("vpn", "vpn_connection_hour", _VPN_CONNECTIONS)]
    for kind, key, tokens in hourly:
        for token, cloud in tokens.items():
            for resource in graph.of_type(token):
                where = f"{source}: {resource.urn}"
                lines.append(
                    fixed_hourly_line(
                        kind,
                        resource.name,
                        cloud=cloud,
                        key=key,
                        count=1,
                        catalog=catalog,
                        currency=currency,
                        where=where,
                    )
                )
    lines.extend(_endpoint_lines(graph, catalog, currency, source, notes))
    for token, (cloud, size_prop) in _VOLUMES.items():
        for resource in graph.of_type(token):
            size = resource.inputs.get(size_prop)
            if isinstance(size, int | float) and not isinstance(size, bool) and size > 0:
                lines.append(
                    standalone_volume_line(
                        resource.name,
                        cloud=cloud,
                        gib=float(size),
                        catalog=catalog,
                        currency=currency,
                        where=f"{source}: {resource.urn}",
                    )
                )
            else:
                notes.append(f"volume {resource.name}: size unknown: not priced")
    return lines


_VPC_ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"
_ENDPOINT_PRICE = "interface_endpoint_az_hour"


def _endpoint_lines(
    graph: Any, catalog: Catalog, currency: str, source: str, notes: list[str]
) -> list[OtherLine]:
    """VPC interface endpoints bill per availability zone (one network interface per subnet) and
    hour; gateway endpoints (S3, DynamoDB) are free. Data processed is not priced."""
    endpoints = [
        r
        for r in graph.of_type(_VPC_ENDPOINT)
        if str(r.inputs.get("vpcEndpointType", "")).lower() == "interface"
    ]
    services = catalog.service("aws")
    if endpoints and (services is None or services.price(_ENDPOINT_PRICE) is None):
        notes.append(f"VPC interface endpoints not priced: the catalogue has no aws {_ENDPOINT_PRICE}")
        return []
    lines = []
    for resource in endpoints:
        subnets = resource.inputs.get("subnetIds")
        zones = len(subnets) if isinstance(subnets, list) and subnets else 1
        lines.append(
            fixed_hourly_line(
                "endpoint",
                resource.name,
                cloud="aws",
                key=_ENDPOINT_PRICE,
                count=zones,
                catalog=catalog,
                currency=currency,
                where=f"{source}: {resource.urn}",
            )
        )
    return lines


_LIFECYCLES = (
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2",
)
_VERSIONINGS = ("aws:s3/bucketVersioning:BucketVersioning", "aws:s3/bucketVersioningV2:BucketVersioningV2")
_REPLICATIONS = ("aws:s3/bucketReplicationConfig:BucketReplicationConfig",)
_CLOUD_OF_BUCKET = {
    "aws:s3/bucket:Bucket": "aws",
    "aws:s3/bucketV2:BucketV2": "aws",
    "alicloud:oss/bucket:Bucket": "alicloud",
    "tencentcloud:Cos/bucket:Bucket": "tencentcloud",
}


@dataclass(frozen=True)
class _Lifecycle:
    transitions: tuple[tuple[int, str], ...]
    expire_days: int
    noncurrent_days: int


def _bucket_refs(bucket: Any) -> set[str]:
    """The values other resources use to point at a bucket: its name, id and ARN."""
    refs = {bucket.outputs.get("bucket"), bucket.outputs.get("id"), bucket.outputs.get("arn"), bucket.id}
    return {r for r in refs if isinstance(r, str) and r}


def _targets(resource: Any, bucket: Any, refs: set[str]) -> bool:
    """True when a bucket's sub-resource (lifecycle, versioning) belongs to ``bucket``: by the bucket it
    names, else (a name unknown before deploy) by sharing the bucket's component parent."""
    named = resource.inputs.get("bucket")
    if isinstance(named, str) and named in refs:
        return True
    return not (isinstance(named, str) and named) and resource.parent == bucket.parent


def _whole_days(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _checkpoint_lifecycle(graph: Any, bucket: Any, prefix: str) -> _Lifecycle | None:
    """The enabled lifecycle rule that expires ``prefix`` (the checkpoints), as the program builds it."""
    refs = _bucket_refs(bucket)
    versioned = any(
        _targets(v, bucket, refs)
        and (v.inputs.get("versioningConfiguration") or {}).get("status") == "Enabled"
        for v in graph.of_type(*_VERSIONINGS)
    )
    for lifecycle in graph.of_type(*_LIFECYCLES):
        if not _targets(lifecycle, bucket, refs):
            continue
        for rule in lifecycle.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            rule_prefix = (rule.get("filter") or {}).get("prefix", rule.get("prefix"))
            expire = _whole_days((rule.get("expiration") or {}).get("days"))
            if rule_prefix != prefix or expire is None:
                continue
            transitions = tuple(
                (days, str(t["storageClass"]))
                for t in rule.get("transitions") or []
                if isinstance(t, Mapping) and (days := _whole_days(t.get("days"))) is not None
            )
            noncurrent = _whole_days((rule.get("noncurrentVersionExpiration") or {}).get("noncurrentDays"))
            return _Lifecycle(transitions, expire, noncurrent or 0 if versioned else 0)
    return None


def _replicas(graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(replication config, destination bucket) for each enabled rule copying ``source`` elsewhere."""
    refs = _bucket_refs(source)
    found = []
    for config in graph.of_type(*_REPLICATIONS):
        if config.inputs.get("bucket") not in refs:
            continue
        for rule in config.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            arn = (rule.get("destination") or {}).get("bucket")
            for other in buckets:
                if other is not source and arn in _bucket_refs(other):
                    found.append((config, other))
    return found


def _bucket_region(bucket: Any, graph: Any, cloud: str) -> str:
    region = bucket.inputs.get("region")
    return region if isinstance(region, str) and region else (_default_region(graph.config, cloud) or "")


def _storage_lines(
    graph: Any, spec: Any, catalog: Catalog, currency: str, *, source: str, notes: list[str]
) -> list[OtherLine]:
    """The checkpoint bucket and its replicas, priced from the lifecycle the program builds and the
    spec's volumes; replication traffic at the inter-region price. Other buckets are named unpriced."""
    from components.spec import CONFIG_KEY

    buckets = graph.of_type(*_BUCKETS)
    if spec is None:
        if buckets:
            notes.append(
                "bucket storage is not priced: there is no gpufleet:fleet spec to give the stored volume "
                f"({', '.join(b.name for b in buckets)})"
            )
        return []
    storage = spec.storage
    written = storage.checkpoints.written_gib_per_month
    datasets = storage.datasets_gib
    field_path = f"{CONFIG_KEY}.storage"
    checkpoint_buckets = [b for b in buckets if _tags(b.inputs).get("purpose") == "checkpoints"]
    others = [b for b in buckets if b not in checkpoint_buckets]
    if others:
        notes.append(
            "bucket storage not priced where the spec gives no volume for it: "
            + ", ".join(f"{b.name} ({_tags(b.inputs).get('purpose', 'no purpose tag')})" for b in others)
        )
    if not checkpoint_buckets:
        return []
    missing = [
        f"{field_path}.{name}"
        for name, value in (("checkpoints.written_gib_per_month", written), ("datasets_gib", datasets))
        if value is None
    ]
    if written is None and datasets is None:
        notes.append(
            f"checkpoint bucket storage and replication are not priced: set {' and '.join(missing)} "
            f"({', '.join(b.name for b in checkpoint_buckets)})"
        )
        return []
    if missing:
        notes.append(f"{' and '.join(missing)} not set: that part of bucket storage is not priced")
    home_region = _default_region(graph.config, "aws")
    home = next(
        (b for b in checkpoint_buckets if _bucket_region(b, graph, "aws") == home_region),
        checkpoint_buckets[0],
    )
    # Data lands in the home bucket; replication copies it into each bucket downstream of it.
    holders, transfers, queue = [home], [], [home]
    while queue:
        current = queue.pop()
        for config, replica in _replicas(graph, current, checkpoint_buckets):
            if replica not in holders:
                holders.append(replica)
                queue.append(replica)
                transfers.append((config, current, replica))
    lines: list[OtherLine] = []
    for bucket in holders:
        cloud = _CLOUD_OF_BUCKET[bucket.type]
        region = _bucket_region(bucket, graph, cloud)
        where = f"{source}: {bucket.urn}"
        lifecycle = _checkpoint_lifecycle(graph, bucket, storage.checkpoint_prefix)
        if lifecycle is None and written:
            notes.append(
                f"bucket {bucket.name}: no enabled lifecycle rule expires {storage.checkpoint_prefix!r}: "
                "checkpoint storage not priced (it would grow without end)"
            )
        bucket_notes = []
        if bucket is not home:
            bucket_notes.append(f"a replica of {home.name}: it holds the same objects, on its own lifecycle")
        if lifecycle is not None and lifecycle.noncurrent_days:
            bucket_notes.append(
                f"the bucket is versioned: an expired checkpoint stays {lifecycle.noncurrent_days} d more as "
                "a noncurrent version, in the class it had reached"
            )
        lines.append(
            bucket_storage_line(
                bucket.name,
                cloud=cloud,
                gib_written_per_month=float(written or 0.0) if lifecycle is not None else 0.0,
                first_class="STANDARD",
                transitions=lifecycle.transitions if lifecycle else (),
                expire_days=lifecycle.expire_days if lifecycle else 1,
                noncurrent_days=lifecycle.noncurrent_days if lifecycle else 0,
                kept_gib=float(datasets or 0.0),
                catalog=catalog,
                currency=currency,
                where=where,
                region=region,
                notes=bucket_notes,
                explain_tiers=False,
            )
        )
        uses_tiers = lifecycle is not None and any(IT_CLASS in t for _, t in lifecycle.transitions)
        if uses_tiers and written and IT_RULE not in notes:
            notes.append(IT_RULE)
    for config, origin, replica in transfers:
        if not written:
            continue
        cloud = _CLOUD_OF_BUCKET[origin.type]
        region = _bucket_region(origin, graph, cloud)
        replication_notes = [
            "checkpoints written in either region cross once: the spec's volume is fleet-wide",
        ]
        if datasets:
            replication_notes.append(
                f"the first copy of the {_num(datasets)} GiB of datasets is one-off (S3 Batch Replication), "
                "not monthly"
            )
        lines.append(
            transfer_line(
                "replication",
                config.name,
                cloud=cloud,
                region=region,
                key="transfer_inter_region_gib",
                gib_per_month=float(written),
                catalog=catalog,
                currency=currency,
                where=f"{source}: {config.urn}",
                notes=(f"{origin.name} -> {replica.name}", *replication_notes),
            )
        )
    return lines


def _transfer_lines(
    spec: Any, priced: Sequence[PricedPool], catalog: Catalog, currency: str, notes: list[str]
) -> list[OtherLine]:
    """Each priced spec pool's data transfer, where the spec gives its volume."""
    if spec is None:
        return []
    lines: list[OtherLine] = []
    missing: list[str] = []
    fields = (
        ("egress", "egress_gib_per_month", "transfer_out_gib"),
        ("cross-region", "cross_region_gib_per_month", "transfer_inter_region_gib"),
    )
    for pool in priced:
        spec_pool = spec.pools.get(pool.name)
        if spec_pool is None:
            continue
        transfer = spec_pool.transfer
        for kind, field_name, key in fields:
            gib = getattr(transfer, field_name) if transfer is not None else None
            if gib is None:
                missing.append(f"{pool.name}.transfer.{field_name}")
                continue
            if gib == 0:
                continue
            services = catalog.service(pool.cloud)
            if services is None or services.price(key) is None:
                notes.append(
                    f"{pool.name}: {kind} transfer not priced: the catalogue has no {pool.cloud} {key}"
                )
                continue
            lines.append(
                transfer_line(
                    kind,
                    pool.name,
                    cloud=pool.cloud,
                    region=pool.region,
                    key=key,
                    gib_per_month=float(gib),
                    catalog=catalog,
                    currency=currency,
                    where=pool.where(f"transfer.{field_name}"),
                )
            )
    if missing:
        notes.append(
            f"data transfer not priced where the spec gives no volume: pools.{', pools.'.join(missing)}"
        )
    return lines


# --------------------------------------------------------------------------------------------- diff


@dataclass(frozen=True)
class DiffRow:
    key: str
    change: str  # added | removed | changed | unchanged
    base_monthly: float | None
    head_monthly: float | None
    detail: str = ""

    @property
    def delta(self) -> float:
        return (self.head_monthly or 0.0) - (self.base_monthly or 0.0)


@dataclass(frozen=True)
class CostDiff:
    stack: str
    currency: str
    rows: tuple[DiffRow, ...]
    base_total: float
    head_total: float
    base_envelope: float
    head_envelope: float

    @property
    def delta(self) -> float:
        return self.head_total - self.base_total

    @property
    def changed(self) -> tuple[DiffRow, ...]:
        return tuple(r for r in self.rows if r.change != "unchanged")

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "currency": self.currency,
            "rows": [
                {
                    "key": r.key,
                    "change": r.change,
                    "base_monthly": r.base_monthly,
                    "head_monthly": r.head_monthly,
                    "delta": round(r.delta, 2),
                    "detail": r.detail,
                }
                for r in self.rows
            ],
            "base_monthly_estimate": round(self.base_total, 2),
            "head_monthly_estimate": round(self.head_total, 2),
            "delta": round(self.delta, 2),
            "base_monthly_envelope": round(self.base_envelope, 2),
            "head_monthly_envelope": round(self.head_envelope, 2),
        }


_SHAPE_FIELDS = (
    ("instance_type", "type"),
    ("region", "region"),
    ("min", "min"),
    ("max", "max"),
    ("spot_percent", "spot %"),
    ("on_demand_base", "on-demand base"),
    ("schedule", "schedule"),
    ("usage_hours", "in-use h"),
)


def _loaded(report: CostReport | Mapping[str, Any], label: str) -> Mapping[str, Any]:
    data = report.to_json() if isinstance(report, CostReport) else report
    if not isinstance(data, Mapping) or data.get("version") != REPORT_VERSION or "pools" not in data:
        raise CostError(
            f"{label}: not a gpufleet cost JSON document (version {REPORT_VERSION}); "
            "write one with `gpufleet cost -s STACK --format json`"
        )
    return data


def _rows(data: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    rows: dict[str, Mapping[str, Any]] = {}
    for pool in data.get("pools", []):
        rows[f"pool:{pool['pool']}"] = pool
    for other in data.get("other", []):
        rows[f"{other['kind']}:{other['name']}"] = other
    return rows


def _detail(base: Mapping[str, Any], head: Mapping[str, Any]) -> str:
    changes = []
    for key, label in _SHAPE_FIELDS:
        if key in base and key in head and base[key] != head[key]:
            changes.append(f"{label} {_show(base[key])} -> {_show(head[key])}")
    base_price = (base.get("on_demand_price") or base.get("price") or {}).get("amount")
    head_price = (head.get("on_demand_price") or head.get("price") or {}).get("amount")
    if base_price != head_price and base_price is not None and head_price is not None:
        changes.append(f"price {_show(base_price)} -> {_show(head_price)}")
    return "; ".join(changes)


def diff(
    base: CostReport | Mapping[str, Any],
    head: CostReport | Mapping[str, Any],
    *,
    catalog: Catalog | None = None,
    base_label: str = "base",
) -> CostDiff:
    """What ``head`` changes against ``base`` (the cost JSON of the base branch), per line, per month.

    Both are converted to the head's currency when they differ, with the catalogue's rates.
    """
    head_data = _loaded(head, "head")
    base_data = _loaded(base, base_label)
    currency = str(head_data["currency"])
    factor = 1.0
    if base_data["currency"] != currency:
        factor = _rate(catalog or load_catalog(), str(base_data["currency"]), currency, base_label)
    base_rows, head_rows = _rows(base_data), _rows(head_data)
    rows: list[DiffRow] = []
    for key in [*head_rows, *(k for k in base_rows if k not in head_rows)]:
        b, h = base_rows.get(key), head_rows.get(key)
        b_month = round(float(b["monthly_estimate"]) * factor, 2) if b is not None else None
        h_month = float(h["monthly_estimate"]) if h is not None else None
        if b is None:
            change, detail = "added", ""
        elif h is None:
            change, detail = "removed", ""
        else:
            detail = _detail(b, h)
            change = "changed" if detail or abs((h_month or 0) - (b_month or 0)) >= 0.005 else "unchanged"
        rows.append(DiffRow(key, change, b_month, h_month, detail))
    totals_b, totals_h = base_data["totals"], head_data["totals"]
    return CostDiff(
        stack=str(head_data.get("stack", "")),
        currency=currency,
        rows=tuple(rows),
        base_total=float(totals_b["monthly_estimate"]) * factor,
        head_total=float(totals_h["monthly_estimate"]),
        base_envelope=float(totals_b["monthly_envelope"]) * factor,
        head_envelope=float(totals_h["monthly_envelope"]),
    )


# ---------------------------------------------------------------------------------------- rendering


def _num(value: float, places: int = 2) -> str:
    """Short form for prose: 12, 12.5, 0.0125."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _signed(value: float) -> str:
    return f"{'+' if value >= 0 else '-'}{abs(value):,.2f}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return _num(value, 4)
    return str(value)


def _size(line: PoolLine) -> str:
    return f"{line.min_size}-{line.max_size}"


def _spot(line: PoolLine) -> str:
    base = f", base {line.on_demand_base}" if line.on_demand_base else ""
    return f"{_num(line.spot_percent)}%{base}"


def _pool_rows(report: CostReport) -> list[list[str]]:
    rows = []
    for line in report.pools:
        rows.append(
            [
                line.pool,
                f"{line.cloud} {line.region}",
                line.instance_type,
                _size(line),
                _spot(line),
                f"{_num(line.on_demand.amount, 5)} / {_num(line.spot.amount, 5)} {line.on_demand.currency}",
                _money(line.hourly_min),
                _money(line.hourly_max),
                _num(line.scheduled_hours),
                _num(line.instance_hours),
                _money(line.monthly_estimate),
                _money(line.monthly_envelope),
            ]
        )
    return rows


_POOL_HEADER = [
    "pool",
    "cloud region",
    "type",
    "size",
    "spot",
    "price/h od / spot",
    "hourly min",
    "hourly max",
    "sched h/mo",
    "inst-h/mo",
    "monthly est",
    "envelope/mo",
]
_OTHER_HEADER = ["item", "quantity", "price", "hourly max", "monthly est", "envelope/mo"]


def _other_rows(report: CostReport) -> list[list[str]]:
    return [
        [
            o.key,
            o.quantity,
            f"{_num(o.price.amount, 5)} {o.price.currency}/{o.price.unit}",
            _money(o.hourly_max),
            _money(o.monthly_estimate),
            _money(o.monthly_envelope),
        ]
        for o in report.other
    ]


def _numeric(index: int, numeric_from: int, numeric_to: int | None) -> bool:
    return numeric_from <= index and (numeric_to is None or index < numeric_to)


def _table(
    header: list[str], rows: list[list[str]], numeric_from: int, numeric_to: int | None = None
) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [
            c.rjust(w) if _numeric(i, numeric_from, numeric_to) else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def _sources(report: CostReport) -> list[tuple[str, PriceUsed]]:
    seen: dict[str, PriceUsed] = {}
    for line in report.pools:
        seen.setdefault(line.on_demand.what, line.on_demand)
        seen.setdefault(line.spot.what, line.spot)
    for other in report.other:
        for price in other.prices or (other.price,):
            seen.setdefault(price.what, price)
    return list(seen.items())


def _price_source(price: PriceUsed) -> str:
    flag = "" if price.confirmed else ", UNCONFIRMED"
    return f"{price.label()} ({price.date}, {price.source}{flag})"


@dataclass(frozen=True)
class TableView:
    """A report table as cells already formatted: every renderer shows the same figures."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric_from: int  # columns from this index on are right-aligned figures


def pool_table(report: CostReport) -> TableView:
    return TableView(tuple(_POOL_HEADER), tuple(tuple(r) for r in _pool_rows(report)), 6)


def other_table(report: CostReport) -> TableView:
    return TableView(tuple(_OTHER_HEADER), tuple(tuple(r) for r in _other_rows(report)), 3)


def text_title(report: CostReport) -> str:
    return f"cost of stack {report.stack or '?'} (amounts in {report.currency}; basis: {report.basis})"


def render_text(report: CostReport) -> str:
    out = [text_title(report), ""]
    if report.pools:
        out.extend(_table(_POOL_HEADER, _pool_rows(report), 6))
    else:
        out.append("no GPU pools found")
    if report.other:
        out += ["", *(_table(_OTHER_HEADER, _other_rows(report), 3))]
    out += ["", *text_summary(report)]
    return "\n".join(out) + "\n"


def step_lines(line: PoolLine) -> list[str]:
    """A pool's month term by term, each checkable by hand: instances x hours at the cost an hour."""
    c = line.currency
    out = [
        f"{step.label}: {_num(step.size)} x {_num(step.hours)} h at {_num(step.hourly, 4)} {c}/h "
        f"= {_money(step.monthly)} {c}"
        for step in line.steps
    ]
    out.append(f"= {_num(line.instance_hours)} instance-h, {_money(line.monthly_estimate)} {c}")
    return out


def text_summary(report: CostReport) -> list[str]:
    """The lines of the text report below its tables: totals, budget, basis, prices, notes."""
    c = report.currency
    out = [
        f"total: hourly {_money(report.hourly_min)} at min, {_money(report.hourly_max)} at max "
        f"({_money(report.hourly_worst)} all on demand); "
        f"monthly estimate {_money(report.monthly_estimate)} {c}; "
        f"envelope {_money(report.monthly_envelope)} {c} (all at max, {_num(HOURS_PER_MONTH)} h)",
    ]
    status = budget_status(report)
    if status:
        out.append(status)
    out += [f"unpriced (left out of every total): {item}" for item in report.unpriced]
    out += [
        "",
        "how each pool's month was estimated (instances x hours a month at the pool's cost an hour "
        "at that size):",
    ]
    for line in report.pools:
        out.append(f"  {line.pool}: {line.basis}; schedule {line.schedule}")
        out += [f"    {text}" for text in step_lines(line)]
    out += ["", "prices used:"]
    out += [f"  {_price_source(price)}" for _, price in _sources(report)]
    for conversion in report.conversions:
        out.append(f"  {conversion.label()}")
    pool_notes = [f"{line.pool}: {note}" for line in report.pools for note in line.notes]
    other_notes = [f"{o.key}: {note}" for o in report.other for note in o.notes]
    notes = [*report.notes, *pool_notes, *other_notes]
    if notes:
        out += ["", "notes:", *(f"  - {n}" for n in notes)]
    return out


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(
    header: list[str], rows: list[list[str]], numeric_from: int, numeric_to: int | None = None
) -> list[str]:
    align = ["---:" if _numeric(i, numeric_from, numeric_to) else "---" for i in range(len(header))]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows),
    ]


def render_markdown(report: CostReport) -> str:
    c = report.currency
    out = [f"### Cost of `{report.stack or '?'}` ({c} per month unless marked /h)", ""]
    if report.pools:
        out.extend(_md_table(_POOL_HEADER, _pool_rows(report), 6))
    else:
        out.append("No GPU pools found.")
    if report.other:
        out += ["", *(_md_table(_OTHER_HEADER, _other_rows(report), 3))]
    out += [
        "",
        f"**Total:** {_money(report.hourly_min)}-{_money(report.hourly_max)} {c}/h; "
        f"**monthly estimate {_money(report.monthly_estimate)} {c}**; envelope "
        f"{_money(report.monthly_envelope)} {c} (all at max, {_num(HOURS_PER_MONTH)} h).",
    ]
    status = budget_status(report)
    if status:
        out += ["", f"**Budget:** {status}"]
    if report.unpriced:
        out += ["", "**Unpriced** (left out of every total):", *(f"- {item}" for item in report.unpriced)]
    out += ["", "<details><summary>How it was priced</summary>", ""]
    for line in report.pools:
        out.append(f"- `{line.pool}`: {line.basis}; schedule {line.schedule}")
        out += [f"  - {text}" for text in step_lines(line)]
    out += [f"- {_price_source(price)}" for _, price in _sources(report)]
    out += [f"- {conversion.label()}" for conversion in report.conversions]
    out += [f"- {n}" for n in report.notes]
    out += [f"- `{line.pool}`: {note}" for line in report.pools for note in line.notes]
    out += ["", "</details>"]
    return "\n".join(out) + "\n"


def _diff_rows(result: CostDiff) -> list[list[str]]:
    return [
        [
            row.key,
            row.change,
            "-" if row.base_monthly is None else _money(row.base_monthly),
            "-" if row.head_monthly is None else _money(row.head_monthly),
            _signed(row.delta),
            row.detail,
        ]
        for row in result.changed
    ]


_DIFF_HEADER = ["line", "change", "base/mo", "head/mo", "delta/mo", "what changed"]
_DIFF_DETAIL = _DIFF_HEADER.index("what changed")  # prose after the figures, left-aligned


def render_diff_text(result: CostDiff) -> str:
    c = result.currency
    out = [f"cost change of stack {result.stack or '?'} ({c} per month)", ""]
    rows = _diff_rows(result)
    if rows:
        out.extend(_table(_DIFF_HEADER, rows, 2, _DIFF_DETAIL))
    else:
        out.append("no line changes")
    out += [
        "",
        f"monthly estimate {_money(result.base_total)} -> {_money(result.head_total)} {c} "
        f"({_signed(result.delta)} {c}/month); envelope {_money(result.base_envelope)} -> "
        f"{_money(result.head_envelope)} {c}",
    ]
    return "\n".join(out) + "\n"


def render_diff_markdown(result: CostDiff) -> str:
    c = result.currency
    out = [
        f"### Cost change of `{result.stack or '?'}`: {_signed(result.delta)} {c}/month",
        "",
    ]
    rows = _diff_rows(result)
    if rows:
        out.extend(_md_table(_DIFF_HEADER, rows, 2, _DIFF_DETAIL))
    else:
        out.append("No line changes.")
    out += [
        "",
        f"Monthly estimate {_money(result.base_total)} -> {_money(result.head_total)} {c}; envelope "
        f"{_money(result.base_envelope)} -> {_money(result.head_envelope)} {c}.",
    ]
    return "\n".join(out) + "\n"
