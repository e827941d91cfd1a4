"""Pure pricing: table tests against figures worked out by hand from the small catalogue."""

from __future__ import annotations

import json

import pytest

from gpufleet.cost import (
    HOURS_PER_MONTH,
    CostError,
    PricedPool,
    UsageLevel,
    UsageProfile,
    WeeklySchedule,
    bucket_storage_line,
    cost_block,
    price_pool,
    price_pools,
    split_capacity,
)
from tests.cost.helpers import CNY_SOURCE, DATE, small_catalog

CATALOG = small_catalog()
OFF_HOURS = WeeklySchedule.from_off_hours("20:00-08:00", weekends=True, timezone="Asia/Shanghai")


def pool(**overrides: object) -> PricedPool:
    values: dict[str, object] = {
        "name": "p",
        "cloud": "aws",
        "region": "us-east-1",
        "instance_types": ("g5.2xlarge",),
        "min_size": 0,
        "max_size": 1,
        "source": "stacks/Pulumi.dev.yaml",
        "path": "gpufleet:fleet.pools.p",
    }
    values.update(overrides)
    return PricedPool(**values)  # type: ignore[arg-type]


def usage(size: float, hours: float, days: float = 30) -> UsageProfile:
    return UsageProfile((UsageLevel(size, hours),), days)


# --------------------------------------------------------------------------------------- schedules


def test_month_convention() -> None:
    assert HOURS_PER_MONTH == 730.0
    assert WeeklySchedule.always().on_hours_per_month == pytest.approx(730.0)


def test_off_hours_with_weekends_runs_twelve_hours_on_weekdays_only() -> None:
    assert OFF_HOURS.on_minutes == (720, 720, 720, 720, 720, 0, 0)
    assert OFF_HOURS.on_hours_per_week == 60
    # 60 of 168 hours a week, of a 730 h month.
    assert OFF_HOURS.on_hours_per_month == pytest.approx(730 * 60 / 168)
    assert round(OFF_HOURS.on_hours_per_month, 2) == 260.71
    assert OFF_HOURS.longest_day_hours == 12
    assert OFF_HOURS.running_days_per_week == 5
    assert OFF_HOURS.description == "off 20:00-08:00 Asia/Shanghai, and weekends"


@pytest.mark.parametrize(
    ("window", "weekends", "on_minutes", "hours_per_month"),
    [
        ("20:00-08:00", False, (720,) * 7, 365.0),
        ("01:00-05:00", False, (1200,) * 7, 730 * 140 / 168),
        ("22:30-06:30", True, (960,) * 5 + (0, 0), 730 * 80 / 168),
    ],
)  # fmt: skip
def test_off_hours_windows(
    window: str, weekends: bool, on_minutes: tuple[int, ...], hours_per_month: float
) -> None:
    schedule = WeeklySchedule.from_off_hours(window, weekends)
    assert schedule.on_minutes == on_minutes
    assert schedule.on_hours_per_month == pytest.approx(hours_per_month)


def test_crons_with_day_names_lists_and_steps() -> None:
    # Stopped on weekday evenings only, restarted every morning: the weekend runs from Saturday 07:00
    # to Monday 19:00.
    schedule = WeeklySchedule.from_crons(["0 19 * * MON-FRI"], ["0 7 * * 0,1,2,3,4,5,6"], "named")
    assert schedule.on_minutes == (1140, 720, 720, 720, 720, 1020, 1440)
    stepped = WeeklySchedule.from_crons(["0 */12 * * *"], ["30 6 * * *"], "stepped")
    # Stops at 00:00 and 12:00, restarts 06:30: runs 06:30-12:00 each day.
    assert stepped.on_minutes == (330,) * 7


def test_cron_on_day_of_month_is_refused() -> None:
    with pytest.raises(ValueError, match="day of the month"):
        WeeklySchedule.from_crons(["0 20 1 * *"], [], "monthly")
    with pytest.raises(ValueError, match="five-field"):
        WeeklySchedule.from_crons(["0 20 * *"], [], "short")


# ------------------------------------------------------------------------------------- spot share


@pytest.mark.parametrize(
    ("size", "base", "spot_percent", "expected"),
    [
        (8, 1, 50, (4.5, 3.5)),
        (8, 0, 100, (0.0, 8.0)),
        (8, 0, 0, (8.0, 0.0)),
        (2, 4, 50, (2.0, 0.0)),
        (5, 0, 50, (2.5, 2.5)),
        (0, 2, 50, (0.0, 0.0)),
    ],
)  # fmt: skip
def test_split_capacity(size: int, base: int, spot_percent: float, expected: tuple[float, float]) -> None:
    assert split_capacity(size, base, spot_percent) == expected


