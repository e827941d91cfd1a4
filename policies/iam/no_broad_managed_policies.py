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

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_values
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import clouds_with, joined, rule_checkov, rule_url

# Each cloud's module gives `ATTACHMENTS` (token -> label), `attached_policies` (the (path, name) of
# the managed policies an attachment names), `DENIED_POLICIES` / `DENIED_PATHS` (its default patterns),
# `BROAD_POLICY_EXAMPLES` and `ATTACH_INSTEAD` (the words of the description and remediation).
PARTS = cloud_parts("gpufleet.policies.iam")
_ATTACHMENTS: dict[str, str] = part_merged(PARTS, "ATTACHMENTS")


def _each(attribute: str) -> list[str]:
    return [item for items in part_values(PARTS, attribute).values() for item in items]


DEFAULT_DENIED = [*_each("DENIED_POLICIES"), *_each("DENIED_PATHS")]
"""Each cloud's broad managed policies (AWS's administrator, power-user and `*FullAccess*` policies,
Alibaba's Aliyun*FullAccess, Tencent's Qcloud*FullAccess), then the ones named with a path (the AWS
administrator job functions)."""

RULE = Rule(
    id="GF-IAM-003",
    name="no-broad-managed-policies",
    description=f"No broad managed policies attached ({', '.join(_each('BROAD_POLICY_EXAMPLES'))}, ...).",
    clouds=clouds_with(PARTS, "ATTACHMENTS"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=f"Attach a least-privilege customer policy instead: {joined(PARTS, 'ATTACH_INSTEAD', '; ')}.",
    url=rule_url(PARTS, "GF-IAM-003"),
    config={
        "denied_policies": {
            "type": "array",
            "items": {"type": "string"},
            "default": DEFAULT_DENIED,
        }
    },
    checkov=rule_checkov(PARTS, "GF-IAM-003"),
)


def _denied(name: str, patterns: list[str], path: str = "") -> bool:
    """`name` or, for AWS, `path/name` (`job-function/SystemAdministrator`) matches a pattern."""
    names = [name.lower()] + ([f"{path}{name}".lower()] if path else [])
    return any(fnmatch.fnmatchcase(n, pattern.lower()) for n in names for pattern in patterns)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    patterns = [str(p) for p in RULE.settings(args)["denied_policies"]]
    label = _ATTACHMENTS.get(args.resource_type)
    part = part_of(PARTS, args.resource_type)
    if label is None or part is None:
        return
    attached = part.attached_policies(args.resource_type, args.props)
    names = [name for path, name in attached if _denied(name, patterns, path)]
    for name in names:
        report(
            f"{label} '{args.name}' attaches the broad managed policy {name!r}; attach a least-privilege "
            "policy instead",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate, judges(_ATTACHMENTS))
