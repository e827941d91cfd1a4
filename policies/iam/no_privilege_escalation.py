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

from gpufleet.components.clouds import cloud_parts, part_of, profile
from gpufleet.policies.documents import Statement, covered_actions
from gpufleet.policies.iam import sources
from gpufleet.policies.iam.resource_scope import reaching
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import clouds_with, rule_checkov, rule_url

# The clouds whose module lists `ESCALATION_ACTIONS` (and `ESCALATION_ON_ANY_RESOURCE`,
# `ESCALATION_REMEDIATION`) are judged; the others' identity documents are not applicable.
PARTS = cloud_parts("gpufleet.policies.iam")
_CLOUDS = clouds_with(PARTS, "ESCALATION_ACTIONS")
_JUDGED_IDENTITY = frozenset(token for cloud in _CLOUDS for token in sources.identity_types(cloud))
_OTHER_IDENTITY = frozenset(sources.IDENTITY_TYPES - _JUDGED_IDENTITY)
_NOT_JUDGED = " and ".join(
    getattr(part, "DOCUMENTS", profile(cloud).name) for cloud, part in PARTS.items() if cloud not in _CLOUDS
)
_ONLY = "/".join(profile(cloud).name for cloud in _CLOUDS)

RULE = Rule(
    id="GF-IAM-006",
    name="no-privilege-escalation",
    description=(
        "No privilege-escalation actions (iam:PassRole on `*`, policy-version and attach actions, ...) "
        "granted to workload roles."
    ),
    clouds=_CLOUDS,
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=" ".join(PARTS[cloud].ESCALATION_REMEDIATION for cloud in _CLOUDS),
    url=rule_url(PARTS, "GF-IAM-006"),
    checkov=rule_checkov(PARTS, "GF-IAM-006"),
)


def _every_resource(statement: Statement, cloud: str, action: str) -> str | None:
    """How the statement reaches every role `action` passes or assumes (`'*'`,
    `'arn:aws:iam::1:role/*'`, `NotResource`), or None when it names roles."""
    if statement.not_resources:
        return "NotResource (every other resource)"
    reached = reaching(statement, cloud, action)
    return ", ".join(repr(pattern) for pattern in reached) if reached else None


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type in _OTHER_IDENTITY:
        args.not_applicable(f"GF-IAM-006 is {_ONLY}-only: {_NOT_JUDGED} documents are not judged")
    part = part_of(PARTS, args.resource_type)
    if args.resource_type not in _JUDGED_IDENTITY or part is None:
        return
    cloud = sources.cloud(args.resource_type)
    for place, statement in sources.allow_statements(args, report):
        granted = covered_actions(statement, part.ESCALATION_ACTIONS)
        for action in covered_actions(statement, part.ESCALATION_ON_ANY_RESOURCE):
            every_role = _every_resource(statement, cloud, action)
            if every_role:
                granted.append(f"{action} on {every_role}")
        if granted:
            report(
                f"{place} grants privilege-escalation actions {', '.join(granted)}; "
                "workload policies must not be able to raise their own privileges",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(_OTHER_IDENTITY, _JUDGED_IDENTITY))
