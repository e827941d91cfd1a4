"""Usage profiles in the estimate: hours a day at each size, size.min for the scheduled hours no step
covers, checked against figures worked out by hand from the small catalogue (g5.2xlarge: 1.0 USD an
hour on demand, 0.4 on spot, 0.1 USD a GiB-month of block storage)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.advise import buy_vs_rent, render_advice_text
from gpufleet.components.spec import parse_fleet
from gpufleet.cost import (
    HOURS_PER_MONTH,
    PROFILE_RULE,
    CostError,
    PricedPool,
    StepCost,
    UsageLevel,
    UsageProfile,
    WeeklySchedule,
    estimate_spec,
    price_pool,
    price_pools,
    render_text,
)
from tests.cost.helpers import small_catalog
from tests.cost.test_advise import PURCHASE_ONLY

CATALOG = small_catalog()
OFF_HOURS = WeeklySchedule.from_off_hours("20:00-08:00", weekends=True, timezone="Asia/Shanghai")
FOUR_AT_8_TEN_AT_3 = UsageProfile((UsageLevel(8, 4), UsageLevel(3, 10)), 30, profile_form=True)


def pool(**overrides: object) -> PricedPool:
    values: dict[str, object] = {
        "name": "train",
        "cloud": "aws",
        "region": "us-east-1",
        "instance_types": ("g5.2xlarge",),
        "min_size": 2,
        "max_size": 8,
        "source": "stacks/Pulumi.dev.yaml",
        "path": "gpufleet:fleet.pools.train",
    }
    values.update(overrides)
    return PricedPool(**values)  # type: ignore[arg-type]


def _terms(steps: tuple[StepCost, ...]) -> list[tuple[str, float, float | None, float, float]]:
    return [(s.label, s.size, s.hours_per_day, round(s.hours, 6), round(s.hourly, 6)) for s in steps]


# ---------------------------------------------------------------------------------- around the clock


def test_4_h_at_8_and_10_h_at_3_with_min_2_for_30_days() -> None:
    line = price_pool(pool(usage=FOUR_AT_8_TEN_AT_3), CATALOG, "USD")
    # 8 x 4 h x 30 days = 8 x 120 h = 960 instance-h
    # 3 x 10 h x 30 days = 3 x 300 h = 900 instance-h
    # the other 730 - 420 = 310 scheduled h at size.min 2 = 620 instance-h
    # 960 + 900 + 620 = 2,480 instance-h, all on demand at 1.0 USD = 2,480 USD
    assert _terms(line.steps) == [
        ("usage.profile[0]", 8, 4, 120, 8.0),
        ("usage.profile[1]", 3, 10, 300, 3.0),
        ("size.min", 2, None, 310, 2.0),
    ]
    assert line.usage_hours == pytest.approx(420)
    assert line.scheduled_hours == pytest.approx(730)
    assert line.instance_hours == pytest.approx(2480)
    assert line.monthly_estimate == pytest.approx(2480)
    assert line.peak_size == 8
    assert line.basis == (
        "usage profile over 30 days: 8 x 4 h/day (120 h), 3 x 10 h/day (300 h); size.min 2 for the other "
        "310 of 730 scheduled h"
    )


def test_the_same_profile_with_spot_above_an_on_demand_base() -> None:
    line = price_pool(pool(usage=FOUR_AT_8_TEN_AT_3, on_demand_base=2, spot_percent=50), CATALOG, "USD")
    # An hour at 8: the base 2 on demand, 6 above it half on spot: 2 x 1.0 + 3 x 1.0 + 3 x 0.4 = 6.2
    # an hour at 3: 2 x 1.0 + 0.5 x 1.0 + 0.5 x 0.4 = 2.7; an hour at size.min 2: 2.0
    # 6.2 x 120 + 2.7 x 300 + 2.0 x 310 = 744 + 810 + 620 = 2,174 USD
    assert [round(step.hourly, 6) for step in line.steps] == [6.2, 2.7, 2.0]
    assert [round(step.monthly, 6) for step in line.steps] == [744, 810, 620]
    assert line.monthly_estimate == pytest.approx(2174)
    # The instance-hours do not depend on the prices.
    assert line.instance_hours == pytest.approx(2480)


def test_the_steps_cover_the_whole_day() -> None:
    profile = UsageProfile((UsageLevel(8, 10), UsageLevel(3, 14)), 30, profile_form=True)
    line = price_pool(pool(usage=profile), CATALOG, "USD")
    # 10 + 14 = 24 h a day for 30 days = 720 h; a 730 h month leaves 10 h at size.min 2.
    # 8 x 300 + 3 x 420 + 2 x 10 = 2,400 + 1,260 + 20 = 3,680
    assert [(step.label, round(step.hours, 6)) for step in line.steps] == [
        ("usage.profile[0]", 300),
        ("usage.profile[1]", 420),
        ("size.min", 10),
    ]
    assert line.monthly_estimate == pytest.approx(3680)


# ------------------------------------------------------------------------- the off-hours schedule


def test_the_same_14_hours_do_not_fit_the_20_to_08_weekday_schedule() -> None:
    with pytest.raises(CostError) as excinfo:
        price_pool(pool(usage=FOUR_AT_8_TEN_AT_3, schedule=OFF_HOURS), CATALOG, "USD")
    assert str(excinfo.value) == (
        "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.train.usage.profile: 14 h a day in use, but the "
        "schedule (off 20:00-08:00 Asia/Shanghai, and weekends) lets the pool run at most 12 h a day"
    )


def test_4_h_at_8_and_8_h_at_3_under_the_20_to_08_weekday_schedule() -> None:
    profile = UsageProfile((UsageLevel(8, 4), UsageLevel(3, 8)), 30, profile_form=True)
    line = price_pool(pool(usage=profile, schedule=OFF_HOURS), CATALOG, "USD")
    # The schedule runs 08:00-20:00 on 5 days of 7: 60 h a week = 60 x 730 / 168 = 1,825/7 = 260.71 h.
    # 30 days x 5/7 = 150/7 = 21.43 in-use days.
    # 8 x 4 h x 150/7 = 8 x 600/7 h (85.71 h)   = 4,800/7 instance-h
    # 3 x 8 h x 150/7 = 3 x 1,200/7 h (171.43 h) = 3,600/7 instance-h
    # the other 1,825/7 - 1,800/7 = 25/7 h (3.57 h) at size.min 2 = 50/7 instance-h
    # (4,800 + 3,600 + 50) / 7 = 8,450/7 = 1,207.14 instance-h at 1.0 USD
    assert [(step.label, step.size) for step in line.steps] == [
        ("usage.profile[0]", 8),
        ("usage.profile[1]", 3),
        ("size.min", 2),
    ]
    assert [step.hours for step in line.steps] == pytest.approx([600 / 7, 1200 / 7, 25 / 7])
    assert line.scheduled_hours == pytest.approx(1825 / 7)
    assert line.instance_hours == pytest.approx(8450 / 7)
    assert line.monthly_estimate == pytest.approx(8450 / 7)
    assert line.basis == (
        "usage profile over 30 days x 5/7 running days (21.43 days): 8 x 4 h/day (85.71 h), "
        "3 x 8 h/day (171.43 h); size.min 2 for the other 3.57 of 260.71 scheduled h"
    )
    assert line.schedule == "off 20:00-08:00 Asia/Shanghai, and weekends"


# ------------------------------------------------------------------------------ the one-step form


def test_the_one_step_form_prices_as_before() -> None:
    # 4 instances 10 h a day for 30 days = 300 h; size.min 2 for the other 430 h.
    # 4 x 300 + 2 x 430 = 1,200 + 860 = 2,060 USD
    line = price_pool(pool(usage=UsageProfile((UsageLevel(4, 10),), 30)), CATALOG, "USD")
    assert [(step.label, round(step.hours, 6)) for step in line.steps] == [("in use", 300), ("size.min", 430)]
    assert line.monthly_estimate == pytest.approx(2060)
    assert line.basis == (
        "usage profile over 30 days: 4 x 10 h/day (300 h); size.min 2 for the other 430 of 730 scheduled h"
    )


def test_without_a_profile_the_pool_runs_at_max_for_every_scheduled_hour() -> None:
    line = price_pool(pool(), CATALOG, "USD")
    assert _terms(line.steps) == [("max size", 8, None, 730, 8.0)]
    assert line.monthly_estimate == pytest.approx(8 * 730)


def test_one_step_written_as_a_profile_is_named_as_a_profile() -> None:
    profile = UsageProfile((UsageLevel(1, 8),), 30, profile_form=True)
    with pytest.raises(CostError) as excinfo:
        price_pool(pool(usage=profile), CATALOG, "USD")
    assert str(excinfo.value) == (
        "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.train.usage.profile[0].size: must be between "
        "size.min (2) and size.max (8), got 1"
    )


def test_a_step_of_no_hours_is_shown_but_is_not_the_peak() -> None:
    profile = UsageProfile((UsageLevel(8, 0), UsageLevel(3, 10)), 30, profile_form=True)
    line = price_pool(pool(usage=profile), CATALOG, "USD")
    assert line.steps[0].hours == 0
    # The servers one would own are the 3 the pool actually runs.
    assert line.peak_size == 3
    assert line.monthly_estimate == pytest.approx(3 * 300 + 2 * 430)


# -------------------------------------------------------------------------------- spec to estimate


def test_a_spec_profile_priced_by_estimate_spec() -> None:
    shape = {
        "region": "us-east-1",
        "instance_types": ["g5.2xlarge"],
        "workload": {"image_reads_queue": True},
        "size": {"min": 2, "max": 8},
    }
    spec = parse_fleet({
        "environment": "dev", "tags": {"project": "p", "team": "t", "cost-center": "c"},
        "budget": {"monthly": 5000},
        "pools": {
            "train": {**shape, "usage": {"profile": [{"size": 8, "hours_per_day": 4},
                                                     {"size": 3, "hours_per_day": 10}]}},
            "night": {**shape, "off_hours": {"timezone": "Asia/Shanghai", "scale_to_zero": "20:00-08:00"},
                      "usage": {"profile": [{"size": 8, "hours_per_day": 4},
                                            {"size": 3, "hours_per_day": 8}]}},
        },
    })  # fmt: skip
    report = estimate_spec(spec, catalog=CATALOG, stack="dev")
    lines = {line.pool: line for line in report.pools}
    # The figures of the two tests above: 2,480 around the clock, 8,450/7 under the schedule.
    assert lines["train"].monthly_estimate == pytest.approx(2480)
    assert lines["night"].monthly_estimate == pytest.approx(8450 / 7)
    assert report.notes[1] == PROFILE_RULE


# --------------------------------------------------------------------------------------- the report


def test_text_report_shows_each_term_a_reviewer_can_multiply() -> None:
    report = price_pools([pool(usage=FOUR_AT_8_TEN_AT_3, disk_gib=100)], CATALOG, currency="USD", stack="dev")
    text = render_text(report)
    assert (
        "  train: usage profile over 30 days: 8 x 4 h/day (120 h), 3 x 10 h/day (300 h); size.min 2 for "
        "the other 310 of 730 scheduled h; schedule around the clock\n"
        "    usage.profile[0]: 8 x 120 h at 8 USD/h = 960.00 USD\n"
        "    usage.profile[1]: 3 x 300 h at 3 USD/h = 900.00 USD\n"
        "    size.min: 2 x 310 h at 2 USD/h = 620.00 USD\n"
        "    = 2480 instance-h, 2,480.00 USD\n"
    ) in text
    assert f"  - {PROFILE_RULE}" in text
    row = next(line for line in text.splitlines() if line.startswith("train "))
    assert row.split()[-4:] == ["730", "2480", "2,480.00", "5,840.00"]
    # The root volumes follow the same instance-hours: 100 GiB x 0.1 USD x 2,480 / 730.
    (volume,) = report.other
    assert volume.monthly_estimate == pytest.approx(100 * 0.1 * 2480 / 730)


def test_json_lists_the_steps() -> None:
    report = price_pools([pool(usage=FOUR_AT_8_TEN_AT_3)], CATALOG, currency="USD", stack="dev")
    (line,) = json.loads(report.dumps())["pools"]
    assert line["steps"] == [
        {"label": "usage.profile[0]", "size": 8, "hours_per_day": 4, "hours": 120.0, "hourly": 8.0,
         "monthly": 960.0},
        {"label": "usage.profile[1]", "size": 3, "hours_per_day": 10, "hours": 300.0, "hourly": 3.0,
         "monthly": 900.0},
        {"label": "size.min", "size": 2, "hours_per_day": None, "hours": 310.0, "hourly": 2.0,
         "monthly": 620.0},
    ]  # fmt: skip
    assert line["instance_hours"] == 2480.0


def test_no_profile_no_rule_note() -> None:
    report = price_pools([pool()], CATALOG, currency="USD")
    with_profile = price_pools([pool(usage=FOUR_AT_8_TEN_AT_3)], CATALOG, currency="USD")
    # The positive control: the same pool with a profile carries the note, after the month note.
    assert with_profile.notes[1:] == (PROFILE_RULE,)
    assert report.notes == with_profile.notes[:1]


# ------------------------------------------------------------------------------------ buy vs rent


def test_buy_vs_rent_utilisation_follows_the_instance_hours() -> None:
    line_pool = pool(instance_types=("p4d.24xlarge",), usage=FOUR_AT_8_TEN_AT_3)
    report = price_pools([line_pool], CATALOG, currency="USD")
    (row,) = buy_vs_rent(report, CATALOG, PURCHASE_ONLY)
    # Own the peak, 8 servers; they carry the 2,480 instance-h: 310 h each, 310 / 730 utilisation.
    assert row.instances == 8
    assert row.hours_per_month == pytest.approx(310)
    assert row.utilisation == pytest.approx(310 / HOURS_PER_MONTH)
    # Renting is the month: 2,480 instance-h at 30 USD = 74,400 USD; owning 8 x 216,000 / 36 = 48,000.
    assert row.rent_monthly == pytest.approx(74400)
    assert row.own_monthly == pytest.approx(48000)
    assert row.verdict == "keep renting"
    assert row.hours_formula == (
        "8 x 120 h + 3 x 300 h + 2 x 310 h = 2,480 instance-h / 8 instances = 310 h each (42.5% of 730 h)"
    )
    text = render_advice_text([row], "dev")
    assert (
        f"  hours: {row.hours_formula}\n  rent: 30.0000 USD/h x 310 h x 8 instances = 74,400 USD/month"
        in text
    )


# ----------------------------------------------------------------------------------------- property

_step = st.tuples(st.integers(min_value=2, max_value=8), st.integers(min_value=0, max_value=8))


@settings(max_examples=60, deadline=None)
@given(st.lists(_step, min_size=1, max_size=3), st.booleans())
def test_on_demand_month_is_price_times_instance_hours(steps: list[tuple[int, int]], weekdays: bool) -> None:
    schedule = OFF_HOURS if weekdays else None
    limit = 12 if schedule else 24
    if sum(hours for _, hours in steps) > limit:
        return
    profile = UsageProfile(tuple(UsageLevel(size, hours) for size, hours in steps), 30, profile_form=True)
    line = price_pool(pool(usage=profile, schedule=schedule), CATALOG, "USD")
    share = 5 / 7 if schedule else 1.0
    in_use = sum(size * hours * 30 * share for size, hours in steps)
    idle = line.scheduled_hours - sum(hours * 30 * share for _, hours in steps)
    assert line.instance_hours == pytest.approx(in_use + 2 * idle)
    # All on demand at 1.0 USD: the month is the instance-hours.
    assert line.monthly_estimate == pytest.approx(line.instance_hours)
    assert sum(step.hours for step in line.steps) == pytest.approx(line.scheduled_hours)
