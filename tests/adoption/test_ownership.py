"""Buy-vs-rent counts the whole cost of owning: power, hosting, maintenance, staff and the hardware's
life, from visible catalogue defaults a stack's onprem.hardware overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.advise import buy_vs_rent, render_advice_text
from gpufleet.components.spec.onprem import OwnedHardware
from gpufleet.cost import PricedPool, UsageLevel, UsageProfile, price_pools
from gpufleet.ownership import Ownership, OwnershipError, load_ownership, parse_ownership
from tests.cost.helpers import small_catalog

ROOT = Path(__file__).resolve().parents[2]
CATALOG = small_catalog()
# Round figures: p4d.24xlarge (8 GPUs, 30 USD/h, bought for 216,000 USD in the small catalogue).
OWN = Ownership(
    currency="USD", date="", source="", confirmed=False, power_kw_per_gpu=0.5, power_kw_host=1.0,
    price_per_kwh=0.1, pue=1.5, hosting_per_server_month=300.0, maintenance_percent_per_year=10.0,
    staff_per_server_month=200.0, life_months=36,
)  # fmt: skip


def _row(hours_per_day: float, owning: Ownership = OWN, instances: int = 2):  # type: ignore[no-untyped-def]
    pool = PricedPool(
        name="train", cloud="aws", region="us-east-1", instance_types=("p4d.24xlarge",), min_size=0,
        max_size=instances, usage=UsageProfile((UsageLevel(instances, hours_per_day),), 30),
    )  # fmt: skip
    (row,) = buy_vs_rent(price_pools([pool], CATALOG, currency="USD", stack="dev"), CATALOG, owning)
    return row


def test_owning_is_purchase_over_life_plus_power_hosting_maintenance_and_staff() -> None:
    row = _row(14)
    # hardware 216,000 / 36 = 6,000; power (8 x 0.5 + 1) kW x 730 h x 0.1 x 1.5 = 547.50;
    # hosting 300; maintenance 216,000 x 10% / 12 = 1,800; staff 200: 8,847.50 a server, two servers.
    assert [(name, round(amount, 2)) for name, amount, _ in row.own_terms] == [
        ("hardware", 6000.0), ("power", 547.5), ("hosting", 300.0), ("maintenance", 1800.0), ("staff", 200.0),
    ]  # fmt: skip
    assert row.own_monthly == pytest.approx(2 * 8847.5)
    # Renting 30 USD x 420 h x 2 = 25,200, which is 1.42 x owning: the purchase alone (12,000) said buy.
    assert row.rent_monthly == pytest.approx(25200)
    assert row.ratio == pytest.approx(25200 / 17695)
    assert row.verdict == "keep renting"
    assert _row(24).verdict == "consider buying"  # 36,000 a server-month rented > 2 x 8,847.50
    assert row.to_json()["ownership"] == {
        "per_server_monthly": {"hardware": 6000.0, "power": 547.5, "hosting": 300.0, "maintenance": 1800.0,
                               "staff": 200.0},
        "formulas": {
            "hardware": "purchase / 36 months of life",
            "power": "(8 GPUs x 0.5 + host 1) kW x 730 h x 0.1 USD/kWh x PUE 1.5",
            "hosting": "300 USD a server",
            "maintenance": "10% of the purchase a year / 12",
            "staff": "200 USD a server",
        },
        "overridden": [],
    }  # fmt: skip
    text = render_advice_text([row], "dev")
    assert "    power 547.50 USD ((8 GPUs x 0.5 + host 1) kW x 730 h x 0.1 USD/kWh x PUE 1.5)" in text
    assert "  = 8,847.50 USD a server x 2 = 17,695 USD/month" in text


def test_the_stack_overrides_the_catalogue_defaults() -> None:
    hardware = OwnedHardware.model_validate(
        {
            "server": "dgx_a100",
            "amortisation_months": 60,
            "power_kw": 6.5,
            "price_per_kwh": 0.2,
            "staff_per_server_month": 0,
        }
    )
    owning = OWN.with_hardware(hardware)
    assert owning.overridden == (
        "onprem.hardware.price_per_kwh",
        "onprem.hardware.staff_per_server_month",
        "onprem.hardware.amortisation_months",
        "onprem.hardware.power_kw",
    )
    row = _row(14, owning)
    terms = {name: round(amount, 2) for name, amount, _ in row.own_terms}
    # 216,000 / 60; 6.5 kW x 730 h x 0.2 x 1.5 (PUE kept); hosting and maintenance kept; no staff.
    assert terms == {
        "hardware": 3600.0,
        "power": 1423.5,
        "hosting": 300.0,
        "maintenance": 1800.0,
        "staff": 0.0,
    }
    assert row.to_json()["months"] == 60
    assert "  set by the stack: onprem.hardware.price_per_kwh" in render_advice_text([row], "dev")
    # A spec that gives no figure (amortisation_months at its own default) overrides nothing.
    assert OWN.with_hardware(OwnedHardware.model_validate({"server": "dgx_a100"})) is OWN
    assert OWN.with_hardware(None) is OWN


def test_the_catalogue_block_is_the_default_and_is_checked() -> None:
    block = yaml.safe_load((ROOT / "components" / "catalog" / "gpus.yaml").read_text())["ownership"]
    loaded = load_ownership()
    assert (loaded.price_per_kwh, loaded.pue, loaded.life_months) == (
        block["price_per_kwh"], block["pue"], block["life_months"],
    )  # fmt: skip
    assert loaded.source.startswith("https://")
    with pytest.raises(
        OwnershipError, match=r"catalogue ownership\.pue: must be a non-negative number, got 'high'"
    ):
        parse_ownership({**block, "pue": "high"})
    with pytest.raises(OwnershipError, match=r"ownership\.pue: must be at least 1, got 0\.5"):
        parse_ownership({**block, "pue": 0.5})
    with pytest.raises(
        OwnershipError, match=r"ownership\.life_months: must be a whole number of months >= 1"
    ):
        parse_ownership({**block, "life_months": 0})


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [("pue", 0.9, "greater than or equal to 1"), ("price_per_kwh", -1, "greater than or equal to 0"),
     ("power_kw", 0, "greater than 0")],
)  # fmt: skip
def test_override_values_are_bounded(field: str, value: float, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        OwnedHardware.model_validate({"server": "dgx_a100", field: value})
