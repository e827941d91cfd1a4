"""Pricing a pool: its cost an hour at each size, its month from the usage profile and schedule; the
report over all pools; the estimate against the budget."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gpufleet.components.catalog import Catalog, load_catalog
from gpufleet.cost.lookup import _hourly, _rate
from gpufleet.cost.model import (
    BudgetLike,
    BudgetView,
    Conversion,
    CostError,
    CostReport,
    OtherLine,
    PoolLine,
    PricedPool,
    PriceUsed,
    StepCost,
    UsageLevel,
    UsageProfile,
    split_capacity,
)
from gpufleet.cost.other_lines import volume_line
from gpufleet.cost.schedule import WeeklySchedule
from gpufleet.cost.units import DAYS_PER_MONTH, HOURS_PER_MONTH, HOURS_PER_WEEK, _money, _num

PROFILE_RULE = (
    "a usage profile's month: each step's hours a day x days a month (days the schedule stops the pool "
    "taken out in proportion), at the pool's cost an hour at that step's size; every scheduled hour no "
    "step covers at size.min"
)


# ------------------------------------------------------------------------------------------ pricing


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
