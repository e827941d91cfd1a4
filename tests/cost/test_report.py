"""The report: stable JSON, text and Markdown renderers, and the PR diff."""

from __future__ import annotations

import json

import pytest

from gpufleet.cost import (
    PROFILE_RULE,
    CostError,
    PricedPool,
    UsageLevel,
    UsageProfile,
    diff,
    price_pools,
    render_diff_markdown,
    render_diff_text,
    render_markdown,
    render_text,
)
from tests.cost.helpers import small_catalog

CATALOG = small_catalog()


class _Budget:
    monthly, currency, alert_percent = 1000.0, "USD", 80


def _pool(
    name: str, max_size: int, *, hours: float = 10, types: tuple[str, ...] = ("g5.2xlarge",)
) -> PricedPool:
    return PricedPool(
        name=name, cloud="aws", region="us-east-1", instance_types=types, min_size=0, max_size=max_size,
        spot_percent=50, usage=UsageProfile((UsageLevel(max_size / 2, hours),)),
    )  # fmt: skip


def test_json_is_stable_and_carries_each_price_with_date_and_source() -> None:
    report = price_pools([_pool("train", 4)], CATALOG, currency="USD", stack="dev", budget=_Budget())
    data = json.loads(report.dumps())
    assert data["version"] == 1 and data["currency"] == "USD" and data["hours_per_month"] == 730.0
    (line,) = data["pools"]
    assert line["pool"] == "train"
    assert line["on_demand_price"] == {
        "what": "aws g5.2xlarge us-east-1 on-demand", "amount": 1.0, "currency": "USD", "unit": "h",
        "date": "2026-01-15", "source": "https://example.test/usd-price-list", "confirmed": True,
    }  # fmt: skip
    # 2 instances for 300 h, half of them on spot: (1 x 1.0 + 1 x 0.4) x 300.
    assert line["monthly_estimate"] == 420.0
    assert data["totals"]["monthly_estimate"] == 420.0
    assert data["budget"] == {
        "monthly": 1000.0,
        "currency": "USD",
        "alert_percent": 80,
        "declared": "1000 USD",
    }
    assert report.to_json() == report.to_json()


def test_text_table_shows_each_pool_the_total_and_the_prices_used() -> None:
    report = price_pools([_pool("train", 4), _pool("infer", 2)], CATALOG, currency="USD", stack="dev",
                         budget=_Budget())  # fmt: skip
    text = render_text(report)
    lines = text.splitlines()
    assert lines[0] == "cost of stack dev (amounts in USD; basis: spec)"
    assert lines[2].split() == [
        "pool", "cloud", "region", "type", "size", "spot", "price/h", "od", "/", "spot", "hourly", "min",
        "hourly", "max", "sched", "h/mo", "inst-h/mo", "monthly", "est", "envelope/mo",
    ]  # fmt: skip
    train = next(line for line in lines if line.startswith("train"))
    # 2 instances for 300 h: 600 instance-hours.
    assert train.split() == ["train", "aws", "us-east-1", "g5.2xlarge", "0-4", "50%", "1", "/", "0.4", "USD",
                             "0.00", "2.80", "730", "600", "420.00", "2,044.00"]  # fmt: skip
    assert "monthly estimate 630.00 USD" in text
    assert "within budget: monthly estimate 630.00 USD is 63.0% of the budget 1,000.00 USD" in text
    assert (
        "aws g5.2xlarge us-east-1 on-demand: 1 USD/h (2026-01-15, https://example.test/usd-price-list)"
        in text
    )
    assert "a month is 730 h (30.42 days)" in text


def test_budget_status_over_alert_and_over_budget() -> None:
    above = render_text(price_pools([_pool("a", 40)], CATALOG, currency="USD", budget=_Budget()))
    assert "OVER BUDGET: monthly estimate 4,200.00 USD is 420.0% of the budget" in above
    # 4 instances, half on spot (0.7 USD an instance-hour on average), 9 or 10 h a day for 30 days.
    near = render_text(price_pools([_pool("a", 8, hours=9)], CATALOG, currency="USD", budget=_Budget()))
    assert "within budget: monthly estimate 756.00 USD is 75.6%" in near
    nine = render_text(price_pools([_pool("a", 8, hours=10)], CATALOG, currency="USD", budget=_Budget()))
    assert "above the 80% alert: monthly estimate 840.00 USD is 84.0% of the budget" in nine


