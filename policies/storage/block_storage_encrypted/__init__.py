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

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union
from gpufleet.policies.context import resource_region
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage.block_storage_encrypted._disks import Disk

# Each cloud's carriers, defaults and readers, in its module of this package (`aws`, `alicloud`, ...).
PARTS = cloud_parts(__name__)

VOLUME_CARRIERS = part_union(PARTS, "VOLUME_CARRIERS")
# Account-level defaults: type -> (cloud, whether the resource turns the default on).
_DEFAULTS = {
    kind: (cloud, check)
    for cloud, part in PARTS.items()
    for kind, check in getattr(part, "DEFAULT_ENCRYPTION", {}).items()
}
# Carriers whose system disk no input describes, by the field that would.
UNREADABLE_SYSTEM_DISK: dict[str, str] = part_merged(PARTS, "UNREADABLE_SYSTEM_DISK")

RULE = Rule(
    id="GF-STOR-008",
    name="block-storage-encrypted",
    description="Block storage (root and data volumes, launch-template disks) is encrypted.",
    clouds=clouds_with(PARTS, "REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=by_cloud_name(PARTS, "REMEDIATION"),
    url=sole(PARTS, "URL"),
    checkov=chained(PARTS, "CHECKOV"),
)


def _disks(resource: PolicyResource) -> tuple[str, str, list[Disk]]:
    """(cloud, label, disks) of a volume carrier, as its cloud's module reads them."""
    kind = resource.resource_type
    for cloud, part in PARTS.items():
        found = part.disks(kind, resource.props)
        if found is not None:
            label, disks = found
            return cloud, label, disks
    raise ValueError(f"{kind} carries no volume")


def _defaults(resources: list[PolicyResource]) -> dict[str, list[str | None]]:
    """Regions (None = not known) where an account-level default encrypts new volumes, per cloud."""
    found: dict[str, list[str | None]] = {}
    for resource in resources:
        default = _DEFAULTS.get(resource.resource_type)
        if default is not None and default[1](resource.props):
            found.setdefault(default[0], []).append(resource_region(resource.props, resource.provider))
    return found


def _system_disk_unreadable(resource: PolicyResource, label: str) -> None:
    """Record the system disk as not judged, as the carrier's cloud explains it."""
    part = part_of(PARTS, resource.resource_type)
    if part is not None:
        part.system_disk_unreadable(resource, label)


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
            if resource.resource_type in UNREADABLE_SYSTEM_DISK:
                _system_disk_unreadable(resource, label)

        judge(resource.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(VOLUME_CARRIERS))
