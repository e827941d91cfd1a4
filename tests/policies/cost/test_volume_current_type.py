from __future__ import annotations

from pulumi_policy import EnforcementLevel

from gpufleet.policies.cost.volume_current_type import POLICY, RULE

from .helpers import UNKNOWN_STR, check_resource


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, POLICY.enforcement_level) == (
        "GF-COST-009",
        "volumes-current-generation-type",
        EnforcementLevel.ADVISORY,
    )


def test_current_types_pass_per_cloud() -> None:
    assert check_resource(POLICY, "aws:ebs/volume:Volume", {"type": "gp3"}) == []
    assert check_resource(POLICY, "aws:ebs/volume:Volume", {"type": "io2"}) == []
    assert (
        check_resource(
            POLICY,
            "aws:ec2/launchTemplate:LaunchTemplate",
            {"blockDeviceMappings": [{"ebs": {"volumeType": "gp3", "encrypted": "true"}}]},
        )
        == []
    )
    assert check_resource(POLICY, "aws:ec2/instance:Instance", {}) == []  # type comes from the AMI
    assert (
        check_resource(
            POLICY,
            "alicloud:ecs/instance:Instance",
            {"systemDiskCategory": "cloud_essd", "dataDisks": [{"category": "cloud_essd"}]},
        )
        == []
    )
    assert check_resource(POLICY, "tencentcloud:Cbs/storage:Storage", {"storageType": "CLOUD_BSSD"}) == []
    assert (
        check_resource(POLICY, "tencentcloud:Instance/instance:Instance", {"systemDiskType": "CLOUD_PREMIUM"})
        == []
    )


def test_legacy_types_per_cloud() -> None:
    assert check_resource(POLICY, "aws:ebs/volume:Volume", {}, name="data") == [
        "aws:ebs/volume:Volume 'data' uses the legacy volume type gp2 (the provider default) at "
        "`type`; use gp3"
    ]
    assert check_resource(
        POLICY,
        "aws:ec2/launchTemplate:LaunchTemplate",
        {"blockDeviceMappings": [{"ebs": {"volumeType": "io1"}}]},
        name="lt",
    ) == [
        "aws:ec2/launchTemplate:LaunchTemplate 'lt' uses the legacy volume type io1 at "
        "`blockDeviceMappings[0].ebs.volumeType`; use io2 (or gp3)"
    ]
    assert check_resource(
        POLICY, "aws:ec2/instance:Instance", {"rootBlockDevice": {"volumeType": "standard"}}, name="box"
    ) == [
        "aws:ec2/instance:Instance 'box' uses the legacy volume type standard at "
        "`rootBlockDevice.volumeType`; "
        "use gp3"
    ]
    assert check_resource(
        POLICY,
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        {"systemDiskCategory": "cloud_essd", "dataDisks": [{"category": "cloud_ssd"}]},
        name="cfg",
    ) == [
        "alicloud:ess/scalingConfiguration:ScalingConfiguration 'cfg' uses the legacy volume type "
        "cloud_ssd at "
        "`dataDisks[0].category`; use cloud_essd"
    ]
    assert check_resource(POLICY, "alicloud:ecs/disk:Disk", {}, name="d") == [
        "alicloud:ecs/disk:Disk 'd' uses the legacy volume type cloud_efficiency (the provider default) at "
        "`category`; use cloud_essd"
    ]
    assert check_resource(
        POLICY,
        "tencentcloud:As/scalingConfig:ScalingConfig",
        {"systemDiskType": "CLOUD_PREMIUM", "dataDisks": [{"diskType": "CLOUD_BASIC"}]},
        name="cfg",
    ) == [
        "tencentcloud:As/scalingConfig:ScalingConfig 'cfg' uses the legacy volume type CLOUD_BASIC at "
        "`dataDisks[0].diskType`; use CLOUD_SSD (or CLOUD_PREMIUM)"
    ]
    # CLOUD_BSSD is a current type for a CVM disk, but the provider refuses it on an AS launch
    # configuration (above), so the advice differs by resource.
    assert check_resource(
        POLICY, "tencentcloud:Instance/instance:Instance", {"systemDiskType": "CLOUD_BASIC"}, name="vm"
    ) == [
        "tencentcloud:Instance/instance:Instance 'vm' uses the legacy volume type CLOUD_BASIC at "
        "`systemDiskType`; use CLOUD_BSSD (or CLOUD_PREMIUM)"
    ]


def test_not_applicable_and_unknown_with_proxy() -> None:
    assert (
        check_resource(POLICY, "aws:s3/bucket:Bucket", {}) == "n/a: aws:s3/bucket:Bucket has no volume type"
    )
    assert check_resource(POLICY, "aws:ebs/volume:Volume", {"type": UNKNOWN_STR}, proxy=True) == [
        "could not be judged at preview: the string value at .type can't be known during preview"
    ]