def test_markdown_has_a_table_and_the_sources() -> None:
    md = render_markdown(price_pools([_pool("train", 4)], CATALOG, currency="USD", stack="dev"))
    assert md.startswith("### Cost of `dev` (USD per month unless marked /h)")
    assert (
        "| train | aws us-east-1 | g5.2xlarge | 0-4 | 50% | 1 / 0.4 USD | 0.00 | 2.80 | 730 | 600 | 420.00 |"
        in md
    )
    # How it was priced: the rule, then each pool's terms.
    assert (
        "- `train`: usage profile over 30 days: 2 x 10 h/day (300 h); size.min 0 for the other 430 of 730 "
        "scheduled h; schedule around the clock" in md
    )
    assert "  - in use: 2 x 300 h at 1.4 USD/h = 420.00 USD" in md
    assert "  - = 600 instance-h, 420.00 USD" in md
    assert f"- {PROFILE_RULE}" in md
    assert "**monthly estimate 420.00 USD**" in md
    assert "<details><summary>How it was priced</summary>" in md


def test_diff_of_two_runs_per_pool_per_month() -> None:
    base = price_pools([_pool("train", 4), _pool("old", 2)], CATALOG, currency="USD", stack="dev")
    head = price_pools([_pool("train", 8), _pool("new", 2, types=("g6.2xlarge",))], CATALOG, currency="USD",
                       stack="dev")  # fmt: skip
    # The base arrives as the JSON the base branch wrote.
    result = diff(json.loads(base.dumps()), head)
    rows = {row.key: row for row in result.rows}
    assert rows["pool:train"].change == "changed"
    assert (rows["pool:train"].base_monthly, rows["pool:train"].head_monthly) == (420.0, 840.0)
    assert rows["pool:train"].delta == 420.0
    assert rows["pool:train"].detail == "max 4 -> 8; usage 2 x 10 h/day -> 4 x 10 h/day"
    assert rows["pool:old"].change == "removed" and rows["pool:old"].delta == -210.0
    # 1 instance at (0.5 x 0.8 + 0.5 x 0.4) for 300 h.
    assert rows["pool:new"].change == "added" and rows["pool:new"].delta == pytest.approx(180.0)
    assert result.delta == pytest.approx(840 + 180 - 630)
    text = render_diff_text(result)
    assert "monthly estimate 630.00 -> 1,020.00 USD (+390.00 USD/month)" in text
    md = render_diff_markdown(result)
    assert md.startswith("### Cost change of `dev`: +390.00 USD/month")
    assert (
        "| pool:train | changed | 420.00 | 840.00 | +420.00 | max 4 -> 8; usage 2 x 10 h/day -> 4 x 10 h/day"
        " |" in md
    )
    assert "| pool:old | removed | 210.00 | - | -210.00 |  |" in md


def test_diff_unchanged_lines_are_left_out_of_the_table() -> None:
    report = price_pools([_pool("train", 4)], CATALOG, currency="USD", stack="dev")
    result = diff(report, report)
    assert [row.change for row in result.rows] == ["unchanged"]
    assert result.changed == ()
    assert "no line changes" in render_diff_text(result)


def test_diff_converts_a_base_in_another_currency() -> None:
    base = price_pools([_pool("train", 4)], CATALOG, currency="CNY", stack="dev")
    head = price_pools([_pool("train", 4)], CATALOG, currency="USD", stack="dev")
    result = diff(base, head, catalog=CATALOG)
    assert result.rows[0].base_monthly == pytest.approx(420.0)
    assert result.rows[0].change == "unchanged"


def test_diff_refuses_what_is_not_a_cost_document() -> None:
    head = price_pools([_pool("train", 4)], CATALOG, currency="USD")
    with pytest.raises(CostError, match=r"base\.json: not a gpufleet cost JSON document"):
        diff({"version": 1, "stacks": []}, head, base_label="base.json")