def test_spot_share_prices_the_pool_at_min_and_max() -> None:
    # 2..10 instances at 1.0 USD on demand, 0.4 spot; base 2 on demand, 50% spot above it.
    line = price_pool(pool(min_size=2, max_size=10, on_demand_base=2, spot_percent=50), CATALOG, "USD")
    assert line.hourly_min == pytest.approx(2 * 1.0)
    assert line.hourly_max == pytest.approx((2 + 4) * 1.0 + 4 * 0.4)
    assert line.hourly_worst == pytest.approx(10 * 1.0)
    assert line.monthly_envelope == pytest.approx(7.6 * 730)
    assert line.spot.amount == pytest.approx(0.4)
    assert line.on_demand.what == "aws g5.2xlarge us-east-1 on-demand"
    assert line.spot.what == "aws g5.2xlarge us-east-1 spot (on-demand less 60%)"


# --------------------------------------------------------------------------------- monthly estimate


def test_one_a10_class_instance_at_15_cny_8_hours_for_30_days_is_3600_cny() -> None:
    line = price_pool(
        pool(cloud="alicloud", region="cn-hangzhou", instance_types=("ecs.gn7i-c8g1.2xlarge",),
             min_size=0, max_size=1, usage=usage(1, 8)),
        CATALOG,
        "CNY",
    )  # fmt: skip
    assert line.usage_hours == pytest.approx(240)
    assert line.monthly_estimate == pytest.approx(3600.0)
    assert line.on_demand.amount == 15.0
    assert line.on_demand.currency == "CNY"
    assert (line.on_demand.date, line.on_demand.source, line.on_demand.confirmed) == (DATE, CNY_SOURCE, False)
    assert any("unconfirmed" in note for note in line.notes)


def test_pool_of_20_to_200_under_off_hours_without_usage_runs_at_max_when_allowed() -> None:
    line = price_pool(pool(min_size=20, max_size=200, schedule=OFF_HOURS), CATALOG, "USD")
    assert line.scheduled_hours == pytest.approx(1825 / 7)  # 730 x 60 / 168
    assert line.monthly_estimate == pytest.approx(200 * 1.0 * 1825 / 7)
    assert line.monthly_envelope == pytest.approx(200 * 730)
    assert line.basis.startswith("no usage profile: max size 200")


def test_pool_of_20_to_200_under_off_hours_with_usage_profile() -> None:
    # 10 h a day at 120 instances, 30 calendar days of which the schedule keeps 5/7:
    # 10 x 30 x 5/7 = 1500/7 h in use; the other 1825/7 - 1500/7 = 325/7 h at the minimum of 20.
    line = price_pool(
        pool(min_size=20, max_size=200, schedule=OFF_HOURS, usage=usage(120, 10)), CATALOG, "USD"
    )
    assert line.usage_hours == pytest.approx(1500 / 7)
    assert line.instance_hours == pytest.approx(20 * 325 / 7 + 120 * 1500 / 7)
    assert line.monthly_estimate == pytest.approx(26642.857, abs=0.001)
    assert line.peak_size == 120


def test_usage_profile_with_several_sizes() -> None:
    profile = UsageProfile((UsageLevel(4, 6), UsageLevel(10, 2)), 30)
    line = price_pool(pool(min_size=1, max_size=10, usage=profile), CATALOG, "USD")
    # 4 x 180 h + 10 x 60 h, and 1 instance for the other 730 - 240 h.
    assert line.monthly_estimate == pytest.approx(4 * 180 + 10 * 60 + 1 * 490)
    assert line.peak_size == 10


def test_mixed_types_price_at_the_dearest_and_say_so() -> None:
    line = price_pool(pool(instance_types=("g6.2xlarge", "g5.2xlarge"), max_size=4), CATALOG, "USD")
    assert line.instance_type == "g5.2xlarge"
    assert "priced at the dearest listed type g5.2xlarge (also listed: g6.2xlarge)" in line.notes


def test_conversion_to_the_report_currency_keeps_the_published_price() -> None:
    cny_pool = pool(cloud="alicloud", region="cn-hangzhou", instance_types=("ecs.gn7i-c8g1.2xlarge",),
                    usage=usage(1, 8))  # fmt: skip
    report = price_pools([cny_pool], CATALOG, currency="USD", stack="dev")
    line = report.pools[0]
    assert line.on_demand.amount == 15.0 and line.on_demand.currency == "CNY"
    assert line.rate == pytest.approx(1 / 7.5)
    assert line.monthly_estimate == pytest.approx(3600 / 7.5)
    assert [c.label() for c in report.conversions] == [
        "1 CNY = 0.1333 USD (catalogue rate of 2026-01-15, https://example.test/rates)"
    ]


def test_unknown_currency_is_refused() -> None:
    with pytest.raises(CostError, match="--currency: unknown currency 'EUR'"):
        price_pools([pool()], CATALOG, currency="EUR")


