"""The site plan: each pool at its cloud and region, each cloud's home first, networks keyed cloud:region,
and every problem named by its spec field or provider config key."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.catalog.alicloud import REGIONS as ALICLOUD_REGIONS
from gpufleet.components.catalog.aws import REGIONS as AWS_REGIONS
from gpufleet.components.catalog.tencentcloud import REGIONS as TENCENTCLOUD_REGIONS
from gpufleet.components.sites import SitePlan
from gpufleet.components.spec import SpecError, load_fleet_from_config, parse_fleet, site_plans
from tests.cli.helpers import copy_project, invoke

SOURCE = "stacks/Pulumi.test.yaml"
AWS_POOL = {"instance_types": ["g5.2xlarge"], "size": {"max": 4}, "workload": {"image_reads_queue": True}}
ALI_POOL = {
    "cloud": "alicloud",
    "instance_types": ["ecs.gn6i-c4g1.xlarge"],
    "size": {"max": 2},
    "workload": {"image_reads_queue": True},
}
TC_POOL = {
    "cloud": "tencentcloud",
    "instance_types": ["GN7.2XLARGE32"],
    "size": {"max": 2},
    "workload": {"image_reads_queue": True},
}


def fleet(pools: dict[str, Any], **sections: Any) -> dict[str, Any]:
    return {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": pools,
        **sections,
    }


def pool(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(base), **changes}


def plans(raw: dict[str, Any], **regions: str) -> list[SitePlan]:
    return site_plans(parse_fleet(raw, source=SOURCE), regions, source=SOURCE)


def problems(raw: dict[str, Any], **regions: str) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as raised:
        plans(raw, **regions)
    assert str(raised.value).startswith(f"{SOURCE}: ")
    return raised.value.errors


# ------------------------------------------------------------------------------------------ plans

MIXED = fleet(
    {
        "train": AWS_POOL,
        "ali": ALI_POOL,
        "ali-sh": pool(ALI_POOL, region="cn-shanghai"),
        "west": pool(AWS_POOL, region="us-west-2"),
        "tc": TC_POOL,
    },
    network={
        "vpc_cidr": "10.40.0.0/16",
        "regions": {
            "us-west-2": {"vpc_cidr": "10.41.0.0/16"},
            "alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"},
            "alicloud:cn-shanghai": {"vpc_cidr": "10.61.0.0/16", "availability_zones": 3},
            "tencentcloud:ap-guangzhou": {"vpc_cidr": "10.70.0.0/16"},
        },
    },
    storage={"checkpoints": {"replicate_to": "us-east-2"}},
)


@pytest.mark.parametrize(
    ("raw", "regions", "expected"),
    [
        pytest.param(
            fleet({"train": AWS_POOL}),
            {"aws": "us-east-1"},
            [SitePlan(cloud="aws", region="us-east-1", home=True, pools=("train",), vpc_cidr="10.40.0.0/16")],
            id="aws-only",
        ),
        pytest.param(
            fleet({"train": AWS_POOL}, network={"subnet_ids": ["subnet-0a1b2c3d"]}),
            {"aws": "us-east-1"},
            [
                SitePlan(
                    cloud="aws",
                    region="us-east-1",
                    home=True,
                    pools=("train",),
                    subnet_ids=("subnet-0a1b2c3d",),
                )
            ],
            id="aws-existing-subnets",
        ),
        pytest.param(
            MIXED,
            {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"},
            [
                SitePlan(
                    cloud="aws", region="us-east-1", home=True, pools=("train",), vpc_cidr="10.40.0.0/16"
                ),
                # The replica's region holds no pools, so no network.
                SitePlan(cloud="aws", region="us-east-2", home=False),
                SitePlan(
                    cloud="aws", region="us-west-2", home=False, pools=("west",), vpc_cidr="10.41.0.0/16"
                ),
                SitePlan(
                    cloud="alicloud", region="cn-hangzhou", home=True, pools=("ali",), vpc_cidr="10.60.0.0/16"
                ),
                SitePlan(
                    cloud="alicloud",
                    region="cn-shanghai",
                    home=False,
                    pools=("ali-sh",),
                    vpc_cidr="10.61.0.0/16",
                    availability_zones=3,
                ),
                SitePlan(
                    cloud="tencentcloud",
                    region="ap-guangzhou",
                    home=True,
                    pools=("tc",),
                    vpc_cidr="10.70.0.0/16",
                ),
            ],
            id="aws-alibaba-tencent",
        ),
        pytest.param(
            fleet(
                {"ali": ALI_POOL},
                network={"regions": {"alicloud:cn-beijing": {"vpc_cidr": "10.60.0.0/16"}}},
            ),
            {"alicloud": "cn-beijing"},
            [
                SitePlan(
                    cloud="alicloud", region="cn-beijing", home=True, pools=("ali",), vpc_cidr="10.60.0.0/16"
                )
            ],
            id="alibaba-only",
        ),
        pytest.param(
            # No alicloud:region: the first Alibaba pool's region is the home; no AWS at all.
            fleet(
                {"a": pool(ALI_POOL, region="cn-hongkong"), "b": pool(ALI_POOL, region="ap-southeast-1")},
                network={
                    "regions": {
                        "alicloud:cn-hongkong": {"vpc_cidr": "10.60.0.0/16"},
                        "alicloud:ap-southeast-1": {"vpc_cidr": "10.62.0.0/16"},
                    }
                },
            ),
            {},
            [
                SitePlan(
                    cloud="alicloud", region="cn-hongkong", home=True, pools=("a",), vpc_cidr="10.60.0.0/16"
                ),
                SitePlan(
                    cloud="alicloud",
                    region="ap-southeast-1",
                    home=False,
                    pools=("b",),
                    vpc_cidr="10.62.0.0/16",
                ),
            ],
            id="alibaba-regions-only",
        ),
        pytest.param(
            # Clouds come in the order their first pool appears: Tencent's home is the fleet's first site.
            fleet(
                {"tc": TC_POOL, "train": AWS_POOL},
                network={"regions": {"tencentcloud:ap-singapore": {"vpc_cidr": "10.70.0.0/16"}}},
            ),
            {"aws": "us-west-2", "tencentcloud": "ap-singapore"},
            [
                SitePlan(
                    cloud="tencentcloud",
                    region="ap-singapore",
                    home=True,
                    pools=("tc",),
                    vpc_cidr="10.70.0.0/16",
                ),
                SitePlan(
                    cloud="aws", region="us-west-2", home=True, pools=("train",), vpc_cidr="10.40.0.0/16"
                ),
            ],
            id="tencent-first",
        ),
        pytest.param(
            # A provider region set for a cloud without pools makes no site.
            fleet({"train": AWS_POOL}),
            {"aws": "us-east-1", "alicloud": "cn-hangzhou"},
            [SitePlan(cloud="aws", region="us-east-1", home=True, pools=("train",), vpc_cidr="10.40.0.0/16")],
            id="unused-provider",
        ),
    ],
)
def test_site_plans(raw: dict[str, Any], regions: dict[str, str], expected: list[SitePlan]) -> None:
    assert plans(raw, **regions) == expected


# ----------------------------------------------------------------------------------------- errors

_ALLOWED_AWS = ", ".join(AWS_REGIONS)
_ALLOWED_ALI = ", ".join(ALICLOUD_REGIONS)
_ALLOWED_TC = ", ".join(TENCENTCLOUD_REGIONS)
_NET = "a range that overlaps none of the fleet's others"


@pytest.mark.parametrize(
    ("raw", "regions", "expected"),
    [
        pytest.param(
            fleet({"ali": ALI_POOL}),
            {"aws": "us-east-1"},
            [
                (
                    "gpufleet:fleet.pools.ali.region",
                    "is not set and the stack has no alicloud:region: set alicloud:region in the stack's "
                    "config, or give the pool a region",
                )
            ],
            id="no-alicloud-region",
        ),
        pytest.param(
            fleet({"tc": TC_POOL}),
            {},
            [
                (
                    "gpufleet:fleet.pools.tc.region",
                    "is not set and the stack has no tencentcloud:region: set tencentcloud:region in the "
                    "stack's config, or give the pool a region",
                )
            ],
            id="no-tencent-region",
        ),
        pytest.param(
            fleet({"ali": ALI_POOL}),
            {"alicloud": "cn-mars"},
            [("alicloud:region", f"unknown Alibaba Cloud region 'cn-mars'; use one of {_ALLOWED_ALI}")],
            id="unknown-alicloud-region",
        ),
        pytest.param(
            fleet({"tc": pool(TC_POOL, region="ap-atlantis")}),
            {},
            [
                (
                    "gpufleet:fleet.pools.tc.region",
                    f"unknown Tencent Cloud region 'ap-atlantis'; use one of {_ALLOWED_TC}",
                )
            ],
            id="unknown-tencent-pool-region",
        ),
        pytest.param(
            fleet(
                {"ali": ALI_POOL, "sh": pool(ALI_POOL, region="cn-shanghai")},
                network={"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}}},
            ),
            {"alicloud": "cn-hangzhou"},
            [
                (
                    "gpufleet:fleet.pools.sh.region",
                    "cn-shanghai differs from the stack's alicloud:region cn-hangzhou and needs its own "
                    f"network: add network.regions.alicloud:cn-shanghai.vpc_cidr, {_NET}",
                )
            ],
            id="alibaba-second-region-without-network",
        ),
        pytest.param(
            fleet(
                {"train": AWS_POOL, "west": pool(AWS_POOL, region="us-west-2")},
                network={
                    "regions": {
                        "us-west-2": {"vpc_cidr": "10.41.0.0/16"},
                        "aws:us-west-2": {"vpc_cidr": "10.42.0.0/16"},
                        "gcp:us-central1": {"vpc_cidr": "10.43.0.0/16"},
                        "alicloud:cn-shanghai": {"vpc_cidr": "10.44.0.0/16"},
                    }
                },
            ),
            {"aws": "us-east-1"},
            [
                (
                    "gpufleet:fleet.network.regions.aws:us-west-2",
                    "names the same site as network.regions.us-west-2",
                ),
                (
                    "gpufleet:fleet.network.regions.gcp:us-central1",
                    "unknown cloud 'gcp': key entries by cloud:region with cloud one of aws, alicloud, "
                    "tencentcloud (a bare region is an AWS region)",
                ),
                (
                    "gpufleet:fleet.network.regions.alicloud:cn-shanghai",
                    "no pool runs in alicloud:cn-shanghai; remove the entry or add a pool with that region",
                ),
            ],
            id="network-keys",
        ),
        pytest.param(
            fleet(
                {"ali": pool(ALI_POOL, region="cn-beijing")},
                network={"regions": {"alicloud:cn-beijing": {"vpc_cidr": "10.60.0.0/16"}}},
                storage={"checkpoints": {"replicate_to": "us-west-2"}},
            ),
            {},
            [
                (
                    "gpufleet:fleet.storage.checkpoints.replicate_to",
                    "replicates the AWS checkpoint bucket, but no pool runs on AWS: remove it",
                )
            ],
            id="replica-without-aws",
        ),
        pytest.param(
            fleet(
                {"train": AWS_POOL, "west": pool(AWS_POOL, region="us-west-7")},
                storage={"checkpoints": {"replicate_to": "eu-east-9"}},
            ),
            {"aws": "us-east-1"},
            [
                (
                    "gpufleet:fleet.pools.west.region",
                    f"unknown AWS region 'us-west-7'; use one of {_ALLOWED_AWS}",
                ),
                (
                    "gpufleet:fleet.storage.checkpoints.replicate_to",
                    f"unknown AWS region 'eu-east-9'; use one of {_ALLOWED_AWS}",
                ),
            ],
            id="unknown-aws-regions",
        ),
        pytest.param(
            fleet(
                {"ali": ALI_POOL},
                network={
                    "vpc_cidr": "10.50.0.0/16",
                    "availability_zones": 3,
                    "regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}},
                },
            ),
            {"alicloud": "cn-hangzhou"},
            [
                (
                    f"gpufleet:fleet.network.{field}",
                    "is the AWS home's network, but no pool runs on AWS: remove it (each other site's "
                    "network is its network.regions entry, keyed cloud:region)",
                )
                for field in ("availability_zones", "vpc_cidr")
            ],
            id="aws-home-network-without-aws",
        ),
        pytest.param(
            fleet({"west": pool(AWS_POOL, region="us-west-2")}),
            {"alicloud": "cn-hangzhou"},
            [
                (
                    "aws:region",
                    "is not set: the fleet's AWS home (its key, checkpoint bucket, trail and budget) is the "
                    "stack's aws:region; set it in the stack's config",
                )
            ],
            id="aws-pool-without-aws-region",
        ),
        pytest.param(
            fleet({"train": AWS_POOL}, network={"subnet_ids": ["subnet-0a1b2c3d"], "egress": "nat"}),
            {"aws": "us-east-1"},
            [
                (
                    "gpufleet:fleet.network.egress",
                    "nat builds endpoints or a NAT gateway in a network the fleet creates; with "
                    "network.subnet_ids the existing network brings its own way out: use none",
                )
            ],
            id="egress-into-existing-subnets",
        ),
    ],
)
def test_site_plan_problems(
    raw: dict[str, Any], regions: dict[str, str], expected: list[tuple[str, str]]
) -> None:
    assert problems(raw, **regions) == expected


# ------------------------------------------------------------------------------- loading the stack


def _config(**extra: Any) -> dict[str, Any]:
    raw = fleet(
        {"ali": ALI_POOL}, network={"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}}}
    )
    return {"gpufleet:fleet": raw, **extra}


def test_a_home_site_without_a_network_entry_gets_a_free_default_range() -> None:
    # Alibaba-only: no network section at all; the first /16 of 10.0.0.0/8.
    [ali] = plans(fleet({"ali": ALI_POOL}), alicloud="cn-hangzhou")
    assert (ali.key, ali.vpc_cidr, ali.availability_zones) == ("alicloud:cn-hangzhou", "10.0.0.0/16", 2)
    # Beside AWS, an entry and on-prem ranges: each default is clear of all of them and of the other's.
    raw = fleet(
        {"train": AWS_POOL, "west": pool(AWS_POOL, region="us-west-2"), "ali": ALI_POOL, "tc": TC_POOL},
        network={"vpc_cidr": "10.0.0.0/16", "regions": {"us-west-2": {"vpc_cidr": "10.1.0.0/16"}}},
    )
    found = plans(raw, aws="us-east-1", alicloud="cn-hangzhou", tencentcloud="ap-guangzhou")
    assert [(p.key, p.vpc_cidr) for p in found] == [
        ("aws:us-east-1", "10.0.0.0/16"),
        ("aws:us-west-2", "10.1.0.0/16"),
        ("alicloud:cn-hangzhou", "10.2.0.0/16"),
        ("tencentcloud:ap-guangzhou", "10.3.0.0/16"),
    ]
    # A given entry is kept as written.
    given = fleet(
        {"ali": ALI_POOL}, network={"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}}}
    )
    assert [p.vpc_cidr for p in plans(given, alicloud="cn-hangzhou")] == ["10.60.0.0/16"]


def test_an_alibaba_only_stack_loads_without_aws_region() -> None:
    spec = load_fleet_from_config(_config(**{"alicloud:region": "cn-hangzhou"}), SOURCE)
    assert list(spec.pools) == ["ali"]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("alicloud:region", "cn-mars", f"unknown Alibaba Cloud region 'cn-mars'; use one of {_ALLOWED_ALI}"),
        (
            "tencentcloud:region",
            "ap-atlantis",
            f"unknown Tencent Cloud region 'ap-atlantis'; use one of {_ALLOWED_TC}",
        ),
    ],
)
def test_unknown_provider_regions_are_spec_errors(key: str, value: str, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        load_fleet_from_config(_config(**{"alicloud:region": "cn-hangzhou", key: value}), SOURCE)
    assert raised.value.errors == [(key, message)]


def test_a_spec_whose_plan_fails_does_not_load() -> None:
    with pytest.raises(SpecError) as raised:
        load_fleet_from_config(_config(), SOURCE)
    assert [path for path, _ in raised.value.errors] == ["gpufleet:fleet.pools.ali.region"]


@pytest.mark.parametrize("command", ["plan", "check", "cost"])
def test_commands_exit_2_naming_the_file_and_the_region_key(tmp_path: Path, command: str) -> None:
    config = _config(**{"alicloud:region": "cn-mars"})
    stack = yaml.safe_dump({"config": config}, sort_keys=False)
    project = copy_project(tmp_path / "project", {"qa": stack})
    result = invoke(command, str(project), "-s", "qa")
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "stacks/Pulumi.qa.yaml: alicloud:region: unknown Alibaba Cloud region 'cn-mars'" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_site_ranges_may_not_overlap_across_clouds() -> None:
    raw = fleet(
        {"train": AWS_POOL, "west": pool(AWS_POOL, region="us-west-2"), "ali": ALI_POOL, "tc": TC_POOL},
        network={
            "vpc_cidr": "10.40.0.0/16",
            "regions": {
                "alicloud:cn-hangzhou": {"vpc_cidr": "10.40.128.0/17"},
                "tencentcloud:ap-guangzhou": {"vpc_cidr": "10.60.0.0/16"},
            },
        },
    )
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source=SOURCE)
    assert raised.value.errors == [
        (
            "gpufleet:fleet.network.regions.alicloud:cn-hangzhou.vpc_cidr",
            "10.40.128.0/17 overlaps network.vpc_cidr (10.40.0.0/16); give each region its own range",
        )
    ]


def test_without_aws_pools_the_aws_home_range_is_not_in_the_address_plan() -> None:
    # network.vpc_cidr defaults to 10.40.0.0/16, the AWS home's: a fleet without AWS may use that range.
    alibaba_only = fleet(
        {"ali": ALI_POOL}, network={"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.40.0.0/16"}}}
    )
    assert plans(alibaba_only, alicloud="cn-hangzhou")[0].vpc_cidr == "10.40.0.0/16"
    with_aws = copy.deepcopy(alibaba_only)
    with_aws["pools"]["train"] = AWS_POOL
    with pytest.raises(SpecError) as raised:
        parse_fleet(with_aws, source=SOURCE)
    assert raised.value.errors == [
        (
            "gpufleet:fleet.network.regions.alicloud:cn-hangzhou.vpc_cidr",
            "10.40.0.0/16 overlaps network.vpc_cidr (10.40.0.0/16); give each region its own range",
        )
    ]


def test_a_bad_provider_region_is_reported_with_the_spec_problems() -> None:
    # One run names everything to fix: the region key, a field error and an instance type typo together.
    raw = fleet({"train": pool(AWS_POOL, instance_types=["g5.2xlarg"])}, budget={"monthly": 0})
    with pytest.raises(SpecError) as raised:
        load_fleet_from_config({"aws:region": "us-east-11", "gpufleet:fleet": raw}, source=SOURCE)
    paths = [path for path, _ in raised.value.errors]
    assert paths == [
        "aws:region",
        "gpufleet:fleet.budget.monthly",
        "gpufleet:fleet.pools.train.instance_types[0]",
    ]
