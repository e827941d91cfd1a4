"""Tencent Cloud KMS: the key type tokens, and what the key rules say of Tencent keys.

Read by the neutral key code through `cloud_parts("gpufleet.policies.kms")`.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs

from gpufleet.policies.props import get, truthy

TC_KEY = "tencentcloud:Kms/key:Key"
TC_EXTERNAL_KEY = "tencentcloud:Kms/externalKey:ExternalKey"

KEY_TYPES = frozenset({TC_KEY, TC_EXTERNAL_KEY})
EXTERNAL_TYPES = frozenset({TC_EXTERNAL_KEY})

# GF-KMS-001.
ROTATION_REMEDIATION = "set keyRotationEnabled = true on tencentcloud.kms.Key."
ROTATION_IMPORTED = {TC_EXTERNAL_KEY: "Tencent KMS external key"}


def judge_rotation(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """`keyRotationEnabled` on a symmetric key (Tencent KMS rotates no other)."""
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


ROTATION_JUDGES = {TC_KEY: judge_rotation}