# ------------------------------------------------------------------------------- bad usage profiles


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"schedule": OFF_HOURS, "usage": usage(1, 14)},
         "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.p.usage.hours_per_day: 14 h a day in use, but the "
         "schedule (off 20:00-08:00 Asia/Shanghai, and weekends) lets the pool run at most 12 h a day"),
        ({"min_size": 2, "max_size": 5, "usage": usage(1, 8)},
         "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.p.usage.average_size: must be between size.min (2) "
         "and size.max (5), got 1"),
        ({"usage": usage(1, 25)},
         "gpufleet:fleet.pools.p.usage.hours_per_day: must be between 0 and 24, got 25"),
        ({"usage": usage(1, 24, 31)},
         "gpufleet:fleet.pools.p.usage.days_per_month: 744 h a month in use exceeds the 730 h"),
        ({"usage": UsageProfile(())}, "gpufleet:fleet.pools.p.usage.profile: needs at least one size"),
        ({"region": "ap-south-1"},
         "gpufleet:fleet.pools.p.region: the catalogue has no price for aws g5.2xlarge in 'ap-south-1'; "
         "priced regions: eu-west-1, us-east-1"),
        ({"instance_types": ("g5.2xlarg",)},
         "gpufleet:fleet.pools.p.instance_types[0]: unknown aws instance type 'g5.2xlarg'; did you mean "
         "g5.2xlarge"),
    ],
)  # fmt: skip
def test_bad_input_names_the_file_and_field(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(CostError) as excinfo:
        price_pool(pool(**overrides), CATALOG, "USD")
    assert message in str(excinfo.value)


# ------------------------------------------------------------------------- volumes, buckets, block


def test_root_volumes_follow_instance_hours() -> None:
    report = price_pools([pool(max_size=4, usage=usage(2, 10), disk_gib=100)], CATALOG, currency="USD")
    (volume,) = report.other
    assert volume.key == "volume:p"
    # 100 GiB x 0.1 USD a GiB-month, for 2 x 300 instance-hours of a 730 h month.
    assert volume.monthly_estimate == pytest.approx(100 * 0.1 * 600 / 730)
    assert volume.monthly_envelope == pytest.approx(4 * 100 * 0.1)
    assert report.monthly_estimate == pytest.approx(
        report.pools[0].monthly_estimate + volume.monthly_estimate
    )


def test_bucket_storage_by_class_over_the_lifecycle() -> None:
    line = bucket_storage_line(
        "ckpt", cloud="aws", gib_written_per_month=100, first_class="STANDARD",
        transitions=[(30, "STANDARD_IA")], expire_days=45, catalog=CATALOG, currency="USD",
    )  # fmt: skip
    days_per_month = 730 / 24
    expected = 100 * 30 / days_per_month * 0.02 + 100 * 15 / days_per_month * 0.01
    assert line.monthly_estimate == pytest.approx(expected)
    assert "STANDARD (30 d at 0.02)" in line.quantity and "STANDARD_IA (15 d at 0.01)" in line.quantity


def test_bucket_transition_after_expiry_is_ignored_and_unknown_class_refused() -> None:
    line = bucket_storage_line(
        "ckpt", cloud="aws", gib_written_per_month=10, first_class="STANDARD",
        transitions=[(60, "STANDARD_IA")], expire_days=30, catalog=CATALOG, currency="USD",
    )  # fmt: skip
    assert line.monthly_estimate == pytest.approx(10 * 30 / (730 / 24) * 0.02)
    with pytest.raises(CostError, match=r"no aws price for object_gib_month\.GLACIER"):
        bucket_storage_line(
            "ckpt", cloud="aws", gib_written_per_month=10, first_class="GLACIER",
            transitions=[], expire_days=30, catalog=CATALOG, currency="USD",
        )  # fmt: skip


# ------------------------------------------------------------------------------------ budget block


class _Budget:
    def __init__(self, monthly: float, currency: str, alert_percent: int = 80) -> None:
        self.monthly, self.currency, self.alert_percent = monthly, currency, alert_percent


def test_cost_block_follows_the_output_contract() -> None:
    report = price_pools(
        [pool(min_size=1, max_size=4, usage=usage(2, 10))],
        CATALOG,
        currency="USD",
        budget=_Budget(2000, "USD"),
    )
    block = cost_block(report)
    assert list(block) == ["currency", "hourly_min", "hourly_max", "monthly_estimate", "budget",
                           "budget_used_percent"]  # fmt: skip
    # 1 instance for 430 h + 2 instances for 300 h at 1 USD.
    assert block == {"currency": "USD", "hourly_min": 1.0, "hourly_max": 4.0, "monthly_estimate": 1030.0,
                     "budget": 2000.0, "budget_used_percent": 51.5}  # fmt: skip
    json.dumps(block)


def test_cost_block_converts_the_budget_and_is_null_without_one() -> None:
    report = price_pools([pool(usage=usage(1, 10))], CATALOG, currency="USD")
    assert cost_block(report)["budget"] is None
    assert cost_block(report)["budget_used_percent"] is None
    block = cost_block(report, _Budget(7500, "CNY"), CATALOG)
    assert block["budget"] == 1000.0
    assert block["budget_used_percent"] == 30.0
