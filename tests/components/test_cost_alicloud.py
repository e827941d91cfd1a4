"""The worked example for Alibaba Cloud: one A10 (gn7i) at Alibaba's list price in Hangzhou, 9.5326 CNY
an hour (users once quoted 15), 8 hours a day for 30 days, on demand, is 2,287.82 CNY a month."""

from __future__ import annotations

from gpufleet.components.spec import parse_fleet
from gpufleet.cost.estimate import estimate_spec
from gpufleet.cost.report import render_text

SEED = {
    "environment": "staging",
    "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
    "budget": {"monthly": 5000, "currency": "CNY"},
    "pools": {
        "a10": {
            "cloud": "alicloud",
            "region": "cn-hangzhou",
            "instance_types": ["ecs.gn7i-c8g1.2xlarge"],
            "workload": {"image_reads_queue": True},
            "size": {"min": 0, "max": 1},
            "usage": {"hours_per_day": 8, "average_size": 1, "days_per_month": 30},
        }
    },
}


def test_one_a10_eight_hours_a_day_is_2288_cny_a_month() -> None:
    text = render_text(estimate_spec(parse_fleet(SEED), stack="cn-seed"))
    assert "cost of stack cn-seed (amounts in CNY; basis: spec)" in text
    [line] = [row for row in text.splitlines() if row.startswith("a10 ")]
    assert line.split()[-2:] == ["2,287.82", "6,958.80"]
    assert "9.5326 / 3.33641 CNY" in line
    assert "    in use: 1 x 240 h at 9.5326 CNY/h = 2,287.82 CNY" in text
