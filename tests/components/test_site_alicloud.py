"""AlicloudSite run directly from a hand-built SitePlan: one provider for the region, every concern
under it, the contract's outputs, the BYOK first deploy and the spec errors Alibaba Cloud has."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpufleet.components.sites import SITES, SiteError, site_factory
from gpufleet.components.sites.alicloud import AlicloudSite
from tests.components.alicloud_builders import FLEET, REGION, SPEC, build_site, plan_of, site_args, spec_of
from tests.components.conftest import RecordingMocks, Runner

P = f"{FLEET}-{REGION}"


def run_site(run_pulumi: Runner, **kwargs: Any) -> tuple[RecordingMocks, AlicloudSite]:
    holder: list[AlicloudSite] = []
    mocks = run_pulumi(lambda: holder.append(build_site(**kwargs)))
    return mocks, holder[0]


def resolved_outputs(run_pulumi: Runner) -> tuple[AlicloudSite, dict[str, Any]]:
    """The site and its outputs' values, read while the program runs."""
    holder: list[AlicloudSite] = []
    values: dict[str, Any] = {}

    def keep(name: str, output: pulumi.Output[Any] | None) -> None:
        if output is not None:
            output.apply(lambda value: values.__setitem__(name, value))

    def build() -> None:
        site = build_site()
        holder.append(site)
        out = site.outputs
        keep("key_id", out.key_id)
        keep("bucket_name", out.bucket_name)
        keep("vpc_id", out.vpc_id)
        keep("route_table_ids", out.route_table_ids)
        pool = out.pools["a10"]
        keep("queue", pool.queue)
        keep("group", pool.groups[0])
        keep("role", pool.role)

    run_pulumi(build)
    return holder[0], values


def test_the_dispatch_names_this_class() -> None:
    assert SITES["alicloud"] == "gpufleet.components.sites.alicloud:AlicloudSite"
    assert site_factory("alicloud") is AlicloudSite


def test_children_are_the_concerns_under_one_provider(run_pulumi: Runner) -> None:
    mocks, _ = run_site(run_pulumi)
    components = sorted((r.type, r.name) for r in mocks.registrations if not r.custom)
    assert components == [
        ("gpufleet:audit:AlicloudAudit", f"{P}-audit"),
        ("gpufleet:identity:PoolIdentity", f"{P}-pool-a10"),
        ("gpufleet:keys:AlicloudKey", f"{P}-key"),
        ("gpufleet:network:AlicloudNetwork", f"{P}-network"),
        ("gpufleet:pools:AlicloudGpuPool", f"{P}-pool-a10"),
        ("gpufleet:sites:AlicloudSite", f"{FLEET}-alicloud-{REGION}"),
        ("gpufleet:storage:OssCheckpointBucket", f"{P}-checkpoints"),
    ]
    [provider] = mocks.of_type("pulumi:providers:alicloud")
    assert provider.name == f"{FLEET}-alicloud-{REGION}-provider"
    assert provider.inputs["region"] == REGION
    # No resource of another cloud, and no AWS config read.
    assert {r.type.split(":")[0] for r in mocks.custom()} == {"alicloud", "pulumi"}
    switch = mocks.one("alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus", f"{P}-session-manager")
    assert switch.inputs == {"sessionManagerStatusName": "sessionManagerStatus", "status": "Enabled"}
    # The spec's 0.0.0.0/0-free network: no security group rule at all.
    assert mocks.of_type("alicloud:ecs/securityGroupRule:SecurityGroupRule") == []


def test_every_alibaba_resource_uses_the_site_provider(run_pulumi: Runner) -> None:
    resources: list[pulumi.Resource] = []

    def keep(args: pulumi.ResourceTransformationArgs) -> None:
        resources.append(args.resource)

    holder: list[AlicloudSite] = []
    mocks = run_pulumi(
        lambda: holder.append(
            AlicloudSite("site", site_args(), pulumi.ResourceOptions(transformations=[keep]))
        )
    )
    provider = holder[0].outputs.provider
    custom = [r for r in resources if isinstance(r, pulumi.CustomResource) and r is not provider]
    assert (
        len(custom) == len(mocks.custom()) - 1 == 42
    )  # with the pool's drain hook, protection policy and its attachment, and per backlog band (four)
    # a scaling rule and an alarm (the first band's alarm is the former queue alarm)
    # Each child's provider is resolved from its parent chain: the site's, for its region.
    assert {id(r._provider) for r in custom} == {id(provider)}


