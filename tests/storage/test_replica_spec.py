"""storage.checkpoints.replica_regions: the second region of the Alibaba and Tencent checkpoint buckets'
replicas, each error naming its field and the regions it may take."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.catalog.alicloud import REGIONS as ALICLOUD_REGIONS
from gpufleet.components.catalog.tencentcloud import REGIONS as TENCENTCLOUD_REGIONS
from gpufleet.components.spec import SpecError, parse_fleet, site_plans

SOURCE = "stacks/Pulumi.test.yaml"
ALI_POOL = {
    "cloud": "alicloud",
    "instance_types": ["ecs.gn6i-c4g1.xlarge"],
    "workload": {"image_reads_queue": True},
    "size": {"max": 2},
}
TC_POOL = {
    "cloud": "tencentcloud",
    "instance_types": ["GN7.2XLARGE32"],
    "workload": {"image_reads_queue": True},
    "size": {"max": 2},
}
AWS_POOL = {"workload": {"image_reads_queue": True}, "instance_types": ["g5.2xlarge"], "size": {"max": 2}}
REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}
NETWORKS = {
    "alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"},
    "tencentcloud:ap-guangzhou": {"vpc_cidr": "10.70.0.0/16"},
}
PATH = "gpufleet:fleet.storage.checkpoints.replica_regions"


def fleet(pools: dict[str, Any], replicas: dict[str, Any], **sections: Any) -> dict[str, Any]:
    return {
        "environment": "prod",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": pools,
        "network": {"regions": dict(NETWORKS), **sections.pop("network", {})},
        "storage": {"checkpoints": {"replica_regions": replicas}},
        **sections,
    }


def problems(raw: dict[str, Any], regions: dict[str, str] = REGIONS) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        site_plans(parse_fleet(raw, source=SOURCE), regions, source=SOURCE)
    return raised.value.errors


def others(allowed: tuple[str, ...], *taken: str) -> str:
    return ", ".join(r for r in allowed if r not in taken)


def test_valid_regions_are_kept_and_add_no_site() -> None:
    raw = fleet({"ali": ALI_POOL, "tc": TC_POOL}, {"alicloud": "cn-shanghai", "tencentcloud": "ap-shanghai"})
    spec = parse_fleet(raw, source=SOURCE)
    assert spec.storage.checkpoints.replica_regions.alicloud == "cn-shanghai"
    assert spec.storage.checkpoints.replica_regions.tencentcloud == "ap-shanghai"
    plans = site_plans(spec, REGIONS, source=SOURCE)
    assert [(p.cloud, p.region, p.home) for p in plans] == [
        ("alicloud", "cn-hangzhou", True),
        ("tencentcloud", "ap-guangzhou", True),
    ]


def test_default_is_no_replica() -> None:
    spec = parse_fleet(fleet({"ali": ALI_POOL}, {}), source=SOURCE)
    replicas = spec.storage.checkpoints.replica_regions
    assert (replicas.alicloud, replicas.tencentcloud) == (None, None)


def test_unknown_regions_list_the_allowed_ones() -> None:
    raw = fleet({"ali": ALI_POOL, "tc": TC_POOL}, {"alicloud": "cn-shangai", "tencentcloud": "us-west-2"})
    assert problems(raw) == [
        (
            f"{PATH}.alicloud",
            f"unknown Alibaba Cloud region 'cn-shangai'; use one of {', '.join(ALICLOUD_REGIONS)}",
        ),
        (
            f"{PATH}.tencentcloud",
            f"unknown Tencent Cloud region 'us-west-2'; use one of {', '.join(TENCENTCLOUD_REGIONS)}",
        ),
    ]


def test_same_region_as_the_source_is_an_error() -> None:
    raw = fleet({"ali": ALI_POOL, "tc": TC_POOL}, {"alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"})
    assert problems(raw) == [
        (
            f"{PATH}.alicloud",
            "cn-hangzhou is the stack's alicloud:region; the replica must be in a region with no Alibaba "
            "Cloud site to survive a regional outage: use one of " + others(ALICLOUD_REGIONS, "cn-hangzhou"),
        ),
        (
            f"{PATH}.tencentcloud",
            "ap-guangzhou is the stack's tencentcloud:region; the replica must be in a region with no "
            "Tencent Cloud site to survive a regional outage: use one of "
            + others(TENCENTCLOUD_REGIONS, "ap-guangzhou"),
        ),
    ]


def test_a_region_with_a_second_site_is_an_error() -> None:
    raw = fleet(
        {"ali": ALI_POOL, "ali-sh": {**ALI_POOL, "region": "cn-shanghai"}},
        {"alicloud": "cn-shanghai"},
    )
    raw["network"]["regions"] = {
        "alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"},
        "alicloud:cn-shanghai": {"vpc_cidr": "10.61.0.0/16"},
    }
    assert problems(raw) == [
        (
            f"{PATH}.alicloud",
            "cn-shanghai is where pools ali-sh run, with a bucket of its own; the replica must be in a "
            "region with no Alibaba Cloud site to survive a regional outage: use one of "
            + others(ALICLOUD_REGIONS, "cn-hangzhou", "cn-shanghai"),
        )
    ]


def test_home_without_provider_region_is_named_as_the_home() -> None:
    raw = fleet({"tc": {**TC_POOL, "region": "ap-shanghai"}}, {"tencentcloud": "ap-shanghai"})
    raw["network"]["regions"] = {"tencentcloud:ap-shanghai": {"vpc_cidr": "10.70.0.0/16"}}
    assert problems(raw, {}) == [
        (
            f"{PATH}.tencentcloud",
            "ap-shanghai is Tencent Cloud's home region; the replica must be in a region with no Tencent "
            "Cloud site to survive a regional outage: use one of "
            + others(TENCENTCLOUD_REGIONS, "ap-shanghai"),
        )
    ]


def test_a_replica_for_a_cloud_without_pools_is_an_error() -> None:
    raw = fleet({"train": AWS_POOL}, {"tencentcloud": "ap-shanghai"})
    raw["network"] = {}
    assert problems(raw) == [
        (
            f"{PATH}.tencentcloud",
            "replicates the Tencent Cloud checkpoint buckets, but no pool runs on Tencent Cloud: remove it",
        )
    ]


@pytest.mark.parametrize(
    ("replicas", "message"),
    [
        ({"aws": "us-west-2"}, "unknown field 'aws'; allowed: alicloud, tencentcloud"),
        ({"alicloud": 5}, "must be a string, got 5"),
    ],
)
def test_shape_errors_name_the_field(replicas: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_fleet(fleet({"ali": ALI_POOL}, replicas), source=SOURCE)
    [(path, found)] = raised.value.errors
    assert path.startswith(PATH)
    assert found == message
