"""Alibaba Cloud volume carriers (ECS instances, disks, launch templates, instance sets, ESS scaling
configurations, ACK node pools) and the ECS account default, for GF-STOR-008."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import get, is_set, truthy
from gpufleet.policies.storage.block_storage_encrypted._disks import Carrier, Disk, data_disks, flag

ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_DISK = "alicloud:ecs/disk:Disk"
ALI_ECS_DISK = "alicloud:ecs/ecsDisk:EcsDisk"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_LAUNCH_TEMPLATE = "alicloud:ecs/launchTemplate:LaunchTemplate"
ALI_ECS_LAUNCH_TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_ENCRYPTION_BY_DEFAULT = "alicloud:ecs/diskEncryptionByDefault:DiskEncryptionByDefault"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"

VOLUME_CARRIERS = frozenset(
    {
        ALI_INSTANCE,
        ALI_DISK,
        ALI_ECS_DISK,
        ALI_SCALING_CONFIGURATION,
        ALI_LAUNCH_TEMPLATE,
        ALI_ECS_LAUNCH_TEMPLATE,
        ALI_INSTANCE_SET,
        ALI_NODE_POOL,
    }
)

REMEDIATION = (
    "systemDiskEncrypted = true and "
    "dataDisks[].encrypted = true (instances, scaling configurations, ACK node pools; "
    "systemDisk.encrypted on launch templates; encrypted on ecs.Disk), or ecs.DiskEncryptionByDefault."
)
CHECKOV = ("CKV_ALI_7",)


def _encrypts_by_default(props: Mapping[str, Any]) -> bool:
    return truthy(get(props, "encrypted"))


# Account-level defaults that encrypt every new disk of their region, with whether one is on.
DEFAULT_ENCRYPTION = {ALI_ENCRYPTION_BY_DEFAULT: _encrypts_by_default}


def disks(kind: str, props: Any) -> Carrier | None:
    """(label, disks) of an Alibaba Cloud volume carrier; None for another type."""
    if kind in (ALI_INSTANCE, ALI_SCALING_CONFIGURATION):
        label = "ECS instance" if kind == ALI_INSTANCE else "ESS scaling configuration"
        found = []
        if not (
            kind == ALI_INSTANCE
            and is_set(props, "launchTemplateId")
            and get(props, "systemDiskEncrypted") is None
        ):
            found.append(Disk("system disk (systemDiskEncrypted)", flag(props, "systemDiskEncrypted")))
        return label, found + data_disks(props, "encrypted")
    if kind == ALI_NODE_POOL:
        system = Disk("system disk (systemDiskEncrypted)", flag(props, "systemDiskEncrypted"))
        return "ACK node pool", [system, *data_disks(props, "encrypted")]
    if kind in (ALI_DISK, ALI_ECS_DISK):
        return "ECS disk", [Disk("disk (encrypted)", flag(props, "encrypted"))]
    if kind in (ALI_LAUNCH_TEMPLATE, ALI_ECS_LAUNCH_TEMPLATE):
        system_disk = get(props, "systemDisk")
        disk = Disk(
            "system disk (systemDisk.encrypted)", system_disk is not None and flag(system_disk, "encrypted")
        )
        return "ECS launch template", [disk, *data_disks(props, "encrypted")]
    if kind == ALI_INSTANCE_SET:
        system = Disk("system disk (EcsInstanceSet has no system-disk encryption input)", False)
        return "ECS instance set", [system, *data_disks(props, "encrypted")]
    return None
