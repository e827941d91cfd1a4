from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from gpufleet.components.catalog import (
    GPU_CLASSES_DEV_DEFAULT,
    CatalogError,
    UnknownInstanceType,
    load_catalog,
    parse_catalog,
)


def _raw() -> dict[str, Any]:
    import importlib.resources

    text = importlib.resources.files("gpufleet.components.catalog").joinpath("gpus.yaml").read_text()
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def test_load_is_cached() -> None:
    assert load_catalog() is load_catalog()


@pytest.mark.parametrize(
    ("cloud", "name", "shape"),
    [
        ("aws", "g4dn.xlarge", ("T4", 1, 16, 4, 16)),
        ("aws", "g4dn.12xlarge", ("T4", 4, 16, 48, 192)),
        ("aws", "g5.2xlarge", ("A10G", 1, 24, 8, 32)),
        ("aws", "g5.48xlarge", ("A10G", 8, 24, 192, 768)),
        ("aws", "g6.12xlarge", ("L4", 4, 24, 48, 192)),
        ("aws", "g6e.xlarge", ("L40S", 1, 48, 4, 32)),
        ("aws", "p4d.24xlarge", ("A100", 8, 40, 96, 1152)),
        ("aws", "p5.48xlarge", ("H100", 8, 80, 192, 2048)),
        ("alicloud", "ecs.gn6i-c4g1.xlarge", ("T4", 1, 16, 4, 15)),
        ("alicloud", "ecs.gn7i-c8g1.2xlarge", ("A10", 1, 24, 8, 30)),
        ("tencentcloud", "GN7.2XLARGE32", ("T4", 1, 16, 8, 32)),
        ("tencentcloud", "GT4.41XLARGE948", ("A100", 8, 40, 164, 948)),
    ],
)
def test_hardware_shape(cloud: str, name: str, shape: tuple[str, int, float, int, float]) -> None:
    t = load_catalog().get(cloud, name)
    assert (t.gpu_class, t.gpu_count, t.vram_gib, t.vcpu, t.memory_gib) == shape


def test_required_aws_types_present() -> None:
    catalog = load_catalog()
    names = {t.name for t in catalog.types("aws")}
    required = {
        "g4dn.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.12xlarge",
        "g5.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.12xlarge", "g5.48xlarge",
        "g6.xlarge", "g6.2xlarge", "g6.12xlarge",
        "g6e.xlarge", "g6e.2xlarge", "g6e.12xlarge",
        "p4d.24xlarge", "p5.48xlarge",
    }  # fmt: skip
    assert required <= names


def test_every_type_has_a_dated_sourced_price() -> None:
    for t in load_catalog().types():
        assert t.on_demand, t.name
        for price in t.on_demand.values():
            assert price.currency in {"USD", "CNY"}
            assert price.source.startswith("https://")
            assert len(price.date) == 10


def test_china_clouds_priced_in_the_currency_their_sources_publish() -> None:
    catalog = load_catalog()
    # Alibaba's price file is in CNY for every region except the one USD comparison (gn8v, us-east-1);
    # Tencent's published GPU price list is in USD, the figures from Chinese resale tables in CNY.
    for cloud in ("alicloud", "tencentcloud"):
        assert {p.currency for t in catalog.types(cloud) for p in t.on_demand.values()} == {"CNY", "USD"}
    assert {t.on_demand["us-east-1"].currency for t in catalog.types("alicloud") if t.family == "gn8v"} == {
        "USD"
    }


def test_hourly_on_demand_and_spot_math() -> None:
    t = load_catalog().get("aws", "g5.2xlarge")
    on_demand = t.hourly("us-east-1")
    assert on_demand.amount == 1.212
    assert on_demand.currency == "USD"
    # us-east-1's five zones: 0.4288, 0.4799, 0.5063, 0.5609, 0.6067; the region's spot price is the median.
    spot = t.hourly("us-east-1", spot=True)
    assert spot.amount == 0.5063
    assert spot.source == on_demand.source
    assert t.spot_basis("us-east-1") == "median of the region's zones"


def test_region_without_a_spot_price_falls_back_to_the_discount() -> None:
    t = load_catalog().get("aws", "p4d.24xlarge")
    assert "ap-south-1" in t.on_demand and "ap-south-1" not in t.spot  # no zone quoted a spot price
    spot = t.hourly("ap-south-1", spot=True)
    assert spot.amount == pytest.approx(39.32 * (1 - t.spot_discount))
    assert t.spot_basis("ap-south-1") == f"on-demand less {t.spot_discount * 100:g}%"


def test_every_aws_gpu_family_in_every_region_that_sells_it() -> None:
    catalog = load_catalog()
    families = {t.family for t in catalog.types("aws")}
    assert {
        "g4dn",
        "g4ad",
        "g5",
        "g5g",
        "g6",
        "g6e",
        "gr6",
        "p3",
        "p3dn",
        "p4d",
        "p4de",
        "p5",
        "p5en",
    } <= families
    assert len(catalog.types("aws")) == 52
    assert len(catalog.regions("aws")) == 22
    assert sorted(catalog.get("aws", "g4dn.xlarge").on_demand) == [
        "af-south-1", "ap-east-1", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1",
        "ap-southeast-1", "ap-southeast-2", "ca-central-1", "eu-central-1", "eu-north-1", "eu-south-1",
        "eu-west-1", "eu-west-2", "eu-west-3", "me-south-1", "us-east-1", "us-east-2", "us-west-1",
        "us-west-2",
    ]  # fmt: skip


