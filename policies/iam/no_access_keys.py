"""GF-IAM-005: no long-lived access keys are created (use roles and temporary credentials).

Judged: `aws:iam/accessKey:AccessKey`, `alicloud:ram/accessKey:AccessKey`,
`tencentcloud:Cam/accessKey:AccessKey`. An inactive key still exists and can be switched on, so it
fails too. Console passwords (`aws:iam/userLoginProfile`, `alicloud:ram/loginProfile`) are not access
keys and are not judged here.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_merged
from gpufleet.policies.props import get_ref, is_unknown
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import clouds_with, joined, rule_checkov, rule_url

# Each cloud's `ACCESS_KEYS` (token -> (label, prop naming the owner)), `ACCESS_KEY_SDK` and
# `WORKLOAD_ROLE` (how the remediation names its key resource and its roles) are in its module.
PARTS = cloud_parts("gpufleet.policies.iam")
_KEYS: dict[str, tuple[str, str]] = part_merged(PARTS, "ACCESS_KEYS")

RULE = Rule(
    id="GF-IAM-005",
    name="no-access-keys",
    description="No long-lived access keys are created (use roles and temporary credentials).",
    clouds=clouds_with(PARTS, "ACCESS_KEYS"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Remove {joined(PARTS, 'ACCESS_KEY_SDK', ' / ')} and give the workload a role instead "
        f"({joined(PARTS, 'WORKLOAD_ROLE', ', ')}) so it receives temporary credentials."
    ),
    url=rule_url(PARTS, "GF-IAM-005"),
    checkov=rule_checkov(PARTS, "GF-IAM-005"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in _KEYS:
        return
    label, owner_prop = _KEYS[args.resource_type]
    owner = get_ref(args.props, owner_prop)
    if isinstance(owner, float) and owner.is_integer():
        owner = int(owner)  # a Tencent sub-account UIN arrives as a float number
    owner_text = "" if owner in (None, "") or is_unknown(owner) else f" for {owner!r}"
    report(
        f"{label} '{args.name}' creates a long-lived access key{owner_text}; use a role with temporary "
        "credentials instead",
        None,
    )


POLICY = GfResourcePolicy(RULE, validate, judges(_KEYS))
