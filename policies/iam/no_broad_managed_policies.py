"""GF-IAM-003: no broad managed policies attached (AdministratorAccess, PowerUserAccess,
Aliyun*FullAccess, Qcloud*FullAccess, ...).

Judged attachments:

- AWS: `policyArn` of `aws:iam/rolePolicyAttachment`, `userPolicyAttachment`, `groupPolicyAttachment`
  and `policyAttachment`; `managedPolicyArns` of `aws:iam/role:Role`; `policyArns` of
  `aws:iam/rolePolicyAttachmentsExclusive`, `userPolicyAttachmentsExclusive`,
  `groupPolicyAttachmentsExclusive`. Only AWS-managed ARNs (`arn:<partition>:iam::aws:policy/...`)
  count: a customer policy that happens to share a name is judged by its document instead.
- Alibaba Cloud: `policyName` of `alicloud:ram/rolePolicyAttachment`, `userPolicyAttachment`,
  `groupPolicyAttachment` when `policyType` is `System`.
- Tencent Cloud: `policyName` of `tencentcloud:Cam/rolePolicyAttachmentByName`. The id-based
  attachments (`Cam/rolePolicyAttachment` etc.) name preset policies by numeric id only, which cannot
  be resolved to a name offline: those are not judged.

`denied_policies` holds case-insensitive name patterns (`*` wildcards). An AWS ARN's name matches
with and without its path (`SystemAdministrator`, `job-function/SystemAdministrator`). The defaults
deny the administrator and power-user policies, every `*FullAccess*` policy (AWS-managed, Alibaba
System, Tencent preset: on Tencent, whose by-name attachment does not say whether the policy is a
preset, a custom policy with such a name counts too), and the administrator job functions.
"""

from __future__ import annotations

import fnmatch
import re

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.props import get, get_ref, is_unknown, plain
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

AWS_ROLE = "aws:iam/role:Role"
AWS_ROLE_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
AWS_USER_ATTACHMENT = "aws:iam/userPolicyAttachment:UserPolicyAttachment"
AWS_GROUP_ATTACHMENT = "aws:iam/groupPolicyAttachment:GroupPolicyAttachment"
AWS_POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
AWS_ROLE_EXCLUSIVE = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
AWS_USER_EXCLUSIVE = "aws:iam/userPolicyAttachmentsExclusive:UserPolicyAttachmentsExclusive"
AWS_GROUP_EXCLUSIVE = "aws:iam/groupPolicyAttachmentsExclusive:GroupPolicyAttachmentsExclusive"
ALI_ROLE_ATTACHMENT = "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"
ALI_USER_ATTACHMENT = "alicloud:ram/userPolicyAttachment:UserPolicyAttachment"
ALI_GROUP_ATTACHMENT = "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment"
TC_ROLE_ATTACHMENT_BY_NAME = "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName"

DEFAULT_DENIED = [
    "AdministratorAccess*",
    "PowerUserAccess",
    "IAMFullAccess",
    "*FullAccess*",
    "Aliyun*FullAccess",
    "Qcloud*FullAccess",
    "job-function/SystemAdministrator",
    "job-function/NetworkAdministrator",
    "job-function/DatabaseAdministrator",
]
"""AWS-managed `*FullAccess` policies (AmazonS3FullAccess, AWSLambda_FullAccess, CloudWatchFullAccessV2,
AmazonDynamoDBFullAccesswithDataPipeline) count as Alibaba's Aliyun*FullAccess and Tencent's
Qcloud*FullAccess do; so do the administrator variants (AdministratorAccess-Amplify) and the
administrator job functions."""

