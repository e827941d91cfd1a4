"""GF-IAM-006: no privilege-escalation actions granted to workload roles.

AWS only. Judged on every AWS identity document (`aws:iam/policy`, `rolePolicy`, `userPolicy`,
`groupPolicy`, Role `inlinePolicies`): the pack cannot tell a workload's policy from an
administrator's, so an administrator policy that needs these actions takes a per-stack exemption.
The actions are the well-known IAM escalation paths (Rhino Security Labs' list): changing policy
versions and attachments, writing inline policies, minting credentials for other users, editing
trust policies and permission boundaries, joining groups - on any resource - and `iam:PassRole` or
`sts:AssumeRole` on every role: `*`, `NotResource`, or any pattern that reaches every role
(`arn:*`, `arn:aws:iam::<account>:*`, `arn:aws:iam::<account>:role/*`, `arn:*:iam::*:role/*`,
`...:role*`, `...:role/?*`; see `gpufleet.policies.iam.resource_scope`). A path (`role/training/*`) or a
named role is a scope and passes. Patterns (`iam:Put*`, `iam:*`, `*`) and NotAction count
when they grant one of them. Alibaba Cloud and Tencent Cloud documents are not applicable.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.documents import Statement, covered_actions
from gpufleet.policies.iam import sources
from gpufleet.policies.iam.resource_scope import reaching
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

ESCALATION_ACTIONS = (
    "iam:CreatePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:AttachUserPolicy",
    "iam:AttachGroupPolicy",
    "iam:AttachRolePolicy",
    "iam:PutUserPolicy",
    "iam:PutGroupPolicy",
    "iam:PutRolePolicy",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:UpdateLoginProfile",
    "iam:AddUserToGroup",
    "iam:UpdateAssumeRolePolicy",
    "iam:DeleteRolePermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:PutRolePermissionsBoundary",
    "iam:PutUserPermissionsBoundary",
)
ESCALATION_ON_ANY_RESOURCE = ("iam:PassRole", "sts:AssumeRole")

_AWS_IDENTITY = frozenset(
    {
        sources.AWS_POLICY,
        sources.AWS_ROLE_POLICY,
        sources.AWS_USER_POLICY,
        sources.AWS_GROUP_POLICY,
        sources.AWS_ROLE,
    }
)
_OTHER_IDENTITY = frozenset(set(sources.IDENTITY) - _AWS_IDENTITY)

RULE = Rule(
    id="GF-IAM-006",
    name="no-privilege-escalation",
    description=(
        "No privilege-escalation actions (iam:PassRole on `*`, policy-version and attach actions, ...) "
        "granted to workload roles."
    ),
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Remove iam:CreatePolicyVersion, iam:SetDefaultPolicyVersion, iam:Attach*Policy, iam:Put*Policy, "
        "iam:CreateAccessKey, login-profile, group-membership, trust-policy and permissions-boundary "
        "actions from workload policies (aws.iam.Policy/RolePolicy `policy`, Role `inlinePolicies`), and "
        "scope iam:PassRole and sts:AssumeRole to the role ARNs the workload really passes or assumes."
    ),
    url="https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/",
    checkov=("CKV_AWS_286", "CKV_AWS_287"),
)


def _every_resource(statement: Statement, action: str) -> str | None:
    """How the statement reaches every role `action` passes or assumes (`'*'`,
    `'arn:aws:iam::1:role/*'`, `NotResource`), or None when it names roles."""
    if statement.not_resources:
        return "NotResource (every other resource)"
    reached = reaching(statement, "aws", action)
    return ", ".join(repr(pattern) for pattern in reached) if reached else None


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type in _OTHER_IDENTITY:
        args.not_applicable("GF-IAM-006 is AWS-only: Alibaba RAM and Tencent CAM documents are not judged")
    if args.resource_type not in _AWS_IDENTITY:
        return
    for place, statement in sources.allow_statements(args, report):
        granted = covered_actions(statement, ESCALATION_ACTIONS)
        for action in covered_actions(statement, ESCALATION_ON_ANY_RESOURCE):
            every_role = _every_resource(statement, action)
            if every_role:
                granted.append(f"{action} on {every_role}")
        if granted:
            report(
                f"{place} grants privilege-escalation actions {', '.join(granted)}; "
                "workload policies must not be able to raise their own privileges",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(_OTHER_IDENTITY, _AWS_IDENTITY))
