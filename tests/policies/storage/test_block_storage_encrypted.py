from __future__ import annotations

from collections.abc import Mapping

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.storage.block_storage_encrypted import POLICY, RULE
from gpufleet.policies.storage.block_storage_encrypted.alicloud import (
    ALI_DISK,
    ALI_ECS_DISK,
    ALI_ECS_LAUNCH_TEMPLATE,
    ALI_ENCRYPTION_BY_DEFAULT,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATE,
    ALI_SCALING_CONFIGURATION,
)
from gpufleet.policies.storage.block_storage_encrypted.aws import (
    AWS_ENCRYPTION_BY_DEFAULT,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_VOLUME,
)
from gpufleet.policies.storage.block_storage_encrypted.tencentcloud import (
    TC_INSTANCE,
    TC_LAUNCH_TEMPLATE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
    TC_STORAGE,
    TC_STORAGE_SET,
)

from .helpers import UNKNOWN, NotApplicable, provider, res, run_stack


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-STOR-008", "block-storage-encrypted")
    assert RULE.checkov == ("CKV_AWS_8", "CKV_AWS_3", "CKV_ALI_7")


def compliant() -> list[PolicyResource]:
    return [
        res(
            AWS_INSTANCE,
            "i",
            {
                "rootBlockDevice": {"encrypted": True},
                "ebsBlockDevices": [{"deviceName": "/dev/sdf", "encrypted": True}],
            },
        ),
        res(AWS_VOLUME, "v", {"encrypted": True}),
        res(
            AWS_LAUNCH_TEMPLATE,
            "lt",
            {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "true"}}]},
        ),
        res(AWS_LAUNCH_CONFIGURATION, "lc", {"rootBlockDevice": {"encrypted": True}}),
        res(
            ALI_INSTANCE,
            "ai",
            {"systemDiskEncrypted": True, "dataDisks": [{"size": 100, "encrypted": True}]},
        ),
        res(ALI_ECS_DISK, "ad", {"encrypted": True}),
        res(ALI_SCALING_CONFIGURATION, "asc", {"systemDiskEncrypted": True}),
        res(
            ALI_ECS_LAUNCH_TEMPLATE,
            "alt",
            {"systemDisk": {"encrypted": True}, "dataDisks": [{"encrypted": True}]},
        ),
        res(TC_STORAGE, "ts", {"encrypt": True}),
    ]


def test_compliant_baseline_every_type() -> None:
    assert run_stack(POLICY, compliant()) == []


def _system_disk_unjudged(label: str, field: str) -> str:
    return (
        f"{label} could not be judged: the encryption of its system disk ({field}): the Tencent Cloud "
        "provider has no system-disk encryption input for this resource and Tencent Cloud has no "
        "account-level default, so whether the disk is encrypted depends on the image; use an image with "
        "an encrypted system disk and keep data on encrypted CBS volumes"
    )


def test_tencent_system_disks_are_reported_as_not_judged_never_passed() -> None:
    """The SDK has no system-disk encryption input on these four: a silent pass would be a lie."""
    carriers = [
        res(TC_INSTANCE, "ti", {"dataDisks": [{"dataDiskSize": 100, "encrypt": True}]}),
        res(TC_LAUNCH_TEMPLATE, "tlt", {"dataDisks": [{"encrypt": True}]}),
        res(TC_SCALING_CONFIG, "tsc", {"systemDiskType": "CLOUD_BSSD"}),
        res(TC_NODE_POOL, "tnp", {"autoScalingConfig": {"dataDisks": [{"encrypt": True}]}}),
    ]
    assert run_stack(POLICY, carriers) == [
        (_system_disk_unjudged("CVM instance 'ti'", "systemDiskType"), carriers[0].urn),
        (_system_disk_unjudged("CVM launch template 'tlt'", "systemDisk"), carriers[1].urn),
        (_system_disk_unjudged("AS launch configuration 'tsc'", "systemDiskType"), carriers[2].urn),
        (_system_disk_unjudged("TKE node pool 'tnp'", "autoScalingConfig.systemDiskType"), carriers[3].urn),
    ]


def test_tencent_data_disk_violation_and_unjudged_system_disk_both_reported() -> None:
    instance = res(TC_INSTANCE, "ti", {"dataDisks": [{"encrypt": False}]})
    assert run_stack(POLICY, [instance]) == [
        (
            "CVM instance 'ti' has an unencrypted data disk #0 (dataDisks[].encrypt); encrypt it or enable "
            "the account's default volume encryption",
            instance.urn,
        ),
        (_system_disk_unjudged("CVM instance 'ti'", "systemDiskType"), instance.urn),
    ]


