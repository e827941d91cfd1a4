"""GF-STOR-008 on the launchers beside instances and templates: AWS Batch compute environments (the
image's root volume unless a launch template gives volumes), ACK node pools (system and data disks)
and TKE node pools (data disks). Each must-fire case has its compliant look-alike."""

from __future__ import annotations

from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.policies.storage.block_storage_encrypted import POLICY
from gpufleet.policies.storage.block_storage_encrypted.alicloud import ALI_NODE_POOL
from gpufleet.policies.storage.block_storage_encrypted.aws import (
    AWS_BATCH_COMPUTE,
    AWS_ENCRYPTION_BY_DEFAULT,
    AWS_LAUNCH_TEMPLATE,
)
from gpufleet.policies.storage.block_storage_encrypted.tencentcloud import TC_NODE_POOL

from .helpers import UNKNOWN, res, run_stack

TAIL = "encrypt it or enable the account's default volume encryption"


def _batch(**compute: Any) -> PolicyResource:
    resources = {"type": "SPOT", "instanceTypes": ["g5"], "maxVcpus": 64, "subnets": ["s-1"], **compute}
    return res(AWS_BATCH_COMPUTE, "batch", {"type": "MANAGED", "computeResources": resources})


def _ack(**props: Any) -> PolicyResource:
    given = {"clusterId": "c-1", "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], **props}
    return res(ALI_NODE_POOL, "ack", given)


def _tke(*disks: dict[str, Any]) -> PolicyResource:
    config = {"instanceType": "GN7.2XLARGE32", "dataDisks": list(disks)}
    return res(
        TC_NODE_POOL, "tke", {"clusterId": "cls-1", "minSize": 0, "maxSize": 2, "autoScalingConfig": config}
    )


def test_batch_without_launch_template_fires() -> None:
    env = _batch()
    assert run_stack(POLICY, [env]) == [
        (
            "Batch compute environment 'batch' has an unencrypted root volume (no "
            f"computeResources.launchTemplate with encrypted volumes); {TAIL}",
            env.urn,
        )
    ]


def test_batch_volumes_are_judged_on_its_launch_template() -> None:
    plain = res(AWS_LAUNCH_TEMPLATE, "tpl", {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {}}]})
    env = _batch(launchTemplate={"launchTemplateId": UNKNOWN})
    assert run_stack(POLICY, [plain, env]) == [
        (f"EC2 launch template 'tpl' has an unencrypted volume /dev/xvda (ebs.encrypted); {TAIL}", plain.urn)
    ]
    sealed = res(
        AWS_LAUNCH_TEMPLATE,
        "tpl",
        {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "true"}}]},
    )
    assert run_stack(POLICY, [sealed, env]) == []


def test_batch_fargate_unmanaged_and_encryption_by_default_pass() -> None:
    fargate = res(
        AWS_BATCH_COMPUTE,
        "fargate",
        {"type": "MANAGED", "computeResources": {"type": "FARGATE", "maxVcpus": 16, "subnets": ["s-1"]}},
    )
    unmanaged = res(AWS_BATCH_COMPUTE, "own", {"type": "UNMANAGED"})
    assert run_stack(POLICY, [fargate, unmanaged]) == []
    default = res(AWS_ENCRYPTION_BY_DEFAULT, "ebs-default", {"enabled": True})
    assert run_stack(POLICY, [default, _batch()]) == []


def test_ack_node_pool_disks() -> None:
    pool = _ack(dataDisks=[{"category": "cloud_essd", "size": 200}])
    assert run_stack(POLICY, [pool]) == [
        (f"ACK node pool 'ack' has an unencrypted system disk (systemDiskEncrypted); {TAIL}", pool.urn),
        (f"ACK node pool 'ack' has an unencrypted data disk #0 (dataDisks[].encrypted); {TAIL}", pool.urn),
    ]
    sealed = _ack(systemDiskEncrypted=True, dataDisks=[{"category": "cloud_essd", "encrypted": "true"}])
    assert run_stack(POLICY, [sealed]) == []


def test_tke_node_pool_data_disks() -> None:
    # Its system disk has no encryption input: reported as not judged, after the data disks.
    unjudged = (
        "TKE node pool 'tke' could not be judged: the encryption of its system disk "
        "(autoScalingConfig.systemDiskType): the Tencent Cloud provider has no system-disk encryption "
        "input for this resource and Tencent Cloud has no account-level default, so whether the disk is "
        "encrypted depends on the image; use an image with an encrypted system disk and keep data on "
        "encrypted CBS volumes"
    )
    pool = _tke({"diskType": "CLOUD_PREMIUM", "diskSize": 100, "encrypt": True}, {"diskType": "CLOUD_SSD"})
    assert run_stack(POLICY, [pool]) == [
        (
            "TKE node pool 'tke' has an unencrypted data disk #1 (autoScalingConfig.dataDisks[].encrypt); "
            f"{TAIL}",
            pool.urn,
        ),
        (unjudged, pool.urn),
    ]
    sealed = _tke({"diskType": "CLOUD_SSD", "encrypt": True})
    assert run_stack(POLICY, [sealed]) == [(unjudged, sealed.urn)]
    bare = _tke()
    assert run_stack(POLICY, [bare]) == [(unjudged, bare.urn)]
