"""GF-STOR-008: block storage (root and data volumes, launch-template disks) is encrypted.

A stack policy, because an account-level default (`aws:ebs/encryptionByDefault:EncryptionByDefault`
enabled; `alicloud:ecs/diskEncryptionByDefault:DiskEncryptionByDefault` encrypted) encrypts every new
volume of its region and so satisfies the rule for that cloud's resources in that region (or in any
region when either region is not known).

- AWS: `ec2.Instance` and `ec2.SpotInstanceRequest` `rootBlockDevice.encrypted` and
  `ebsBlockDevices[].encrypted` (the root device is not judged when a launch template supplies it);
  `ebs.Volume` `encrypted`; `ec2.LaunchTemplate` `blockDeviceMappings[].ebs.encrypted` (a string
  "true"; a template without EBS mappings leaves the image's unencrypted default root volume);
  `ec2.LaunchConfiguration` `rootBlockDevice`/`ebsBlockDevices[]` `encrypted`; a managed EC2/SPOT
  `batch.ComputeEnvironment` without `computeResources.launchTemplate` launches the ECS-optimised
  image's unencrypted root volume (with one, the template's volumes are judged on the template).
- Alibaba Cloud: `ecs.Instance` `systemDiskEncrypted` and `dataDisks[].encrypted`; `ecs.Disk` and
  `ecs.EcsDisk` `encrypted`; `ess.ScalingConfiguration` `systemDiskEncrypted`/`dataDisks[].encrypted`;
  `ecs.LaunchTemplate`/`ecs.EcsLaunchTemplate` `systemDisk.encrypted`/`dataDisks[].encrypted`;
  `ecs.EcsInstanceSet` `dataDisks[].encrypted` (its system disk has no encryption input: only the
  account default encrypts it); `cs.NodePool` (ACK) `systemDiskEncrypted` and `dataDisks[].encrypted`.
- Tencent Cloud: `Instance` `dataDisks[].encrypt`; `Cbs.Storage`/`Cbs.StorageSet` `encrypt`;
  `Cvm.LaunchTemplate` `dataDisks[].encrypt`; `Kubernetes.NodePool` (TKE)
  `autoScalingConfig.dataDisks[].encrypt`. The SDK (tencentcloud-iac-pulumi 0.2.3) has no
  system-disk encryption input for CVM instances, launch templates, AS launch configurations or TKE
  node pools, and Tencent Cloud has no account-level default: each of those resources is reported as
  "could not be judged" for its system disk (advisory, never waived, never a pass), after its data
  disks are judged. `As.ScalingConfig` data disks have no encryption input either, so a launch
  configuration with data disks is reported (use encrypted CBS volumes instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.context import resource_region
from gpufleet.policies.props import as_list, get, is_set, truthy
from gpufleet.policies.rule import CannotTell, GfStackPolicy, Rule, judge, judges, not_judged

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_VOLUME = "aws:ebs/volume:Volume"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_ENCRYPTION_BY_DEFAULT = "aws:ebs/encryptionByDefault:EncryptionByDefault"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_DISK = "alicloud:ecs/disk:Disk"
ALI_ECS_DISK = "alicloud:ecs/ecsDisk:EcsDisk"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_LAUNCH_TEMPLATE = "alicloud:ecs/launchTemplate:LaunchTemplate"
ALI_ECS_LAUNCH_TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_ENCRYPTION_BY_DEFAULT = "alicloud:ecs/diskEncryptionByDefault:DiskEncryptionByDefault"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_STORAGE = "tencentcloud:Cbs/storage:Storage"
TC_STORAGE_SET = "tencentcloud:Cbs/storageSet:StorageSet"
TC_LAUNCH_TEMPLATE = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
AWS_BATCH_COMPUTE = "aws:batch/computeEnvironment:ComputeEnvironment"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

VOLUME_CARRIERS = frozenset(
    {
        AWS_INSTANCE,
        AWS_SPOT_REQUEST,
        AWS_VOLUME,
        AWS_LAUNCH_TEMPLATE,
        AWS_LAUNCH_CONFIGURATION,
        ALI_INSTANCE,
        ALI_DISK,
        ALI_ECS_DISK,
        ALI_SCALING_CONFIGURATION,
        ALI_LAUNCH_TEMPLATE,
        ALI_ECS_LAUNCH_TEMPLATE,
        ALI_INSTANCE_SET,
        TC_INSTANCE,
        TC_STORAGE,
        TC_STORAGE_SET,
        TC_LAUNCH_TEMPLATE,
        TC_SCALING_CONFIG,
        AWS_BATCH_COMPUTE,
        ALI_NODE_POOL,
        TC_NODE_POOL,
    }
)

RULE = Rule(
    id="GF-STOR-008",
    name="block-storage-encrypted",
    description="Block storage (root and data volumes, launch-template disks) is encrypted.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "AWS: set encrypted = true on rootBlockDevice, ebsBlockDevices[] and ebs.Volume, "
        "blockDeviceMappings[].ebs.encrypted = 'true' on launch templates, or enable "
        "aws.ebs.EncryptionByDefault in the region; give a Batch compute environment a launch template "
        "with encrypted blockDeviceMappings. Alibaba Cloud: systemDiskEncrypted = true and "
        "dataDisks[].encrypted = true (instances, scaling configurations, ACK node pools; "
        "systemDisk.encrypted on launch templates; encrypted on ecs.Disk), or ecs.DiskEncryptionByDefault. "
        "Tencent Cloud: "
        "dataDisks[].encrypt = true (TKE node pools: autoScalingConfig.dataDisks[].encrypt) and Cbs storage "
        "encrypt = true."
    ),
    url="https://docs.aws.amazon.com/ebs/latest/userguide/ebs-encryption.html",
    checkov=("CKV_AWS_8", "CKV_AWS_3", "CKV_ALI_7"),
)


@dataclass(frozen=True)
class Disk:
    what: str
    encrypted: bool


def _flag(obj: Any, key: str) -> bool:
    return truthy(get(obj, key))


def _aws_instance_like(props: Mapping[str, Any], root_from_template: bool) -> list[Disk]:
    disks = []
    roots = as_list(get(props, "rootBlockDevice"))
    if roots:
        disks.append(Disk("root volume (rootBlockDevice.encrypted)", _flag(roots[0], "encrypted")))
    elif not root_from_template:
        disks.append(Disk("root volume (no rootBlockDevice sets encrypted)", False))
    for i, device in enumerate(as_list(get(props, "ebsBlockDevices"))):
        if truthy(get(device, "noDevice")):
            continue
        name = get(device, "deviceName") or f"#{i}"
        disks.append(Disk(f"EBS volume {name} (ebsBlockDevices[].encrypted)", _flag(device, "encrypted")))
    return disks


# A volume carrier's cloud, label and disks.
_Carrier = tuple[str, str, list[Disk]]


def _disks(resource: PolicyResource) -> _Carrier:
    props, kind = resource.props, resource.resource_type
    for of_cloud in (_aws_disks, _alicloud_disks, _tencent_disks):
        found = of_cloud(kind, props)
        if found is not None:
            return found
    raise ValueError(f"{kind} carries no volume")


def _aws_disks(kind: str, props: Any) -> _Carrier | None:
    """(cloud, label, disks) of an AWS volume carrier; None for another type."""
    if kind in (AWS_INSTANCE, AWS_SPOT_REQUEST):
        label = "EC2 instance" if kind == AWS_INSTANCE else "EC2 spot instance request"
        return "aws", label, _aws_instance_like(props, is_set(props, "launchTemplate"))
    if kind == AWS_LAUNCH_CONFIGURATION:
        return "aws", "EC2 launch configuration", _aws_instance_like(props, False)
    if kind == AWS_BATCH_COMPUTE:
        return "aws", "Batch compute environment", _batch_disks(props)
    if kind == AWS_VOLUME:
        return "aws", "EBS volume", [Disk("volume (encrypted)", _flag(props, "encrypted"))]
    if kind == AWS_LAUNCH_TEMPLATE:
        mappings = [m for m in as_list(get(props, "blockDeviceMappings")) if get(m, "ebs") is not None]
        if not mappings:
            return "aws", "EC2 launch template", [Disk("root volume (no blockDeviceMappings[].ebs)", False)]
        return (
            "aws",
            "EC2 launch template",
            [
                Disk(
                    f"volume {get(m, 'deviceName') or f'#{i}'} (ebs.encrypted)",
                    _flag(get(m, "ebs"), "encrypted"),
                )
                for i, m in enumerate(mappings)
            ],
        )
    return None


def _alicloud_disks(kind: str, props: Any) -> _Carrier | None:
    """(cloud, label, disks) of an Alibaba Cloud volume carrier; None for another type."""
    if kind in (ALI_INSTANCE, ALI_SCALING_CONFIGURATION):
        label = "ECS instance" if kind == ALI_INSTANCE else "ESS scaling configuration"
        disks = []
        if not (
            kind == ALI_INSTANCE
            and is_set(props, "launchTemplateId")
            and get(props, "systemDiskEncrypted") is None
        ):
            disks.append(Disk("system disk (systemDiskEncrypted)", _flag(props, "systemDiskEncrypted")))
        return "alicloud", label, disks + _data_disks(props, "encrypted")
    if kind == ALI_NODE_POOL:
        system = Disk("system disk (systemDiskEncrypted)", _flag(props, "systemDiskEncrypted"))
        return "alicloud", "ACK node pool", [system, *_data_disks(props, "encrypted")]
    if kind in (ALI_DISK, ALI_ECS_DISK):
        return "alicloud", "ECS disk", [Disk("disk (encrypted)", _flag(props, "encrypted"))]
    if kind in (ALI_LAUNCH_TEMPLATE, ALI_ECS_LAUNCH_TEMPLATE):
        system = get(props, "systemDisk")
        disk = Disk("system disk (systemDisk.encrypted)", system is not None and _flag(system, "encrypted"))
        return "alicloud", "ECS launch template", [disk, *_data_disks(props, "encrypted")]
    if kind == ALI_INSTANCE_SET:
        system = Disk("system disk (EcsInstanceSet has no system-disk encryption input)", False)
        return "alicloud", "ECS instance set", [system, *_data_disks(props, "encrypted")]
    return None


def _tencent_disks(kind: str, props: Any) -> _Carrier | None:
    """(cloud, label, disks) of a Tencent Cloud volume carrier; None for another type."""
    if kind in (TC_INSTANCE, TC_LAUNCH_TEMPLATE):
        label = "CVM instance" if kind == TC_INSTANCE else "CVM launch template"
        return "tencentcloud", label, _data_disks(props, "encrypt")
    if kind == TC_NODE_POOL:
        scaling = get(props, "autoScalingConfig")
        disks = [
            Disk(f"data disk #{i} (autoScalingConfig.dataDisks[].encrypt)", _flag(disk, "encrypt"))
            for i, disk in enumerate(as_list(get(scaling, "dataDisks") if scaling is not None else None))
        ]
        return "tencentcloud", "TKE node pool", disks
    if kind in (TC_STORAGE, TC_STORAGE_SET):
        return "tencentcloud", "CBS disk", [Disk("disk (encrypt)", _flag(props, "encrypt"))]
    if kind == TC_SCALING_CONFIG:
        return (
            "tencentcloud",
            "AS launch configuration",
            [
                Disk(f"data disk #{i} (AS launch configurations cannot encrypt data disks)", False)
                for i, _ in enumerate(as_list(get(props, "dataDisks")))
            ],
        )
    return None


# Tencent carriers whose system disk the SDK gives no encryption input: (field read, what it is).
TC_UNREADABLE_SYSTEM_DISK = {
    TC_INSTANCE: "systemDiskType",
    TC_LAUNCH_TEMPLATE: "systemDisk",
    TC_SCALING_CONFIG: "systemDiskType",
    TC_NODE_POOL: "autoScalingConfig.systemDiskType",
}


def _system_disk_unreadable(resource: PolicyResource, label: str) -> None:
    """Record a Tencent system disk as not judged: there is no input that says whether it is encrypted."""
    field = TC_UNREADABLE_SYSTEM_DISK[resource.resource_type]
    reason = (
        f"the encryption of its system disk ({field}): the Tencent Cloud provider has no system-disk "
        "encryption input for this resource and Tencent Cloud has no account-level default, so "
        "whether the disk is encrypted depends on the image; use an image with an encrypted system "
        "disk and keep data on encrypted CBS volumes"
    )
    not_judged(resource.urn, CannotTell(reason, field), f"{label} '{resource.name}'")


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


def _data_disks(props: Mapping[str, Any], key: str) -> list[Disk]:
    return [
        Disk(f"data disk #{i} (dataDisks[].{key})", _flag(disk, key))
        for i, disk in enumerate(as_list(get(props, "dataDisks")))
    ]


def _defaults(resources: list[PolicyResource]) -> dict[str, list[str | None]]:
    """Regions (None = not known) where an account-level default encrypts new volumes, per cloud."""
    found: dict[str, list[str | None]] = {}
    for resource in resources:
        if resource.resource_type == AWS_ENCRYPTION_BY_DEFAULT:
            enabled = get(resource.props, "enabled")
            if enabled is None or truthy(enabled):
                found.setdefault("aws", []).append(resource_region(resource.props, resource.provider))
        elif resource.resource_type == ALI_ENCRYPTION_BY_DEFAULT and truthy(get(resource.props, "encrypted")):
            found.setdefault("alicloud", []).append(resource_region(resource.props, resource.provider))
    return found


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    defaults: dict[str, list[str | None]] = {}
    judge(None, lambda: defaults.update(_defaults(args.resources)))
    volumes = [r for r in args.resources if r.resource_type in VOLUME_CARRIERS]
    if not volumes:
        args.not_applicable("the stack has no instance, volume, launch template or scaling configuration")
    for resource in volumes:

        def check(resource: PolicyResource = resource) -> None:
            cloud, label, disks = _disks(resource)
            region = resource_region(resource.props, resource.provider)
            covered = defaults.get(cloud, [])
            if any(r is None or region is None or r == region for r in covered):
                return
            for disk in disks:
                if not disk.encrypted:
                    report(
                        f"{label} '{resource.name}' has an unencrypted {disk.what}; encrypt it "
                        "or enable the account's default volume encryption",
                        resource.urn,
                    )
            if resource.resource_type in TC_UNREADABLE_SYSTEM_DISK:
                _system_disk_unreadable(resource, label)

        judge(resource.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(VOLUME_CARRIERS))
