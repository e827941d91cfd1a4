"""AWS volume carriers (EC2 instances, spot requests, EBS volumes, launch templates and
configurations, Batch compute environments) and the EBS account default, for GF-STOR-008."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import as_list, get, is_set, truthy
from gpufleet.policies.storage.block_storage_encrypted._disks import Carrier, Disk, flag

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_VOLUME = "aws:ebs/volume:Volume"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_ENCRYPTION_BY_DEFAULT = "aws:ebs/encryptionByDefault:EncryptionByDefault"
AWS_BATCH_COMPUTE = "aws:batch/computeEnvironment:ComputeEnvironment"

VOLUME_CARRIERS = frozenset(
    {
        AWS_INSTANCE,
        AWS_SPOT_REQUEST,
        AWS_VOLUME,
        AWS_LAUNCH_TEMPLATE,
        AWS_LAUNCH_CONFIGURATION,
        AWS_BATCH_COMPUTE,
    }
)

REMEDIATION = (
    "set encrypted = true on rootBlockDevice, ebsBlockDevices[] and ebs.Volume, "
    "blockDeviceMappings[].ebs.encrypted = 'true' on launch templates, or enable "
    "aws.ebs.EncryptionByDefault in the region; give a Batch compute environment a launch template "
    "with encrypted blockDeviceMappings."
)
URL = "https://docs.aws.amazon.com/ebs/latest/userguide/ebs-encryption.html"
CHECKOV = ("CKV_AWS_8", "CKV_AWS_3")


def _encrypts_by_default(props: Mapping[str, Any]) -> bool:
    enabled = get(props, "enabled")
    return enabled is None or truthy(enabled)


# Account-level defaults that encrypt every new volume of their region, with whether one is on.
DEFAULT_ENCRYPTION = {AWS_ENCRYPTION_BY_DEFAULT: _encrypts_by_default}


def _instance_like(props: Mapping[str, Any], root_from_template: bool) -> list[Disk]:
    disks = []
    roots = as_list(get(props, "rootBlockDevice"))
    if roots:
        disks.append(Disk("root volume (rootBlockDevice.encrypted)", flag(roots[0], "encrypted")))
    elif not root_from_template:
        disks.append(Disk("root volume (no rootBlockDevice sets encrypted)", False))
    for i, device in enumerate(as_list(get(props, "ebsBlockDevices"))):
        if truthy(get(device, "noDevice")):
            continue
        name = get(device, "deviceName") or f"#{i}"
        disks.append(Disk(f"EBS volume {name} (ebsBlockDevices[].encrypted)", flag(device, "encrypted")))
    return disks


def _batch_disks(props: Mapping[str, Any]) -> list[Disk]:
    """A managed EC2/SPOT environment without a launch template runs the image's default root volume."""
    if str(get(props, "type") or "MANAGED").upper() == "UNMANAGED":
        return []
    resources = get(props, "computeResources")
    if resources is None or str(get(resources, "type") or "").upper().startswith("FARGATE"):
        return []
    if is_set(resources, "launchTemplate"):
        return []
    return [Disk("root volume (no computeResources.launchTemplate with encrypted volumes)", False)]


def disks(kind: str, props: Any) -> Carrier | None:
    """(label, disks) of an AWS volume carrier; None for another type."""
    if kind in (AWS_INSTANCE, AWS_SPOT_REQUEST):
        label = "EC2 instance" if kind == AWS_INSTANCE else "EC2 spot instance request"
        return label, _instance_like(props, is_set(props, "launchTemplate"))
    if kind == AWS_LAUNCH_CONFIGURATION:
        return "EC2 launch configuration", _instance_like(props, False)
    if kind == AWS_BATCH_COMPUTE:
        return "Batch compute environment", _batch_disks(props)
    if kind == AWS_VOLUME:
        return "EBS volume", [Disk("volume (encrypted)", flag(props, "encrypted"))]
    if kind == AWS_LAUNCH_TEMPLATE:
        mappings = [m for m in as_list(get(props, "blockDeviceMappings")) if get(m, "ebs") is not None]
        if not mappings:
            return "EC2 launch template", [Disk("root volume (no blockDeviceMappings[].ebs)", False)]
        return (
            "EC2 launch template",
            [
                Disk(
                    f"volume {get(m, 'deviceName') or f'#{i}'} (ebs.encrypted)",
                    flag(get(m, "ebs"), "encrypted"),
                )
                for i, m in enumerate(mappings)
            ],
        )
    return None
