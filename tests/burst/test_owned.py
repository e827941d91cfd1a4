"""Owned capacity in `gpufleet cost`: the baseline's hardware amortised, and how much of the day it
covers against the pools' usage, on hand-computed examples."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.catalog import load_catalog
from gpufleet.components.spec import parse_fleet
from gpufleet.components.spec.onprem_checks import purchase_models
from gpufleet.cost.model import PricedPool, UsageLevel, UsageProfile
from gpufleet.cost.owned import coverage, owned_capacity, pool_demand, render_owned
from tests.spec.test_onprem import fleet, onprem

TRAIN = PricedPool(
    name="train",
    cloud="aws",
    region="us-east-1",
    instance_types=("p4d.24xlarge",),
    min_size=0,
    max_size=4,
    usage=UsageProfile(levels=(UsageLevel(size=1, hours_per_day=10), UsageLevel(size=2, hours_per_day=6))),
)
INFER = PricedPool(
    name="infer", cloud="aws", region="us-east-1", instance_types=("g5.xlarge",), min_size=0, max_size=4
)


def _spec(hardware: dict[str, Any]) -> Any:
    section = {**onprem(), "hardware": hardware}
    return parse_fleet(fleet(section))


def test_pool_demand_lays_the_largest_steps_first() -> None:
    # 8 GPUs an instance: 2 instances 6 h, 1 instance 10 h, the minimum (0) the other 8 h.
    assert pool_demand(TRAIN, 8) == [(6, 16), (10, 8), (8.0, 0.0)]
    # no usage profile: the maximum all day
    assert pool_demand(INFER, 1) == [(24.0, 4.0)]


def test_coverage_by_hand() -> None:
    # Demand: 0-6 h 16+4 = 20 GPUs, 6-16 h 8+4 = 12, 16-24 h 0+4 = 4 -> 120 + 120 + 32 = 272 GPU-h.
    # A 16-GPU baseline takes 16x6 + 12x10 + 4x8 = 248; 4 x 6 = 24 burst, for 6 h a day.
    cover = coverage(16, [pool_demand(TRAIN, 8), pool_demand(INFER, 1)])
    assert (cover.demand_gpu_hours, cover.baseline_gpu_hours, cover.burst_gpu_hours) == (272, 248, 24)
    assert (cover.burst_hours, cover.peak_gpus) == (6, 20)
    assert cover.covered_percent == pytest.approx(100 * 248 / 272)
    assert cover.baseline_busy_percent == pytest.approx(100 * 248 / 384)


def test_a_baseline_larger_than_the_demand_never_bursts() -> None:
    cover = coverage(32, [pool_demand(TRAIN, 8), pool_demand(INFER, 1)])
    assert (cover.burst_gpu_hours, cover.burst_hours, cover.covered_percent) == (0, 0, 100)


def test_owned_dgx_a100_amortised_by_hand() -> None:
    # 2 GPU nodes (8 GPUs each) on dgx_a100 at 199,000 USD over 36 months, the catalogue's ownership
    # defaults (0.7 kW a GPU + 1 kW host, 0.14 USD/kWh, PUE 1.5, hosting 400, maintenance 10%/yr,
    # staff 250), one server a month:
    #   hardware     199,000 / 36                      = 5,527.7778
    #   power        (8 x 0.7 + 1) = 6.6 kW x 730 h = 4,818 kWh x 0.14 = 674.52 x 1.5 = 1,011.78
    #   hosting                                         =   400
    #   maintenance  199,000 x 10% / 12                 = 1,658.3333
    #   staff                                           =   250
    #   total                                           = 8,847.8911
    # x 2 servers = 17,695.7822 USD a month (hardware 2 x 5,527.7778 = 11,055.56 of it);
    # / (16 GPUs x 730 h = 11,680) = 1.5150 USD a GPU-hour.
    spec = _spec({"server": "dgx_a100"})
    catalog = load_catalog()
    owned = owned_capacity(spec.onprem, purchase_models(), catalog, "USD", pools=[TRAIN, INFER])
    assert owned is not None
    assert (owned.server, owned.count, owned.gpus, owned.months, owned.rate) == ("dgx_a100", 2, 16, 36, 1.0)
    assert owned.monthly == pytest.approx(17_695.7822, abs=1e-3)
    assert owned.hardware_monthly == pytest.approx(11_055.5556, abs=1e-3)
    assert owned.gpu_hour == pytest.approx(1.51505, abs=1e-5)
    assert owned.coverage is not None and owned.coverage.baseline_gpu_hours == 248
    lines = render_owned(owned, rented_monthly=1234.5)
    assert lines[0] == (
        "owned: 2 x dgx_a100 at 199,000.00 USD (quoted 2026-11-30) / 36 months = 11,055.56 USD hardware "
        "+ power 2,023.56 + hosting 800.00 + maintenance 3,316.67 + staff 500.00 = 17,695.78 USD a month "
        "(the whole cost of owning, as gpufleet advise buy-vs-rent weighs it), 16 GPUs, 1.515 USD/GPU-hour "
        "over 730 h"
    )
    assert lines[1] == (
        "owned and rented side by side: owned 17,695.78 USD, rented (estimate) 1,234.50 USD a month; "
        "owned is not counted against the budget"
    )
    assert lines[2] == (
        "baseline coverage: of 272 GPU-hours a day the pools' usage asks for, the baseline's 16 GPUs take "
        "248 (91.2%); 24 burst to the clouds over 6 h a day (peak 20 GPUs, peaks taken to coincide); the "
        "baseline is busy 64.6% of the day"
    )


def test_count_months_and_currency_follow_the_spec() -> None:
    spec = _spec({"server": "dgx_h100", "count": 3, "amortisation_months": 48})
    catalog = load_catalog()
    owned = owned_capacity(spec.onprem, purchase_models(), catalog, "CNY")
    assert owned is not None and owned.coverage is None
    # 3 x (270,000 / 48 months + 6.6 kW x 730 h x 0.14 x 1.5 + 400 + 270,000 x 10% / 12 + 250) USD,
    # at the catalogue's CNY rate; the amortised purchase alone is 3 x 270,000 / 48
    per_server = 270_000 / 48 + 6.6 * 730 * 0.14 * 1.5 + 400 + 270_000 * 0.10 / 12 + 250
    assert owned.monthly == pytest.approx(3 * per_server * catalog.rate("USD", "CNY"))
    assert owned.hardware_monthly == pytest.approx(3 * 270_000 / 48 * catalog.rate("USD", "CNY"))
    assert "at " in render_owned(owned, 0)[0] and " CNY/USD / 48 months" in render_owned(owned, 0)[0]


def test_no_hardware_no_owned_line() -> None:
    section = {k: v for k, v in onprem().items() if k != "hardware"}
    spec = parse_fleet(fleet(section))
    assert owned_capacity(spec.onprem, purchase_models(), load_catalog(), "USD") is None
    assert owned_capacity(None, purchase_models(), load_catalog(), "USD") is None


def test_gpufleet_cost_shows_owned_beside_rented() -> None:
    from gpufleet.cost import estimate_spec, render_markdown, render_text

    raw = fleet({**onprem(), "hardware": {"server": "dgx_a100"}})
    raw["pools"]["burst"]["region"] = "us-east-1"
    report = estimate_spec(parse_fleet(raw))
    assert report.owned is not None
    # owned hardware stays out of the rented totals and the budget check
    assert report.monthly_estimate == sum(p.monthly_estimate for p in report.pools) + sum(
        o.monthly_estimate for o in report.other
    )
    text = render_text(report)
    assert "\nowned: 2 x dgx_a100 at 199,000.00 USD (quoted 2026-11-30) / 36 months = 11,055.56 USD" in text
    assert f"rented (estimate) {report.monthly_estimate:,.2f} USD a month" in text
    # the pool (p4d, 8 GPUs, no usage profile) at its max of 4 all day: 32 GPUs against 16 owned
    assert "of 768 GPU-hours a day the pools' usage asks for, the baseline's 16 GPUs take 384 (50%)" in text
    assert "**Owned capacity** (beside the totals, not in them):" in render_markdown(report)
    owned_json = report.to_json()["owned"]
    assert (owned_json["monthly"], owned_json["gpus"], owned_json["coverage"]["burst_hours_per_day"]) == (
        17_695.78,
        16,
        24,
    )
    assert owned_json["hardware_monthly"] == 11_055.56


def test_a_fleet_without_hardware_keeps_its_report_as_it_was() -> None:
    from gpufleet.cost import estimate_spec, render_text

    raw = fleet({k: v for k, v in onprem().items() if k != "hardware"})
    raw["pools"]["burst"]["region"] = "us-east-1"
    report = estimate_spec(parse_fleet(raw))
    assert report.owned is None and "owned" not in report.to_json()
    assert "owned:" not in render_text(report)


def test_cost_owned_monthly_is_the_advise_whole_cost_for_the_hybrid_stack() -> None:
    """`gpufleet cost` and `gpufleet advise buy-vs-rent` price owning the same way: the hybrid stack's
    owned month is the advise whole cost of one server x the servers."""
    from pathlib import Path

    import yaml

    from gpufleet.components.spec import CONFIG_KEY
    from gpufleet.cost import estimate_spec
    from gpufleet.ownership import load_ownership

    root = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((root / "stacks" / "Pulumi.hybrid.yaml").read_text(encoding="utf-8"))["config"]
    spec = parse_fleet(config[CONFIG_KEY])
    report = estimate_spec(spec, config=config)
    owned = report.owned
    assert owned is not None and spec.onprem is not None and spec.onprem.hardware is not None
    catalog = load_catalog()
    quote = purchase_models()[spec.onprem.hardware.server]
    # what `gpufleet advise buy-vs-rent -s hybrid` weighs for one server (gpufleet/advise.py advise_stack)
    owning = load_ownership().with_hardware(spec.onprem.hardware)
    terms = owning.monthly_terms(
        catalog.convert(float(quote["amount"]), str(quote["currency"]), report.currency),
        spec.onprem.gpu_nodes.gpus_per_node,
        lambda amount: catalog.convert(amount, owning.currency, report.currency),
    )
    per_server = sum(amount for _, amount, _ in terms)
    assert owned.monthly == pytest.approx(per_server * spec.onprem.owned_servers)
    assert report.to_json()["owned"]["monthly"] == round(per_server * spec.onprem.owned_servers, 2)
