"""GF-COST-009 (advisory): volumes use the current general-purpose type, not legacy ones.

- AWS: `aws:ebs/volume:Volume` `type` (provider default gp2), launch template
  `blockDeviceMappings[].ebs.volumeType`, instance / spot request / launch configuration
  `rootBlockDevice.volumeType` and `ebsBlockDevices[].volumeType`: gp2, standard and io1 should be gp3
  (io2 for provisioned IOPS). Unset types on instances come from the AMI and are not judged.
- Alibaba Cloud: `ecs/disk`, `ecs/ecsDisk` `category`; `ecs/instance`, `ecs/ecsInstanceSet` and
  `ess/scalingConfiguration` `systemDiskCategory` and `dataDisks[].category` (provider default
  cloud_efficiency): cloud, cloud_efficiency and cloud_ssd should be cloud_essd (or cloud_auto).
- Tencent Cloud: `Cbs/storage` `storageType`, `Instance/instance` `systemDiskType` and
  `dataDisks[].dataDiskType`, `As/scalingConfig` `systemDiskType` and `dataDisks[].diskType`:
  CLOUD_BASIC (HDD) should be CLOUD_BSSD or CLOUD_PREMIUM, which are current; on an AS launch
  configuration CLOUD_SSD or CLOUD_PREMIUM, since the provider refuses CLOUD_BSSD there (GF-DEPLOY-001).
  Local disks are part of the instance type and not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.props import as_list, get
from gpufleet.policies.rule import GfResourcePolicy, Judges, Rule

AWS_LEGACY = {"gp2": "gp3", "standard": "gp3", "io1": "io2 (or gp3)"}
ALI_LEGACY = {"cloud": "cloud_essd", "cloud_efficiency": "cloud_essd", "cloud_ssd": "cloud_essd"}
TC_LEGACY = {"CLOUD_BASIC": "CLOUD_BSSD (or CLOUD_PREMIUM)"}
# The provider checks an AS launch configuration's disk types against its allow list, which has no
# CLOUD_BSSD (policies/deploy/overrides.json): the advice there is a type it takes.
TC_AS_LEGACY = {"CLOUD_BASIC": "CLOUD_SSD (or CLOUD_PREMIUM)"}
TC_AS_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"

# token -> [(path, list item key or None, default when unset or None)]
_FIELDS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "aws:ebs/volume:Volume": [("type", None, "gp2")],
    "aws:ec2/launchTemplate:LaunchTemplate": [("blockDeviceMappings", "ebs.volumeType", None)],
    "aws:ec2/instance:Instance": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
    "aws:ec2/spotInstanceRequest:SpotInstanceRequest": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
    "aws:ec2/launchConfiguration:LaunchConfiguration": [
        ("rootBlockDevice.volumeType", None, None),
        ("ebsBlockDevices", "volumeType", None),
    ],
    "alicloud:ecs/disk:Disk": [("category", None, "cloud_efficiency")],
    "alicloud:ecs/ecsDisk:EcsDisk": [("category", None, "cloud_efficiency")],
    "alicloud:ecs/instance:Instance": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
    "alicloud:ecs/ecsInstanceSet:EcsInstanceSet": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
    "tencentcloud:Cbs/storage:Storage": [("storageType", None, None)],
    "tencentcloud:Instance/instance:Instance": [
        ("systemDiskType", None, None),
        ("dataDisks", "dataDiskType", None),
    ],
    TC_AS_CONFIG: [
        ("systemDiskType", None, None),
        ("dataDisks", "diskType", None),
    ],
}

RULE = Rule(
    id="GF-COST-009",
    name="volumes-current-generation-type",
    description=(
        "Volumes use the current general-purpose type (gp3, cloud_essd, CLOUD_BSSD/PREMIUM), not legacy "
        "types."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=(
        "AWS: set `type` / `volumeType` to gp3 (io2 where provisioned IOPS are needed). Alibaba Cloud: "
        "set `category` / `systemDiskCategory` / `dataDisks[].category` to cloud_essd. Tencent Cloud: "
        "set `storageType` / `systemDiskType` / `dataDisks[].dataDiskType` to CLOUD_BSSD or CLOUD_PREMIUM "
        "(an AS launch configuration's `systemDiskType` / `dataDisks[].diskType` to CLOUD_SSD or "
        "CLOUD_PREMIUM: the provider refuses CLOUD_BSSD there)."
    ),
    url="https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html",
)


def _values(args: ResourceValidationArgs) -> Iterator[tuple[str, str, bool]]:
    """(wire path, volume type, taken from the provider default)."""
    for path, item_key, default in _FIELDS[args.resource_type]:
        if item_key is None:
            value = get(args.props, path)
            if value is None and default is not None:
                yield path, default, True
            elif isinstance(value, str):
                yield path, value, False
            continue
        for position, item in enumerate(as_list(get(args.props, path))):
            value = get(item, item_key)
            where = f"{path}[{position}].{item_key}"
            if value is None and default is not None:
                yield where, default, True
            elif isinstance(value, str):
                yield where, value, False


def _no_volume(resource_type: str) -> str:
    return f"{resource_type} has no volume type"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in _FIELDS:
        args.not_applicable(_no_volume(args.resource_type))
    cloud = args.resource_type.split(":", 1)[0]
    legacy = AWS_LEGACY if cloud == "aws" else ALI_LEGACY if cloud == "alicloud" else TC_LEGACY
    if args.resource_type == TC_AS_CONFIG:
        legacy = TC_AS_LEGACY
    for where, value, defaulted in _values(args):
        key = value.upper() if cloud == "tencentcloud" else value.lower()
        if key in legacy:
            origin = " (the provider default)" if defaulted else ""
            report(
                f"{args.resource_type} '{args.name}' uses the legacy volume type {value}{origin} at "
                f"`{where}`; use {legacy[key]}",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, Judges(tokens=frozenset(_FIELDS), others=_no_volume))
