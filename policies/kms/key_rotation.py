"""GF-KMS-001: KMS keys with provider-generated material have rotation enabled.

- AWS `kms.Key`: `enableKeyRotation` true. Not applicable to keys that cannot rotate automatically:
  asymmetric and HMAC keys (`customerMasterKeySpec` other than SYMMETRIC_DEFAULT) and keys in a
  custom key store (`customKeyStoreId`, `xksKeyId`). `kms.ExternalKey` and `kms.ReplicaExternalKey`
  hold imported material (rotation does not apply); `kms.ReplicaKey` follows its primary key.
- Alibaba Cloud `kms.Key`: `automaticRotation` "Enabled". Not applicable with `origin` EXTERNAL or an
  asymmetric `keySpec` (RSA_*, EC_*).
- Tencent Cloud `Kms.Key`: `keyRotationEnabled` true. Not applicable to asymmetric keys (`keyUsage`
  ASYMMETRIC_*), which Tencent KMS does not rotate. `Kms.ExternalKey` holds imported material.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import part_merged
from gpufleet.policies.kms._keys import PARTS
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole

RULE = Rule(
    id="GF-KMS-001",
    name="kms-key-rotation",
    description=(
        "KMS keys with provider-generated material have rotation enabled (not applicable to imported "
        "material)."
    ),
    clouds=clouds_with(PARTS, "ROTATION_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=by_cloud_name(PARTS, "ROTATION_REMEDIATION"),
    url=sole(PARTS, "ROTATION_URL"),
    checkov=chained(PARTS, "ROTATION_CHECKOV"),
)

# Keys holding imported material (rotation does not apply), by how findings name them.
IMPORTED: dict[str, str] = part_merged(PARTS, "ROTATION_IMPORTED")
# Keys that rotate with another key, with why rotation does not apply to them.
FOLLOWS: dict[str, str] = part_merged(PARTS, "ROTATION_FOLLOWS")
# Each cloud's judgement of its own key type (`judge_rotation` in the cloud's module).
_BY_TYPE: dict[str, Callable[[ResourceValidationArgs, ReportViolation], None]] = part_merged(
    PARTS, "ROTATION_JUDGES"
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind, name = args.resource_type, args.name
    if kind in IMPORTED:
        args.not_applicable(f"{IMPORTED[kind]} '{name}' holds imported key material; rotation does not apply")
    if kind in FOLLOWS:
        args.not_applicable(FOLLOWS[kind].format(name=name))
    judge = _BY_TYPE.get(kind)
    if judge is not None:
        judge(args, report)


POLICY = GfResourcePolicy(RULE, validate, judges(IMPORTED, FOLLOWS, _BY_TYPE))
