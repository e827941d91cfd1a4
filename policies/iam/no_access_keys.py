"""GF-IAM-005: no long-lived access keys are created (use roles and temporary credentials).

Judged: `aws:iam/accessKey:AccessKey`, `alicloud:ram/accessKey:AccessKey`,
`tencentcloud:Cam/accessKey:AccessKey`. An inactive key still exists and can be switched on, so it
fails too. Console passwords (`aws:iam/userLoginProfile`, `alicloud:ram/loginProfile`) are not access
keys and are not judged here.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.props import get_ref, is_unknown
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

AWS_ACCESS_KEY = "aws:iam/accessKey:AccessKey"
ALI_ACCESS_KEY = "alicloud:ram/accessKey:AccessKey"
TC_ACCESS_KEY = "tencentcloud:Cam/accessKey:AccessKey"

# token -> (label, prop naming the owner)
_KEYS = {
    AWS_ACCESS_KEY: ("IAM access key", "user"),
    ALI_ACCESS_KEY: ("RAM access key", "userName"),
    TC_ACCESS_KEY: ("CAM access key", "targetUin"),
}

RULE = Rule(
    id="GF-IAM-005",
    name="no-access-keys",
    description="No long-lived access keys are created (use roles and temporary credentials).",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Remove aws.iam.AccessKey / alicloud.ram.AccessKey / tencentcloud.cam.AccessKey and give the "
        "workload a role instead (EC2 instance profile, EKS IRSA/Pod Identity, Alibaba RAM role on the "
        "instance, Tencent CAM role on the CVM) so it receives temporary credentials."
    ),
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#bp-workloads-use-roles",
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
