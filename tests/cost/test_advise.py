"""Buy versus rent: the boundary on both sides, with the numbers shown."""

from __future__ import annotations

import pytest

from gpufleet.advise import (
    AMORTISATION_MONTHS,
    BuyVsRent,
    buy_vs_rent,
    render_advice_markdown,
    render_advice_text,
)
from gpufleet.cost import PricedPool, UsageLevel, UsageProfile, price_pools
from gpufleet.ownership import Ownership
from tests.cost.helpers import small_catalog

CATALOG = small_catalog()
# The purchase alone (no power, hosting, maintenance or staff): the 2x boundary by hand. The whole cost
# of owning is tested in tests/adoption/test_ownership.py.
PURCHASE_ONLY = Ownership(
    currency="USD", date="", source="", confirmed=False, power_kw_per_gpu=0.0, power_kw_host=0.0,
    price_per_kwh=0.0, pue=1.0, hosting_per_server_month=0.0, maintenance_percent_per_year=0.0,
    staff_per_server_month=0.0, life_months=AMORTISATION_MONTHS,
)  # fmt: skip


def _advice(hours_per_day: float, instances: int = 1) -> BuyVsRent:
    # p4d.24xlarge: 30 USD/h, bought for 216,000 USD; owning is 216,000 / 36 = 6,000 USD a month
    # per server. Renting more than 2 x 6,000 = 12,000 USD a month per server tips it:
    # 12,000 / 30 = 400 h a month = 400 / 30 days = 13.33 h a day.
    pool = PricedPool(
        name="train", cloud="aws", region="us-east-1", instance_types=("p4d.24xlarge",), min_size=0,
        max_size=instances, usage=UsageProfile((UsageLevel(instances, hours_per_day),), 30),
    )  # fmt: skip
    report = price_pools([pool], CATALOG, currency="USD", stack="dev")
    (row,) = buy_vs_rent(report, CATALOG, PURCHASE_ONLY)
    return row


def test_renting_more_than_twice_owning_says_consider_buying() -> None:
    row = _advice(14, instances=2)
    assert row.instances == 2
    assert row.hours_per_month == pytest.approx(420)
    assert row.utilisation == pytest.approx(420 / 730)
    assert row.hourly == pytest.approx(30.0)
    assert row.rent_monthly == pytest.approx(30 * 420 * 2)
    assert row.own_monthly == pytest.approx(2 * 216000 / AMORTISATION_MONTHS)
    assert row.own_per_hour == pytest.approx(216000 / (36 * 730 * (420 / 730)))
    assert row.ratio == pytest.approx(25200 / 12000)
    assert row.verdict == "consider buying"


def test_exactly_twice_is_not_more_than_twice() -> None:
    row = _advice(40 / 3)  # 400 h a month: rent 12,000 = 2 x own
    assert row.rent_monthly == pytest.approx(12000)
    assert row.ratio == pytest.approx(2.0)
    assert row.verdict == "keep renting"


def test_light_use_keeps_renting() -> None:
    row = _advice(4)
    assert row.rent_monthly == pytest.approx(30 * 120)
    assert row.verdict == "keep renting"


def test_formula_purchase_for_types_without_a_quoted_price() -> None:
    pool = PricedPool(
        name="infer", cloud="alicloud", region="cn-hangzhou", instance_types=("ecs.gn7i-c8g1.2xlarge",),
        min_size=0, max_size=1, usage=UsageProfile((UsageLevel(1, 24),), 30),
    )  # fmt: skip
    report = price_pools([pool], CATALOG, currency="CNY")
    (row,) = buy_vs_rent(report, CATALOG, PURCHASE_ONLY)
    # 1 x A10 at 3,000 + host 6,000 = 9,000 USD = 67,500 CNY; own 67,500 / 36 = 1,875 CNY a month.
    assert row.purchase is not None and row.purchase.amount == 9000 and row.purchase.currency == "USD"
    assert row.purchase_formula == "1 x A10 at 3,000 + host 6,000 USD"
    assert row.purchase_converted == pytest.approx(67500)
    assert row.own_monthly == pytest.approx(1875)
    # 15 CNY x 720 h = 10,800 CNY a month renting.
    assert row.rent_monthly == pytest.approx(10800)
    assert row.verdict == "consider buying"
    assert "purchase price unconfirmed" in row.notes[0]


def test_rendering_shows_the_numbers() -> None:
    row = _advice(14, instances=2)
    text = render_advice_text([row], "dev")
    assert "train (p4d.24xlarge): CONSIDER BUYING" in text
    assert "rent: 30.0000 USD/h x 420 h x 2 instances = 25,200 USD/month" in text
    assert "own: purchase 216,000 USD (quoted system price); a server a month:" in text
    assert "    hardware 6,000 USD (purchase / 36 months of life)" in text
    assert (
        "  = 6,000 USD a server x 2 = 12,000 USD/month (14.2857 USD per hour used at 57.5% utilisation)"
        in text
    )
    assert "rent / own = 2.10 (more than 2x): consider buying" in text
    md = render_advice_markdown([row], "dev")
    assert "| train | p4d.24xlarge | 25,200 USD | 12,000 USD | 2.10 | consider buying |" in md