@pytest.mark.parametrize(
    ("kind", "props", "message"),
    [
        (
            AWS_INSTANCE,
            {"rootBlockDevice": {"encrypted": False}},
            "EC2 instance 'x' has an unencrypted root volume (rootBlockDevice.encrypted); encrypt it or "
            "enable the "
            "account's default volume encryption",
        ),
        (
            AWS_INSTANCE,
            {},
            "EC2 instance 'x' has an unencrypted root volume (no rootBlockDevice sets encrypted); encrypt "
            "it or "
            "enable the account's default volume encryption",
        ),
        (
            AWS_VOLUME,
            {"size": 100},
            "EBS volume 'x' has an unencrypted volume (encrypted); encrypt it or enable the account's "
            "default "
            "volume encryption",
        ),
        (
            AWS_LAUNCH_TEMPLATE,
            {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "false"}}]},
            "EC2 launch template 'x' has an unencrypted volume /dev/xvda (ebs.encrypted); encrypt it or "
            "enable the "
            "account's default volume encryption",
        ),
        (
            AWS_LAUNCH_CONFIGURATION,
            {"rootBlockDevice": {"encrypted": True}, "ebsBlockDevices": [{"deviceName": "/dev/sdb"}]},
            "EC2 launch configuration 'x' has an unencrypted EBS volume /dev/sdb "
            "(ebsBlockDevices[].encrypted); "
            "encrypt it or enable the account's default volume encryption",
        ),
        (
            ALI_INSTANCE,
            {"systemDiskEncrypted": True, "dataDisks": [{"encrypted": False}]},
            "ECS instance 'x' has an unencrypted data disk #0 (dataDisks[].encrypted); encrypt it or enable "
            "the "
            "account's default volume encryption",
        ),
        (
            ALI_SCALING_CONFIGURATION,
            {},
            "ESS scaling configuration 'x' has an unencrypted system disk (systemDiskEncrypted); encrypt it "
            "or "
            "enable the account's default volume encryption",
        ),
        (
            ALI_LAUNCH_TEMPLATE,
            {},
            "ECS launch template 'x' has an unencrypted system disk (systemDisk.encrypted); encrypt it or "
            "enable "
            "the account's default volume encryption",
        ),
        (
            ALI_DISK,
            {"size": 20},
            "ECS disk 'x' has an unencrypted disk (encrypted); encrypt it or enable the account's default "
            "volume "
            "encryption",
        ),
        (
            TC_STORAGE_SET,
            {"encrypt": False},
            "CBS disk 'x' has an unencrypted disk (encrypt); encrypt it or enable the account's default "
            "volume "
            "encryption",
        ),
    ],
)
def test_negatives(kind: str, props: Mapping[str, object], message: str) -> None:
    resource = res(kind, "x", props)
    assert run_stack(POLICY, [resource]) == [(message, resource.urn)]


def test_scaling_config_data_disks_cannot_be_encrypted() -> None:
    config = res(TC_SCALING_CONFIG, "x", {"dataDisks": [{"diskSize": 100}]})
    assert run_stack(POLICY, [config]) == [
        (
            "AS launch configuration 'x' has an unencrypted data disk #0 (AS launch configurations cannot "
            "encrypt data disks); encrypt it or enable the account's default volume encryption",
            config.urn,
        ),
        (_system_disk_unjudged("AS launch configuration 'x'", "systemDiskType"), config.urn),
    ]


def test_instance_root_from_launch_template_is_not_judged() -> None:
    assert run_stack(POLICY, [res(AWS_INSTANCE, "i", {"launchTemplate": {"id": UNKNOWN}})]) == []


def test_account_default_encryption_covers_its_region() -> None:
    east, west = provider("aws", "us-east-1"), provider("aws", "us-west-2", "west")
    default = res(AWS_ENCRYPTION_BY_DEFAULT, "ebd", {"enabled": True}, prov=east)
    covered = res(AWS_VOLUME, "v1", {}, prov=east)
    other_region = res(AWS_VOLUME, "v2", {}, prov=west)
    alicloud = res(ALI_DISK, "d", {})
    found = run_stack(POLICY, [default, covered, other_region, alicloud])
    assert [urn for _, urn in found] == [other_region.urn, alicloud.urn]
    ali_default = res(ALI_ENCRYPTION_BY_DEFAULT, "aed", {"encrypted": True})
    assert run_stack(POLICY, [ali_default, alicloud, res(ALI_INSTANCE_SET, "set", {})]) == []


def test_disabled_account_default_does_not_cover() -> None:
    default = res(AWS_ENCRYPTION_BY_DEFAULT, "ebd", {"enabled": False})
    volume = res(AWS_VOLUME, "v", {})
    assert [urn for _, urn in run_stack(POLICY, [default, volume])] == [volume.urn]


def test_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [res("aws:s3/bucket:Bucket", "b")])


def test_unknown_and_proxy() -> None:
    volume = res(AWS_VOLUME, "v", {"encrypted": UNKNOWN})
    found = run_stack(POLICY, [volume], proxy=True)
    assert [(m.startswith("could not be judged at preview"), u) for m, u in found] == [(True, volume.urn)]