def test_price_cut_families_are_flagged_unconfirmed() -> None:
    catalog = load_catalog()
    for name in ("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge"):
        assert not catalog.get("aws", name).hourly("us-east-1").confirmed, name
    assert catalog.get("aws", "g5.2xlarge").hourly("us-east-1").confirmed


def test_hourly_unknown_region_lists_known_regions() -> None:
    with pytest.raises(KeyError) as excinfo:
        load_catalog().get("aws", "g6.xlarge").hourly("eu-west-1")
    # The source lists no g6 in eu-west-1.
    assert (
        "priced regions: ap-northeast-1, ap-northeast-2, ap-south-1, ap-southeast-2, ca-central-1, "
        in str(excinfo.value)
    )


def test_unknown_type_suggests_close_matches() -> None:
    with pytest.raises(UnknownInstanceType) as excinfo:
        load_catalog().get("aws", "g5.2xlarg")
    err = excinfo.value
    assert (err.cloud, err.name) == ("aws", "g5.2xlarg")
    assert err.matches[0] == "g5.2xlarge"
    assert str(err).startswith("unknown aws instance type 'g5.2xlarg'; did you mean g5.2xlarge")


def test_unknown_type_is_a_key_error_and_find_returns_none() -> None:
    catalog = load_catalog()
    assert catalog.find("aws", "nope.large") is None
    with pytest.raises(KeyError):
        catalog.get("tencentcloud", "g5.2xlarge")


def test_close_match_ignores_case_for_tencent_names() -> None:
    with pytest.raises(UnknownInstanceType) as excinfo:
        load_catalog().get("tencentcloud", "gn7.2xlarge32")
    assert excinfo.value.matches[0] == "GN7.2XLARGE32"


def test_conversion_uses_rates_table() -> None:
    catalog = load_catalog()
    rate = catalog.per_usd["CNY"]
    assert 7.0 <= rate <= 7.4
    assert catalog.convert(10.0, "USD", "CNY") == pytest.approx(10.0 * rate)
    assert catalog.convert(72.0, "CNY", "USD") == pytest.approx(72.0 / rate)
    assert catalog.convert(5.0, "USD", "USD") == 5.0
    assert catalog.rates_source.startswith("https://")
    with pytest.raises(KeyError, match="unknown currency 'EUR'"):
        catalog.convert(1.0, "EUR", "USD")


def test_dev_default_classes() -> None:
    assert GPU_CLASSES_DEV_DEFAULT == ("T4", "A10G", "A10", "L4")
    dev_ok = [t.name for t in load_catalog().types("aws") if t.gpu_class in GPU_CLASSES_DEV_DEFAULT]
    assert "p4d.24xlarge" not in dev_ok
    assert "g4dn.xlarge" in dev_ok


def test_purchase_prices_for_eight_gpu_servers() -> None:
    p4d = load_catalog().get("aws", "p4d.24xlarge")
    assert p4d.purchase is not None
    assert p4d.purchase.currency == "USD"
    assert p4d.purchase.amount > 100_000


def _mutate(path: list[str | int], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(_raw())
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def test_a_spot_price_needs_an_on_demand_price_in_its_region() -> None:
    data = _raw()
    data["instance_types"][0]["spot"]["regions"]["mars-north-1"] = 0.1
    with pytest.raises(
        CatalogError, match=r"\(aws g4ad.xlarge\) spot.mars-north-1: no on-demand price in that region"
    ):
        parse_catalog(data)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["instance_types", 0, "on_demand", "regions"], {},
         r"instance_types\[0\] \(aws g4ad.xlarge\): needs at least one on-demand price"),
        (["instance_types", 1, "on_demand", "currency"], "EUR",
         r"\(aws g4ad.2xlarge\) on_demand.ap-northeast-1: unknown currency 'EUR'"),
        (["instance_types", 2, "cloud"], "gcp", r"\(gcp g4ad.4xlarge\): unknown cloud 'gcp'"),
        (["instance_types", 3, "spot_discount"], 1.5, r"spot_discount must be in \[0, 1\)"),
        (["instance_types", 3, "gpu_count"], 0, r"gpu_count must be a positive integer"),
    ],
)  # fmt: skip
def test_loader_fails_loudly_naming_the_entry(path: list[str | int], value: Any, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        parse_catalog(_mutate(path, value))


def test_duplicate_entries_rejected() -> None:
    data = _raw()
    data["instance_types"].append(copy.deepcopy(data["instance_types"][0]))
    with pytest.raises(CatalogError, match=r"aws g4ad\.xlarge is listed twice"):
        parse_catalog(data)