# token -> (label, arn props (single), arn list props)
_AWS: dict[str, tuple[str, str | None, str | None]] = {
    AWS_ROLE: ("IAM role", None, "managedPolicyArns"),
    AWS_ROLE_ATTACHMENT: ("IAM role policy attachment", "policyArn", None),
    AWS_USER_ATTACHMENT: ("IAM user policy attachment", "policyArn", None),
    AWS_GROUP_ATTACHMENT: ("IAM group policy attachment", "policyArn", None),
    AWS_POLICY_ATTACHMENT: ("IAM policy attachment", "policyArn", None),
    AWS_ROLE_EXCLUSIVE: ("IAM role policy attachments", None, "policyArns"),
    AWS_USER_EXCLUSIVE: ("IAM user policy attachments", None, "policyArns"),
    AWS_GROUP_EXCLUSIVE: ("IAM group policy attachments", None, "policyArns"),
}
_ALI = {
    ALI_ROLE_ATTACHMENT: "RAM role policy attachment",
    ALI_USER_ATTACHMENT: "RAM user policy attachment",
    ALI_GROUP_ATTACHMENT: "RAM group policy attachment",
}
_AWS_MANAGED = re.compile(r"^arn:[a-z-]+:iam::aws:policy/(?P<path>(?:.*/)?)(?P<name>[^/]+)$")

RULE = Rule(
    id="GF-IAM-003",
    name="no-broad-managed-policies",
    description=(
        "No broad managed policies attached (AdministratorAccess, PowerUserAccess, Aliyun*FullAccess, "
        "Qcloud*FullAccess, ...)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Attach a least-privilege customer policy instead: AWS aws.iam.RolePolicyAttachment `policyArn` / "
        "Role `managedPolicyArns`; Alibaba alicloud.ram.RolePolicyAttachment with a Custom policy; "
        "Tencent tencentcloud.cam.RolePolicyAttachmentByName with a custom CAM policy."
    ),
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_job-functions.html",
    config={
        "denied_policies": {
            "type": "array",
            "items": {"type": "string"},
            "default": DEFAULT_DENIED,
        }
    },
    checkov=("CKV_AWS_274",),
)


def _denied(name: str, patterns: list[str], path: str = "") -> bool:
    """`name` or, for AWS, `path/name` (`job-function/SystemAdministrator`) matches a pattern."""
    names = [name.lower()] + ([f"{path}{name}".lower()] if path else [])
    return any(fnmatch.fnmatchcase(n, pattern.lower()) for n in names for pattern in patterns)


def _aws_names(props: object, single: str | None, many: str | None) -> list[tuple[str, str]]:
    """(path, name) of every AWS-managed policy ARN given (`job-function/`, `SystemAdministrator`)."""
    arns: list[object] = []
    if single:
        arns.append(get_ref(props, single))
    if many:
        value = plain(get_ref(props, many))
        arns.extend(value if isinstance(value, list) else [])
    names = []
    for arn in arns:
        if not isinstance(arn, str) or is_unknown(arn):
            continue  # an unknown ARN is a customer policy created in the program, not an AWS one
        match = _AWS_MANAGED.match(arn)
        if match:
            names.append((match.group("path"), match.group("name")))
    return names


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    patterns = [str(p) for p in RULE.settings(args)["denied_policies"]]
    props = args.props
    if args.resource_type in _AWS:
        label, single, many = _AWS[args.resource_type]
        names = [n for p, n in _aws_names(props, single, many) if _denied(n, patterns, p)]
    elif args.resource_type in _ALI:
        label = _ALI[args.resource_type]
        system = str(get(props, "policyType") or "").lower() == "system"
        name = get(props, "policyName") if system else None
        names = [name] if isinstance(name, str) and _denied(name, patterns) else []
    elif args.resource_type == TC_ROLE_ATTACHMENT_BY_NAME:
        label = "CAM role policy attachment"
        name = get(props, "policyName")
        names = [name] if isinstance(name, str) and _denied(name, patterns) else []
    else:
        return
    for name in names:
        report(
            f"{label} '{args.name}' attaches the broad managed policy {name!r}; attach a least-privilege "
            "policy instead",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate, judges(_AWS, _ALI, TC_ROLE_ATTACHMENT_BY_NAME))
