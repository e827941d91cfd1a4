"""GF-IAM-002: no Allow of write or permissions-management actions on `Resource: *` where the action
supports resource-level scoping.

Judged on every identity document (see `gpufleet.policies.iam.sources`). The actions that accept scoping come
from the curated table in `gpufleet.policies.iam.scoped_actions`; an action pattern (`s3:Put*`) or NotAction
counts when it grants a listed action. A statement's resources count as every resource when their
patterns reach every resource of the kinds the action acts on (see `gpufleet.policies.iam.resource_scope`):
`*`, `arn:*`, `arn:aws:s3:::*/*` for object writes, `arn:aws:logs:*:*:*`,
`arn:aws:iam::123456789012:*`, `arn:*:iam::*:role/*` for role actions, `acs:oss:*:*:*`,
`acs:ecs:*:*:instance/*`, `qcs::cam::uin/1:roleName/*`; `NotResource` counts too. A path, a bucket
or a name (`role/training/*`, `arn:aws:s3:::ckpt/*`) is a scope; so is naming one subnet, image or
security group for `ec2:RunInstances`, which acts on all of them. Conditions
(`aws:ResourceTag/...`) are not read as a scope: a statement on `*` with a tag condition still fails.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.policies.documents import covered_actions
from gpufleet.policies.iam import sources
from gpufleet.policies.iam.resource_scope import reaching
from gpufleet.policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import joined, rule_checkov, rule_url

# Each cloud's module gives the remediation's words: `RESOURCE_NAMES` (what to name) or
# `RESOURCE_EXAMPLE` (a scoped name), and `BROAD_PATTERNS` (patterns that are no scope).
PARTS = cloud_parts("gpufleet.policies.iam")
_BROAD = ", ".join(
    pattern for patterns in part_values(PARTS, "BROAD_PATTERNS").values() for pattern in patterns
)

RULE = Rule(
    id="GF-IAM-002",
    name="no-unscoped-writes",
    description=(
        "No Allow of write or permissions-management actions on `Resource: *` where the action supports "
        "resource-level scoping."
    ),
    clouds=tuple(SCOPED_WRITE_ACTIONS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Name the resources in `Resource` ({joined(PARTS, 'RESOURCE_NAMES', ', ')}; "
        f"{joined(PARTS, 'RESOURCE_EXAMPLE', ', ')}) for write and permissions actions; "
        "keep `*` only for actions without resource-level scoping. A pattern that covers a whole service or "
        f"type ({_BROAD}) is not a scope: name a bucket, a path or the resources themselves."
    ),
    url=rule_url(PARTS, "GF-IAM-002"),
    checkov=rule_checkov(PARTS, "GF-IAM-002"),
)

_SHOWN = 5


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in sources.IDENTITY_TYPES:
        return
    cloud = sources.cloud(args.resource_type)
    table = SCOPED_WRITE_ACTIONS[cloud]
    for place, statement in sources.allow_statements(args, report):
        granted: list[str] = []
        reached: list[str] = []
        for action in covered_actions(statement, table):
            through = ("",) if statement.not_resources else reaching(statement, cloud, action)
            if through:
                granted.append(action)
                reached.extend(pattern for pattern in through if pattern not in reached)
        if not granted:
            continue
        shown = ", ".join(granted[:_SHOWN])
        more = f" and {len(granted) - _SHOWN} more" if len(granted) > _SHOWN else ""
        if statement.not_resources:
            target = "NotResource (every other resource)"
        else:
            target = "Resource " + ", ".join(repr(pattern) for pattern in reached)
        report(
            f"{place} allows {shown}{more} on {target}; these actions accept resource-level scoping: "
            "name the resources",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate, judges(sources.IDENTITY_TYPES))