def test_the_regional_session_switch_survives_the_stack(run_pulumi: Runner) -> None:
    """The switch is one per region: destroying this fleet must not turn it off for the others."""
    options: dict[str, pulumi.ResourceOptions] = {}

    def keep(args: pulumi.ResourceTransformationArgs) -> None:
        options[args.name] = args.opts

    run_pulumi(lambda: AlicloudSite("site", site_args(), pulumi.ResourceOptions(transformations=[keep])))
    switches = [name for name in options if name.endswith("-session-manager")]
    assert len(switches) == 1
    assert options[switches[0]].retain_on_delete is True
    # Nothing else of the site is retained: the bucket, key and pools go with the stack.
    assert [n for n, o in options.items() if o.retain_on_delete] == switches


def test_outputs_follow_the_contract(run_pulumi: Runner) -> None:
    site, values = resolved_outputs(run_pulumi)
    out = site.outputs
    assert (out.cloud, out.region, out.currency, out.vpc_cidr) == ("alicloud", REGION, "CNY", "10.60.0.0/16")
    assert out.provider is not None
    assert list(out.pools) == ["a10"]
    assert values == {
        "key_id": f"{P}-key-key-id",
        "bucket_name": f"{P}-checkpoints-bucket-0a1b2c3",
        "vpc_id": f"{P}-network-vpc-id",
        "route_table_ids": [f"vtb-{P}-network-vpc"],
        "queue": f"{P}-a10",
        "group": f"{P}-pool-a10-group-id",
        "role": f"acs:ram::1234567890123456:role/{P}-a10",
    }


def test_pending_byok_builds_the_key_alone(run_pulumi: Runner) -> None:
    spec = spec_of(storage={"checkpoints": {"encryption": "byok", "byok_material": "pending"}})
    mocks, site = run_site(run_pulumi, spec=spec)
    assert sorted((r.type, r.name) for r in mocks.custom()) == [
        ("alicloud:kms/alias:Alias", f"{P}-key-alias"),
        ("alicloud:kms/key:Key", f"{P}-key-key"),
        ("pulumi:providers:alicloud", f"{FLEET}-alicloud-{REGION}-provider"),
    ]
    assert mocks.one("alicloud:kms/key:Key", f"{P}-key-key").inputs["origin"] == "EXTERNAL"
    assert site.keys_pending_import is True
    assert (site.outputs.bucket_name, site.outputs.vpc_id, dict(site.outputs.pools)) == (None, None, {})


def test_imported_byok_builds_everything_and_says_so(run_pulumi: Runner) -> None:
    spec = spec_of(storage={"checkpoints": {"encryption": "byok", "byok_material": "imported"}})
    mocks, site = run_site(run_pulumi, spec=spec)
    key = mocks.one("alicloud:kms/key:Key", f"{P}-key-key").inputs
    assert key["tags"]["gpufleet:key-material"] == "imported"
    assert mocks.one("alicloud:ess/scalingGroup:ScalingGroup", f"{P}-pool-a10-group")
    assert site.keys_pending_import is False


def test_a_second_site_has_no_trail(run_pulumi: Runner) -> None:
    mocks, _ = run_site(run_pulumi, plan=plan_of(home=False))
    assert mocks.of_type("alicloud:actiontrail/trail:Trail") == []


def test_prod_keeps_its_capacity_at_night(run_pulumi: Runner) -> None:
    mocks, _ = run_site(run_pulumi, spec=spec_of(environment="prod"))
    assert mocks.of_type("alicloud:ess/scheduledTask:ScheduledTask") == []


