"""GF-IAM-001: no Allow statement with a wildcard action (`*`, `service:*`).

Judged on every identity document (see `policies.iam.sources`): AWS IAM policies and inline role
policies, Alibaba RAM policies, Tencent CAM policies and policy versions. An Allow with `NotAction`
grants every action but the listed ones, so it counts as a wildcard too. Resource policies (bucket
and key policies) belong to the storage and key rules.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.documents import is_wildcard_action
from policies.iam import sources
from policies.rule import GfResourcePolicy, Rule, judges

RULE = Rule(
    id="GF-IAM-001",
    name="no-wildcard-actions",
    description="No Allow statement with a wildcard action (`*`, `service:*`).",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "List the actions the workload needs instead of `*` or `service:*`, and replace Allow+NotAction "
        "with an explicit action list: AWS aws.iam.Policy/RolePolicy `policy` and Role `inlinePolicies`; "
        "Alibaba alicloud.ram.Policy `policyDocument`; Tencent tencentcloud.cam.Policy `document`."
    ),
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#grant-least-privilege",
    checkov=("CKV_AWS_1", "CKV_AWS_62", "CKV_AWS_63"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in sources.IDENTITY and args.resource_type != sources.AWS_ROLE:
        return
    for place, statement in sources.allow_statements(args, report):
        if statement.not_actions:
            excluded = ", ".join(repr(a) for a in statement.not_actions)
            report(
                f"{place} allows every action except {excluded} (Allow with NotAction); "
                "list the allowed actions instead",
                None,
            )
            continue
        wildcards = [action for action in statement.actions if is_wildcard_action(action)]
        if wildcards:
            listed = ", ".join(repr(a) for a in wildcards)
            report(f"{place} allows wildcard action {listed}; grant named actions only", None)


POLICY = GfResourcePolicy(RULE, validate, judges(sources.IDENTITY, sources.AWS_ROLE))
