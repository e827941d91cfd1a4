"""The spec's ``burst`` section: an order of sites or ``by_price``, each error naming field and values."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.pools.burst import describe_burst_order, spec_gates
from gpufleet.components.spec import SpecError, parse_fleet

SOURCE = "stacks/Pulumi.hybrid.yaml"
POOLS = {
    "train": {
        "instance_types": ["g5.2xlarge"],
        "workload": {"image_reads_queue": True},
        "size": {"max": 4},
        "region": "us-east-1",
    },
    "hz": {
        "cloud": "alicloud",
        "region": "cn-hangzhou",
        "instance_types": ["ecs.gn7i-c8g1.2xlarge"],
        "workload": {"image_reads_queue": True},
        "size": {"max": 2},
    },
}


def spec_with(burst: Any, pools: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": pools or POOLS,
    }
    if burst is not None:
        spec["burst"] = burst
    return spec


def errors_of(burst: Any, pools: dict[str, Any] | None = None) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_fleet(spec_with(burst, pools), source=SOURCE)
    return caught.value.format().splitlines()


def test_burst_is_optional_and_defaults_to_by_price() -> None:
    assert parse_fleet(spec_with(None)).burst is None
    burst = parse_fleet(spec_with({})).burst
    assert burst is not None and burst.by_price and burst.sites == ()


def test_a_written_order_keeps_its_sites() -> None:
    burst = parse_fleet(spec_with({"order": ["alicloud:cn-hangzhou", "aws:us-east-1"]})).burst
    assert burst is not None and not burst.by_price
    assert burst.sites == ("alicloud:cn-hangzhou", "aws:us-east-1")


@pytest.mark.parametrize(
    ("burst", "message"),
    [
        (
            {"order": "cheapest"},
            ".burst.order: must be 'by_price' or a list of sites written cloud:region (cloud one of aws, "
            "alicloud, tencentcloud), got 'cheapest'",
        ),
        (
            {"order": 3},
            ".burst.order: must be 'by_price' or a list of sites written cloud:region (cloud one of aws, "
            "alicloud, tencentcloud), got 3",
        ),
        ({"order": []}, ".burst.order: must name at least one site, or be 'by_price'"),
        (
            {"order": ["azure:eastus"]},
            ".burst.order: item 0: must be a site written cloud:region with cloud one of aws, alicloud, "
            "tencentcloud, got 'azure:eastus'",
        ),
        ({"order": ["aws:us-east-1", "aws:us-east-1"]}, ".burst.order: item 1: names 'aws:us-east-1' twice"),
        (
            {"order": ["aws:mars-1"]},
            ".burst.order: item 0: 'mars-1' is not one of aws's regions: af-south-1, ",
        ),
        ({"order": [3]}, ".burst.order: item 0: must be a site written cloud:region, got 3"),
        ({"order": [None]}, ".burst.order: item 0: must be a site written cloud:region, got null"),
        ({"order": ["aws:us-east-1"] * 70}, ".burst.order: must name at most 64 sites, got 70"),
        ("by_price", ".burst: must be a mapping of settings, got 'by_price'"),
        (
            {"order": ["tencentcloud:ap-guangzhou"]},
            ": burst.order[0]: 'tencentcloud:ap-guangzhou' names "
            "tencentcloud, which has no pools; list only sites with pools",
        ),
        (
            {"order": ["aws:us-west-2"]},
            ": burst.order[0]: no pool runs at 'aws:us-west-2'; the aws pools run at aws:us-east-1",
        ),
        ({"order": "by_price", "gate": 1}, ".burst: unknown field 'gate'; allowed: order"),
    ],
)
def test_bad_orders_name_field_and_allowed_values(burst: Any, message: str) -> None:
    errors = errors_of(burst)
    assert len(errors) == 1
    assert errors[0].startswith(f"{SOURCE}: gpufleet:fleet{message}")


def test_describe_and_gates_from_the_spec() -> None:
    spec = parse_fleet(spec_with({"order": ["alicloud:cn-hangzhou", "aws:us-east-1"]}))
    gates = spec_gates(spec)
    assert (gates["hz"].position, gates["train"].position, gates["train"].ahead) == (
        1,
        2,
        ("alicloud:cn-hangzhou",),
    )
    lines = describe_burst_order(spec)
    assert lines[0] == "0. no on-prem baseline: the first site starts at once"
    assert lines[1].startswith("1. alicloud:cn-hangzhou (listed, ")
    assert lines[1].endswith(
        "pools hz; not gated: scale-out on the pools' own queue (set burst.publishers.alicloud to gate it "
        "on the exporter's GatedBacklog); see docs/burst-order.md"
    )
    assert lines[2].startswith("2. aws:us-east-1 (listed, ")
    assert lines[2].endswith(
        "pools train; scale-out alarms gated by metric math on gpufleet/Baseline FreeGpusAhead"
    )


def test_without_burst_no_gates() -> None:
    spec = parse_fleet(spec_with(None))
    assert spec_gates(spec) == {}
    assert describe_burst_order(spec) == ["no burst order: every pool scales on its own queue"]


def test_a_pool_without_region_takes_the_provider_region() -> None:
    pools = {
        "train": {
            "instance_types": ["g5.2xlarge"],
            "workload": {"image_reads_queue": True},
            "size": {"max": 4},
        }
    }
    spec = parse_fleet(spec_with({"order": ["aws:us-west-2"]}, pools))
    assert spec_gates(spec, {"aws": "us-west-2"})["train"].site == "aws:us-west-2"
    # the stack's region is not known: the listed site cannot be matched yet, and plan says so
    assert describe_burst_order(spec) == [
        "burst.order: names aws:us-west-2, where no pool runs; the pools run at no site"
    ]


def test_by_price_puts_the_cheaper_gpu_hour_first() -> None:
    from tests.spec.test_onprem import onprem

    raw = spec_with({"order": "by_price"})
    raw["onprem"] = onprem()
    raw["environment"] = "prod"
    # g5.2xlarge in us-east-1: 1.212 USD an hour on demand (spot_percent 0), one GPU -> 1.21;
    # ecs.gn7i-c8g1.2xlarge in cn-hangzhou: 9.5326 CNY an hour, one GPU, at the catalogue's rate -> 1.32 USD.
    assert describe_burst_order(parse_fleet(raw)) == [
        "0. on-prem baseline: 16 GPUs, always first",
        "1. aws:us-east-1 (by price, 1.21 USD/GPU-hour): pools train; scale-out alarms gated by metric math "
        "on gpufleet/Baseline FreeGpusAhead",
        "2. alicloud:cn-hangzhou (by price, 1.32 USD/GPU-hour): pools hz; not gated: scale-out on the pools' "
        "own queue (set burst.publishers.alicloud to gate it on the exporter's GatedBacklog); see "
        "docs/burst-order.md",
        "signal: FreeGpusAhead for aws:us-east-1 has no publisher: add onprem.signal (docs/burst-order.md)",
    ]


def test_a_listed_site_no_pool_reaches_is_a_spec_error() -> None:
    pools = {
        "train": {
            "instance_types": ["g5.2xlarge"],
            "workload": {"image_reads_queue": True},
            "size": {"max": 4},
        }
    }
    spec = parse_fleet(spec_with({"order": ["aws:us-west-2"]}, pools))
    with pytest.raises(SpecError) as caught:
        spec_gates(spec, {"aws": "us-east-1"}, source=SOURCE)
    assert caught.value.format() == (
        f"{SOURCE}: gpufleet:fleet.burst.order: names aws:us-west-2, where no pool runs; the pools run at "
        "aws:us-east-1"
    )
