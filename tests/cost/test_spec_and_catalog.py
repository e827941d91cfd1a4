"""Pricing a spec on its own, on all three clouds, and the catalogue's buy and service prices."""

from __future__ import annotations

import pytest

from gpufleet.components.catalog import load_catalog
from gpufleet.components.spec import parse_fleet
from gpufleet.cost import CostError, estimate_spec
from tests.cost.helpers import small_catalog

CATALOG = small_catalog()


def _spec(pools: dict[str, object], environment: str = "dev") -> object:
    return parse_fleet({
        "environment": environment, "tags": {"project": "p", "team": "t", "cost-center": "c"},
        "budget": {"monthly": 10000, "currency": "CNY"}, "pools": pools,
    }, source="stacks/Pulumi.dev.yaml")  # fmt: skip


def test_three_clouds_priced_in_the_budget_currency() -> None:
    spec = _spec({
        "aws": {"cloud": "aws", "region": "us-east-1", "workload": {"image_reads_queue": True},
                                                       "instance_types": ["g5.2xlarge"], "size": {"max": 1},
                "usage": {"hours_per_day": 8, "average_size": 1}},
        "ali": {"cloud": "alicloud", "region": "cn-hangzhou", "workload": {"image_reads_queue": True},
                                                              "instance_types": ["ecs.gn7i-c8g1.2xlarge"],
                "size": {"max": 1}, "usage": {"hours_per_day": 8, "average_size": 1}},
        "tc": {"cloud": "tencentcloud", "region": "ap-guangzhou", "workload": {"image_reads_queue": True},
                                                                  "instance_types": ["GN7.2XLARGE32"],
               "size": {"max": 1}, "usage": {"hours_per_day": 8, "average_size": 1}},
    })  # fmt: skip
    report = estimate_spec(spec, catalog=CATALOG, stack="dev")
    assert report.currency == "CNY"
    lines = {line.pool: line for line in report.pools}
    assert lines["aws"].monthly_estimate == pytest.approx(1.0 * 7.5 * 240)
    assert lines["ali"].monthly_estimate == pytest.approx(3600.0)
    assert lines["tc"].monthly_estimate == pytest.approx(9.0 * 240)


def test_off_hours_ignored_in_prod_as_the_fleet_does() -> None:
    pool = {"cloud": "aws", "region": "us-east-1", "workload": {"image_reads_queue": True},
                                                   "instance_types": ["g5.2xlarge"], "size": {"max": 2},
            "off_hours": {"timezone": "UTC", "scale_to_zero": "20:00-08:00"}}  # fmt: skip
    dev = estimate_spec(_spec({"x": pool}), catalog=CATALOG).pools[0]
    prod = estimate_spec(_spec({"x": pool}, "prod"), catalog=CATALOG).pools[0]
    assert dev.scheduled_hours == pytest.approx(730 * 60 / 168)
    assert prod.scheduled_hours == pytest.approx(730)
    assert "off_hours is ignored in prod: priced around the clock" in prod.notes


def test_spec_pool_without_region_needs_the_stack_region() -> None:
    spec = _spec(
        {"x": {"workload": {"image_reads_queue": True}, "instance_types": ["g5.2xlarge"], "size": {"max": 2}}}
    )
    with pytest.raises(CostError, match=r"stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.x.region: is needed"):
        estimate_spec(spec, catalog=CATALOG, source="stacks/Pulumi.dev.yaml")
    report = estimate_spec(spec, catalog=CATALOG, config={"aws:region": "eu-west-1"})
    assert report.pools[0].on_demand.amount == 1.2


def test_shipped_catalogue_purchase_formula_and_quoted_prices() -> None:
    catalog = load_catalog()
    g5 = catalog.purchase_of(catalog.get("aws", "g5.12xlarge"))
    assert g5 is not None
    street = catalog.gpu_street_prices["A10G"].amount
    assert catalog.host_price is not None
    assert g5.price.amount == 4 * street + catalog.host_price.amount
    assert g5.formula.startswith("4 x A10G at ")
    assert g5.price.confirmed is False
    p4d = catalog.purchase_of(catalog.get("aws", "p4d.24xlarge"))
    assert p4d is not None and p4d.formula == "quoted system price"
    classes = {t.gpu_class for t in catalog.types()}
    assert classes <= set(catalog.gpu_street_prices)


def test_shipped_catalogue_service_prices() -> None:
    catalog = load_catalog()
    for cloud in ("aws", "alicloud", "tencentcloud"):
        services = catalog.service(cloud)
        assert services is not None
        assert services.price("block_gib_month") is not None
        assert services.price("nat_gateway_hour") is not None
    aws = catalog.service("aws")
    assert aws is not None
    ia = aws.price("object_gib_month.STANDARD_IA")
    assert ia is not None and ia.source == "https://aws.amazon.com/s3/pricing/" and ia.currency == "USD"
    assert "STANDARD_IA" in aws.object_classes()
    ali = catalog.service("alicloud")
    assert ali is not None and ali.currency == "CNY" and ali.confirmed is False
