"""Alibaba Cloud KMS: the key and alias type tokens, and what the key rules say of Alibaba keys.

A `kms.Key` tells imported material by its `origin` input (`ORIGIN_DEFAULTS`: the origin assumed when
the input is unset). Read by the neutral key code through `cloud_parts("gpufleet.policies.kms")`.
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs

from gpufleet.policies.props import get

ALI_KEY = "alicloud:kms/key:Key"
ALI_ALIAS = "alicloud:kms/alias:Alias"

KEY_TYPES = frozenset({ALI_KEY})
ALIAS_TARGET = {ALI_ALIAS: ("aliasName", "keyId")}
# Key types whose `origin` input says whether the material is imported, with the origin when unset.
ORIGIN_DEFAULTS = {ALI_KEY: "Aliyun_KMS"}

# GF-KMS-001.
ROTATION_REMEDIATION = "set automaticRotation = 'Enabled' (and rotationInterval) on alicloud.kms.Key."


def judge_rotation(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """`automaticRotation` Enabled on a symmetric key with provider-generated material."""
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


ROTATION_JUDGES = {ALI_KEY: judge_rotation}
