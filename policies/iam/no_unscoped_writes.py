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

from gpufleet.policies.documents import covered_actions
from gpufleet.policies.iam import sources
from gpufleet.policies.iam.resource_scope import reaching
from gpufleet.policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

RULE = Rule(
    id="GF-IAM-002",
    name="no-unscoped-writes",
    description=(
        "No Allow of write or permissions-management actions on `Resource: *` where the action supports "
        "resource-level scoping."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Name the resources in `Resource` (bucket and object ARNs, key ARNs, role ARNs, log group ARNs; "
        "`acs:oss:*:*:bucket/*` on Alibaba, `qcs::cos:...` on Tencent) for write and permissions actions; "
        "keep `*` only for actions without resource-level scoping. A pattern that covers a whole service or "
        "type (`arn:aws:s3:::*/*`, `arn:aws:iam::<account>:role/*`, `acs:ecs:*:*:instance/*`) is not a "
        "scope: name a bucket, a path or the resources themselves."
    ),
    url="https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html",
    checkov=("CKV_AWS_355", "CKV_AWS_290", "CKV_AWS_289"),
)

_SHOWN = 5


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in sources.IDENTITY and args.resource_type != sources.AWS_ROLE:
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


POLICY = GfResourcePolicy(RULE, validate, judges(sources.IDENTITY, sources.AWS_ROLE))
