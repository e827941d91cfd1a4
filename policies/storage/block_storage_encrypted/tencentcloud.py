"""Tencent Cloud volume carriers (CVM instances and launch templates, CBS disks, AS launch
configurations, TKE node pools) for GF-STOR-008.

Tencent Cloud has no account-level default, and the SDK has no system-disk encryption input for
several carriers (`UNREADABLE_SYSTEM_DISK`): those system disks are recorded as not judged.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.policies.props import as_list, get
from gpufleet.policies.rule import CannotTell, not_judged
from gpufleet.policies.storage.block_storage_encrypted._disks import Carrier, Disk, data_disks, flag

TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_STORAGE = "tencentcloud:Cbs/storage:Storage"
TC_STORAGE_SET = "tencentcloud:Cbs/storageSet:StorageSet"
TC_LAUNCH_TEMPLATE = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

VOLUME_CARRIERS = frozenset(
    {TC_INSTANCE, TC_STORAGE, TC_STORAGE_SET, TC_LAUNCH_TEMPLATE, TC_SCALING_CONFIG, TC_NODE_POOL}
)

REMEDIATION = (
    "dataDisks[].encrypt = true (TKE node pools: autoScalingConfig.dataDisks[].encrypt) and Cbs storage "
    "encrypt = true."
)


def disks(kind: str, props: Any) -> Carrier | None:
    """(label, disks) of a Tencent Cloud volume carrier; None for another type."""
    if kind in (TC_INSTANCE, TC_LAUNCH_TEMPLATE):
        label = "CVM instance" if kind == TC_INSTANCE else "CVM launch template"
        return label, data_disks(props, "encrypt")
    if kind == TC_NODE_POOL:
        scaling = get(props, "autoScalingConfig")
        found = [
            Disk(f"data disk #{i} (autoScalingConfig.dataDisks[].encrypt)", flag(disk, "encrypt"))
            for i, disk in enumerate(as_list(get(scaling, "dataDisks") if scaling is not None else None))
        ]
        return "TKE node pool", found
    if kind in (TC_STORAGE, TC_STORAGE_SET):
        return "CBS disk", [Disk("disk (encrypt)", flag(props, "encrypt"))]
    if kind == TC_SCALING_CONFIG:
        return (
            "AS launch configuration",
            [
                Disk(f"data disk #{i} (AS launch configurations cannot encrypt data disks)", False)
                for i, _ in enumerate(as_list(get(props, "dataDisks")))
            ],
        )
    return None


# Carriers whose system disk the SDK gives no encryption input: (field read, what it is).
UNREADABLE_SYSTEM_DISK = {
    TC_INSTANCE: "systemDiskType",
    TC_LAUNCH_TEMPLATE: "systemDisk",
    TC_SCALING_CONFIG: "systemDiskType",
    TC_NODE_POOL: "autoScalingConfig.systemDiskType",
}


def system_disk_unreadable(resource: PolicyResource, label: str) -> None:
    """Record a system disk as not judged: there is no input that says whether it is encrypted."""
    field = UNREADABLE_SYSTEM_DISK[resource.resource_type]
    reason = (
        f"the encryption of its system disk ({field}): the Tencent Cloud provider has no system-disk "
        "encryption input for this resource and Tencent Cloud has no account-level default, so "
        "whether the disk is encrypted depends on the image; use an image with an encrypted system "
        "disk and keep data on encrypted CBS volumes"
    )
    not_judged(resource.urn, CannotTell(reason, field), f"{label} '{resource.name}'")