def test_existing_vswitches_replace_the_vpc(run_pulumi: Runner) -> None:
    mocks, site = run_site(run_pulumi, plan=plan_of(subnet_ids=("vsw-a", "vsw-b"), vpc_cidr=None))
    assert mocks.of_type("alicloud:vpc/network:Network") == []
    group = mocks.one("alicloud:ess/scalingGroup:ScalingGroup", f"{P}-pool-a10-group").inputs
    assert group["vswitchIds"] == ["vsw-a", "vsw-b"]
    assert site.outputs.vpc_cidr is None
    assert site.outputs.route_table_ids is None


def test_a_site_without_pools_has_no_network(run_pulumi: Runner) -> None:
    mocks, site = run_site(run_pulumi, plan=plan_of(pools=()))
    assert mocks.of_type("alicloud:vpc/network:Network") == []
    assert mocks.of_type("alicloud:ess/scalingGroup:ScalingGroup") == []
    assert site.outputs.vpc_id is None


@pytest.mark.parametrize(
    ("spec_changes", "words"),
    [
        (
            {"storage": {"checkpoints": {"encryption": "byok", "byok_material": "config"}}},
            "storage.checkpoints.byok_material: config is not available on Alibaba Cloud",
        ),
        ({"pool": {"queue": {"name": "jobs"}}}, "pools.a10.queue: name and arn name SQS queues"),
        (
            {"pools": {"a-pool-name-that-is-long-enough-to-break": SPEC["pools"]["a10"]}},
            "pools.a-pool-name-that-is-long-enough-to-break: the pool's ESS and RAM names",
        ),
    ],
)
def test_what_alibaba_cannot_build_is_a_site_error_naming_the_field(
    run_pulumi: Runner, spec_changes: dict[str, Any], words: str
) -> None:
    spec = spec_of(**spec_changes)
    plan = plan_of(pools=tuple(spec.pools))
    with pytest.raises(SiteError, match=words):
        run_pulumi(lambda: build_site(spec=spec, plan=plan))


def test_a_plan_for_another_cloud_is_refused(run_pulumi: Runner) -> None:
    with pytest.raises(SiteError, match="AlicloudSite builds alicloud sites only"):
        run_pulumi(lambda: build_site(plan=plan_of(cloud="aws", region="us-east-1")))


def test_a_plan_naming_a_pool_of_another_cloud_is_refused(run_pulumi: Runner) -> None:
    spec = spec_of(pool={"cloud": "aws", "instance_types": ["g5.xlarge"], "region": None, "off_hours": None})
    with pytest.raises(
        SiteError,
        match=r"pools\.a10: the alicloud:cn-hangzhou site builds Alibaba Cloud pools only; it is a pool of "
        r"aws",
    ):
        run_pulumi(lambda: build_site(spec=spec))
    with pytest.raises(SiteError, match=r"pools\.nope: .* it is not in the spec"):
        run_pulumi(lambda: build_site(plan=plan_of(pools=("nope",))))


TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"


def test_the_default_image_is_tagged_x86_64(run_pulumi: Runner) -> None:
    """The looked-up Alibaba Cloud Linux 3 image (its name says x64) is tagged for GF-FIT-003."""
    mocks, _ = run_site(run_pulumi)
    template = mocks.one(TEMPLATE, f"{P}-pool-a10-template").inputs
    assert template["tags"]["gpufleet:image-arch"] == "x86_64"
    assert "gpufleet:image-arch" not in template["templateTags"]


@pytest.mark.parametrize(
    ("image", "arch"),
    [
        ({"id": "m-bp1g7004ksh0oeuc1234", "arch": "arm64"}, "arm64"),
        ({"id": "ubuntu_22_04_arm64_20G_alibase_20240130.vhd"}, "arm64"),
        ({"id": "ubuntu_22_04_x64_20G_alibase_20240130.vhd"}, "x86_64"),
        ({"id": "m-bp1g7004ksh0oeuc1234"}, None),
    ],
)
def test_a_named_image_boots_the_pool_with_its_architecture(
    run_pulumi: Runner, image: dict[str, str], arch: str | None
) -> None:
    mocks, _ = run_site(run_pulumi, spec=spec_of(pool={"image": image}))
    template = mocks.one(TEMPLATE, f"{P}-pool-a10-template").inputs
    assert template["imageId"] == image["id"]
    assert template["tags"].get("gpufleet:image-arch") == arch
