"""The fleet builds each planned site through the SITES dispatch: a recording site stands in for the
Alibaba and Tencent sites (no such module is needed), and keeps the SiteArgs each is built from."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any, ClassVar, cast

import pulumi
import pytest

from gpufleet.components.fleet import HybridGpuFleet
from gpufleet.components.sites import (
    SITES,
    Cloud,
    PoolOutputs,
    Site,
    SiteArgs,
    SiteFactory,
    SiteOutputs,
    SitePlan,
    site_factory,
)
from gpufleet.components.spec import parse_fleet

from .conftest import Runner

ROOT = Path(__file__).resolve().parents[2]
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"}
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
AWS_POOL = {"instance_types": ["g5.2xlarge"], "size": {"max": 4}, "workload": {"image_reads_queue": True}}


class RecordingSite:
    """A site that builds nothing and remembers what it was asked for."""

    built: ClassVar[list[tuple[str, SiteArgs, pulumi.ResourceOptions]]] = []
    burst_publisher = None

    def __init__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions) -> None:
        self.built.append((name, args, opts))
        region = args.plan.region
        self.outputs = SiteOutputs(
            cloud=args.plan.cloud,
            region=region,
            currency="CNY",
            key_id=pulumi.Output.from_input(f"key-{region}"),
            bucket_name=pulumi.Output.from_input(f"bucket-{region}"),
            pools={
                pool: PoolOutputs(
                    groups=[pulumi.Output.from_input(f"{pool}-spot"), pulumi.Output.from_input(f"{pool}-od")],
                    queue=pulumi.Output.from_input(f"{pool}-queue"),
                    role=pulumi.Output.from_input(f"{pool}-role"),
                )
                for pool in args.plan.pools
            },
        )


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, SiteArgs, pulumi.ResourceOptions]]:
    here = f"{__name__}:RecordingSite"
    monkeypatch.setattr("gpufleet.components.sites.SITES", {**SITES, "alicloud": here, "tencentcloud": here})
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION", "ALICLOUD_REGION", "TENCENTCLOUD_REGION"):
        monkeypatch.delenv(variable, raising=False)
    RecordingSite.built.clear()
    return RecordingSite.built


def _resolve(output: pulumi.Output[Any], into: dict[str, Any], key: str) -> None:
    output.apply(lambda value: into.__setitem__(key, value))


def test_an_alibaba_only_fleet_builds_one_alibaba_site_and_no_aws(
    run_pulumi: Runner, recording: list[tuple[str, SiteArgs, pulumi.ResourceOptions]]
) -> None:
    raw = {
        "environment": "dev",
        "tags": TAGS,
        "budget": {"monthly": 3600, "currency": "CNY"},
        "pools": {"ali": ALI_POOL},
        "network": {"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"}}},
    }
    spec = parse_fleet(raw, source="test")
    outputs: dict[str, Any] = {}

    def build() -> None:
        config = pulumi.runtime.config.CONFIG.get()
        config.pop("aws:region", None)
        pulumi.runtime.set_config("alicloud:region", "cn-hangzhou")
        fleet = HybridGpuFleet("gpufleet-cn", spec)
        for key in ("key_arn", "bucket_name", "pool_groups", "pool_queues", "pool_roles", "site_key_ids"):
            _resolve(getattr(fleet, key), outputs, key)
        _resolve(fleet.pool_asg_names, outputs, "pool_asg_names")
        _resolve(fleet.regional_key_arns, outputs, "regional_key_arns")

    mocks = run_pulumi(build)
    assert len(recording) == 1
    name, args, opts = recording[0]
    assert name == "gpufleet-cn-alicloud-cn-hangzhou"
    assert args.plan == SitePlan(
        cloud="alicloud", region="cn-hangzhou", home=True, pools=("ali",), vpc_cidr="10.60.0.0/16"
    )
    assert (args.fleet, args.stack, args.peers, args.home) == ("gpufleet-cn", "gpufleet/test", (), None)
    assert args.tags == {**TAGS, "env": "dev", "gpufleet:stack": "gpufleet/test"}
    assert args.spec is spec
    assert isinstance(opts.parent, HybridGpuFleet)
    # No AWS: not one AWS resource, not one AWS invoke.
    assert [r.type for r in mocks.registrations] == ["gpufleet:fleet:HybridGpuFleet"]
    assert mocks.calls == []
    assert outputs == {
        "key_arn": "key-cn-hangzhou",
        "bucket_name": "bucket-cn-hangzhou",
        "pool_groups": {"ali": ["ali-spot", "ali-od"]},
        "pool_queues": {"ali": "ali-queue"},
        "pool_roles": {"ali": "ali-role"},
        "site_key_ids": {"alicloud:cn-hangzhou": "key-cn-hangzhou"},
        "pool_asg_names": {},
        "regional_key_arns": {},
    }


def test_a_mixed_fleet_hands_each_site_its_plan_peers_and_home(
    run_pulumi: Runner, recording: list[tuple[str, SiteArgs, pulumi.ResourceOptions]]
) -> None:
    raw = {
        "environment": "dev",
        "tags": TAGS,
        "budget": {"monthly": 5000},
        "pools": {
            "train": AWS_POOL,
            "ali": ALI_POOL,
            "ali-sh": {**ALI_POOL, "region": "cn-shanghai"},
            "tc": TC_POOL,
        },
        "network": {
            "regions": {
                "alicloud:cn-hangzhou": {"vpc_cidr": "10.60.0.0/16"},
                "alicloud:cn-shanghai": {"vpc_cidr": "10.61.0.0/16"},
                "tencentcloud:ap-guangzhou": {"vpc_cidr": "10.70.0.0/16"},
            }
        },
    }
    spec = parse_fleet(raw, source="test")
    outputs: dict[str, Any] = {}

    def build() -> None:
        pulumi.runtime.set_config("alicloud:region", "cn-hangzhou")
        pulumi.runtime.set_config("tencentcloud:region", "ap-guangzhou")
        fleet = HybridGpuFleet("gpufleet-dev", spec)
        _resolve(fleet.pool_groups, outputs, "pool_groups")
        _resolve(fleet.pool_asg_names, outputs, "pool_asg_names")
        _resolve(fleet.site_key_ids, outputs, "site_key_ids")

    mocks = run_pulumi(build)
    hangzhou = SitePlan(
        cloud="alicloud", region="cn-hangzhou", home=True, pools=("ali",), vpc_cidr="10.60.0.0/16"
    )
    shanghai = SitePlan(
        cloud="alicloud", region="cn-shanghai", home=False, pools=("ali-sh",), vpc_cidr="10.61.0.0/16"
    )
    guangzhou = SitePlan(
        cloud="tencentcloud", region="ap-guangzhou", home=True, pools=("tc",), vpc_cidr="10.70.0.0/16"
    )
    assert [(name, args.plan) for name, args, _ in recording] == [
        ("gpufleet-dev-alicloud-cn-hangzhou", hangzhou),
        ("gpufleet-dev-alicloud-cn-shanghai", shanghai),
        ("gpufleet-dev-tencentcloud-ap-guangzhou", guangzhou),
    ]
    # A cloud's home learns its other sites; each other site gets its home, built before it.
    home_args, second_args, tencent_args = (args for _, args, _ in recording)
    assert (home_args.peers, home_args.home) == ((shanghai,), None)
    assert second_args.peers == () and isinstance(second_args.home, RecordingSite)
    assert second_args.home.outputs.region == "cn-hangzhou"
    assert (tencent_args.peers, tencent_args.home) == ((), None)
    # The AWS pool is built by the AWS site as before; Alibaba and Tencent pools are not AWS's.
    asg = mocks.one("aws:autoscaling/group:Group", "gpufleet-dev-pool-train-asg")
    assert asg.inputs["region"] == "us-east-1"
    assert [r.name for r in mocks.of_type("gpufleet:pools:GpuPool")] == ["gpufleet-dev-pool-train"]
    assert outputs["pool_groups"] == {
        "train": ["gpufleet-dev-pool-train-asg-0a1b2c3"],  # the mocks' physical name
        "ali": ["ali-spot", "ali-od"],
        "ali-sh": ["ali-sh-spot", "ali-sh-od"],
        "tc": ["tc-spot", "tc-od"],
    }
    assert outputs["pool_asg_names"] == {"train": "gpufleet-dev-pool-train-asg-0a1b2c3"}
    assert set(outputs["site_key_ids"]) == {
        "aws:us-east-1",
        "alicloud:cn-hangzhou",
        "alicloud:cn-shanghai",
        "tencentcloud:ap-guangzhou",
    }


def test_the_program_runs_an_alibaba_only_stack_without_aws_region(
    run_pulumi: Runner, recording: list[tuple[str, SiteArgs, pulumi.ResourceOptions]]
) -> None:
    raw = {
        "environment": "dev",
        "tags": TAGS,
        "budget": {"monthly": 3600, "currency": "CNY"},
        "pools": {"ali": ALI_POOL},
        "network": {"regions": {"alicloud:cn-beijing": {"vpc_cidr": "10.60.0.0/16"}}},
    }
    exports: dict[str, Any] = {}

    def program() -> None:
        pulumi.runtime.config.CONFIG.get().pop("aws:region", None)
        pulumi.runtime.set_config("alicloud:region", "cn-beijing")
        pulumi.runtime.set_config("gpufleet:fleet", json.dumps(raw))
        original = pulumi.export
        pulumi.export = exports.__setitem__  # type: ignore[assignment]
        try:
            runpy.run_path(str(ROOT / "infra" / "__main__.py"), run_name="__main__")
        finally:
            pulumi.export = original

    mocks = run_pulumi(program)
    assert [args.plan.key for _, args, _ in recording] == ["alicloud:cn-beijing"]
    assert mocks.calls == []  # no aws.get_caller_identity, no AWS invoke at all
    assert [r.type for r in mocks.registrations] == ["gpufleet:fleet:HybridGpuFleet"]
    assert {"pool_groups", "pool_queues", "pool_roles", "site_key_ids"} <= set(exports)


def test_the_aws_sites_return_what_links_and_the_baseline_need(run_pulumi: Runner) -> None:
    import yaml

    raw = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]["gpufleet:fleet"]
    spec = parse_fleet(raw, source="test")
    resolved: dict[str, Any] = {}
    fleets: list[HybridGpuFleet] = []

    def build() -> None:
        fleet = HybridGpuFleet("gpufleet-prod", spec)
        fleets.append(fleet)
        for key, site in fleet.sites.items():
            _resolve(site.key_id, resolved, f"{key} key")
            if site.bucket_name is not None:
                _resolve(site.bucket_name, resolved, f"{key} bucket")
            if site.vpc_id is not None:
                _resolve(site.vpc_id, resolved, f"{key} vpc")

    run_pulumi(build)
    sites = fleets[0].sites
    assert list(sites) == ["aws:us-east-1", "aws:us-west-2"]
    home, west = sites["aws:us-east-1"], sites["aws:us-west-2"]
    assert (home.cloud, home.region, home.currency, home.vpc_cidr) == (
        "aws",
        "us-east-1",
        "USD",
        "10.41.0.0/16",
    )
    assert (west.region, west.vpc_cidr) == ("us-west-2", "10.42.0.0/16")
    # The home holds the budget; the west site holds the replica and its pool.
    assert home.budget_name is not None and west.budget_name is None
    assert sorted(home.pools) == ["inference-a10g", "train-a100"]
    assert sorted(west.pools) == ["burst-a10g-west"]
    assert resolved == {
        "aws:us-east-1 key": "arn:aws:kms:us-east-1:123456789012:key/gpufleet-prod-key-key-key-id",
        "aws:us-east-1 bucket": "gpufleet-prod-storage-bucket-0a1b2c3",
        "aws:us-east-1 vpc": "gpufleet-prod-network-vpc-id",
        "aws:us-west-2 key": "arn:aws:kms:us-west-2:123456789012:key/gpufleet-prod-us-west-2-key-key-key-id",
        "aws:us-west-2 bucket": "gpufleet-prod-us-west-2-storage-bucket-0a1b2c3",
        "aws:us-west-2 vpc": "gpufleet-prod-us-west-2-network-vpc-id",
    }


def test_every_site_is_a_component_with_a_burst_publisher(
    run_pulumi: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fleet reads ``burst_publisher`` off a home site through the contract: the AWS sites are
    components like the others, and a site without a publisher says ``None``."""
    import yaml

    from gpufleet.components import fleet as fleet_module
    from gpufleet.components.sites.tencentcloud import TencentSite

    for cloud in SITES:
        assert issubclass(cast("type", site_factory(cloud)), pulumi.ComponentResource), cloud
    assert TencentSite.burst_publisher is None
    built: list[Site] = []

    def recording(cloud: Cloud) -> SiteFactory:
        def build(name: str, args: SiteArgs, opts: pulumi.ResourceOptions) -> Site:
            site = site_factory(cloud)(name, args, opts)
            built.append(site)
            return site

        return build

    monkeypatch.setattr(fleet_module, "site_factory", recording)
    raw = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]["gpufleet:fleet"]
    spec = parse_fleet(raw, source="test")
    run_pulumi(lambda: HybridGpuFleet("gpufleet-prod", spec))
    assert [type(site).__name__ for site in built] == ["AwsSite", "AwsSite"]
    assert [site.outputs.region for site in built] == ["us-east-1", "us-west-2"]
    # prod gates no pool: no publisher, and none ever on the second region's site.
    assert [site.burst_publisher for site in built] == [None, None]
