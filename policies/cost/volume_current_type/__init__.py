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

from gpufleet.components.clouds import cloud_parts, part_merged, part_of
from gpufleet.policies.cost._clouds import sole
from gpufleet.policies.props import as_list, get
from gpufleet.policies.rule import GfResourcePolicy, Judges, Rule

# Each cloud's volume facts (`volume_current_type/<cloud>.py`): FIELDS (token -> [(path, list item key
# or None, default when unset or None)]), LEGACY (type -> advice), optionally LEGACY_BY_TYPE, and
# `normalise` (the case its types are compared in).
PARTS = cloud_parts(__name__)
_FIELDS: dict[str, list[tuple[str, str | None, str | None]]] = part_merged(PARTS, "FIELDS")

RULE = Rule(
    id="GF-COST-009",
    name="volumes-current-generation-type",
    description=(
        "Volumes use the current general-purpose type (gp3, cloud_essd, CLOUD_BSSD/PREMIUM), not legacy "
        "types."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=" ".join(p.REMEDIATION for p in PARTS.values()),
    url=sole(PARTS, "URL"),
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
    part = part_of(PARTS, args.resource_type)
    if part is None:
        return
    legacy: dict[str, str] = getattr(part, "LEGACY_BY_TYPE", {}).get(args.resource_type, part.LEGACY)
    for where, value, defaulted in _values(args):
        key: str = part.normalise(value)
        if key in legacy:
            origin = " (the provider default)" if defaulted else ""
            report(
                f"{args.resource_type} '{args.name}' uses the legacy volume type {value}{origin} at "
                f"`{where}`; use {legacy[key]}",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, Judges(tokens=frozenset(_FIELDS), others=_no_volume))
