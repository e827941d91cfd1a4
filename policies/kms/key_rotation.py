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

from gpufleet.policies.kms._keys import (
    ALI_KEY,
    AWS_EXTERNAL_KEY,
    AWS_KEY,
    AWS_REPLICA_EXTERNAL_KEY,
    AWS_REPLICA_KEY,
    TC_EXTERNAL_KEY,
    TC_KEY,
)
from gpufleet.policies.props import get, is_set, truthy
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

RULE = Rule(
    id="GF-KMS-001",
    name="kms-key-rotation",
    description=(
        "KMS keys with provider-generated material have rotation enabled (not applicable to imported "
        "material)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "AWS: set enableKeyRotation = true on aws.kms.Key (optionally rotationPeriodInDays). Alibaba Cloud: "
        "set automaticRotation = 'Enabled' (and rotationInterval) on alicloud.kms.Key. Tencent Cloud: set "
        "keyRotationEnabled = true on tencentcloud.kms.Key."
    ),
    url="https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html",
    checkov=("CKV_AWS_7",),
)

IMPORTED = {
    AWS_EXTERNAL_KEY: "AWS KMS external key",
    AWS_REPLICA_EXTERNAL_KEY: "AWS KMS replica external key",
    TC_EXTERNAL_KEY: "Tencent KMS external key",
}


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind, name = args.resource_type, args.name
    if kind in IMPORTED:
        args.not_applicable(f"{IMPORTED[kind]} '{name}' holds imported key material; rotation does not apply")
    if kind == AWS_REPLICA_KEY:
        args.not_applicable(f"AWS KMS replica key '{name}' rotates with its primary key")
    judge = _BY_TYPE.get(kind)
    if judge is not None:
        judge(args, report)


def _aws_key(args: ResourceValidationArgs, report: ReportViolation) -> None:
    props, name = args.props, args.name
    spec = get(props, "customerMasterKeySpec")
    if spec is not None and str(spec) != "SYMMETRIC_DEFAULT":
        args.not_applicable(f"AWS KMS key '{name}' has spec {spec}, which AWS does not rotate automatically")
    if is_set(props, "customKeyStoreId") or is_set(props, "xksKeyId"):
        args.not_applicable(f"AWS KMS key '{name}' is in a custom key store, which AWS does not rotate")
    if not truthy(get(props, "enableKeyRotation")):
        report(f"AWS KMS key '{name}' does not rotate (enableKeyRotation is not true); enable rotation", None)


def _alicloud_key(args: ResourceValidationArgs, report: ReportViolation) -> None:
    props, name = args.props, args.name
    origin = get(props, "origin")
    if isinstance(origin, str) and origin.upper() == "EXTERNAL":
        args.not_applicable(f"Alibaba KMS key '{name}' has origin EXTERNAL (imported material)")
    spec = get(props, "keySpec")
    if isinstance(spec, str) and spec.upper().startswith(("RSA", "EC_")):
        args.not_applicable(
            f"Alibaba KMS key '{name}' is asymmetric ({spec}); it cannot rotate automatically"
        )
    rotation = get(props, "automaticRotation")
    if str(rotation or "Disabled").lower() != "enabled":
        report(
            f"Alibaba KMS key '{name}' has automaticRotation {rotation or 'unset (Disabled)'}; set it to "
            "Enabled",
            None,
        )


def _tencent_key(args: ResourceValidationArgs, report: ReportViolation) -> None:
    props, name = args.props, args.name
    usage = get(props, "keyUsage")
    if isinstance(usage, str) and usage.upper().startswith("ASYMMETRIC"):
        args.not_applicable(
            f"Tencent KMS key '{name}' is asymmetric ({usage}); Tencent KMS rotates only symmetric keys"
        )
    if truthy(get(props, "keyRotationEnabled")):
        return
    report(
        f"Tencent KMS key '{name}' does not rotate (keyRotationEnabled is not true); enable rotation",
        None,
    )


_BY_TYPE: dict[str, Callable[[ResourceValidationArgs, ReportViolation], None]] = {
    AWS_KEY: _aws_key,
    ALI_KEY: _alicloud_key,
    TC_KEY: _tencent_key,
}


POLICY = GfResourcePolicy(RULE, validate, judges(IMPORTED, AWS_REPLICA_KEY, AWS_KEY, ALI_KEY, TC_KEY))
