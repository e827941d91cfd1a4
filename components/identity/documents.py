"""Typed IAM / KMS / S3 policy statements and a linter for them.

Documents are assembled from :class:`Statement` objects rather than hand-written dicts so that every
statement has a Sid, named resources, and passes :func:`lint` (run in the component tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pulumi

# Actions that AWS does not scope to a resource ARN: "*" is the only valid Resource for them.
UNSCOPED_ACTIONS = frozenset(
    {
        "autoscaling:DescribeAutoScalingGroups",
        "autoscaling:DescribeAutoScalingInstances",
        # cluster-autoscaler's reads (Service Authorization Reference: no resource type for any of them).
        "autoscaling:DescribeLaunchConfigurations",
        "autoscaling:DescribeScalingActivities",
        "autoscaling:DescribeTags",
        "ec2:DescribeImages",
        "ec2:DescribeInstanceTypes",
        "ec2:DescribeLaunchTemplateVersions",
        "ec2:GetInstanceTypesFromInstanceRequirements",
        "cloudwatch:PutMetricData",
        "ec2:DescribeTags",
        "ecr:GetAuthorizationToken",
        "logs:DescribeLogGroups",
        "sts:GetCallerIdentity",
        # Session Manager's channels take no resource; AWS's minimal Session Manager policy grants
        # ssm:UpdateInstanceInformation (the instance registering itself) on "*" with them.
        "ssm:UpdateInstanceInformation",
        "ssmmessages:CreateControlChannel",
        "ssmmessages:CreateDataChannel",
        "ssmmessages:OpenControlChannel",
        "ssmmessages:OpenDataChannel",
    }
)

Condition = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Statement:
    """One policy statement. ``principals`` maps a principal kind (AWS, Service) to its values;
    the string ``"*"`` means any principal and is only accepted on Deny statements."""

    sid: str
    actions: Sequence[str]
    effect: Literal["Allow", "Deny"] = "Allow"
    resources: Sequence[pulumi.Input[str]] = ()
    principals: Mapping[str, Sequence[pulumi.Input[str]]] | Literal["*"] | None = None
    conditions: Condition = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"Sid": self.sid, "Effect": self.effect, "Action": list(self.actions)}
        if self.principals == "*":
            doc["Principal"] = "*"
        elif self.principals is not None:
            doc["Principal"] = {kind: list(values) for kind, values in self.principals.items()}
        if self.resources:
            doc["Resource"] = list(self.resources)
        if self.conditions:
            doc["Condition"] = {op: dict(kv) for op, kv in self.conditions.items()}
        return doc


def document(statements: Sequence[Statement], *, endpoint_policy: bool = False) -> pulumi.Output[str]:
    """The JSON policy document, resolving any Output inside the statements. An ``endpoint_policy``
    (a VPC endpoint's) names any principal by design: it limits what passes the endpoint, and the
    caller's own IAM policy still decides what the caller may do."""
    problems = lint(statements, any_principal=endpoint_policy)
    if problems:
        raise ValueError("policy document is not least-privilege:\n  " + "\n  ".join(problems))
    body = {"Version": "2012-10-17", "Statement": [s.to_dict() for s in statements]}
    return pulumi.Output.json_dumps(body)


def lint(statements: Sequence[Statement], *, any_principal: bool = False) -> list[str]:
    """Every least-privilege problem in the statements (empty when the document is acceptable).
    ``any_principal`` accepts Allow statements to ``"*"`` (VPC endpoint policies), nothing else."""
    problems: list[str] = []
    sids = [s.sid for s in statements]
    for sid in sorted({s for s in sids if sids.count(s) > 1}):
        problems.append(f"duplicate Sid {sid!r}")
    for s in statements:
        if s.effect != "Allow":
            continue
        for action in s.actions:
            if action == "*" or action.endswith(":*"):
                problems.append(f"{s.sid}: wildcard action {action!r}")
        if s.principals == "*":
            if not any_principal:
                problems.append(f"{s.sid}: Allow to any principal")
        elif s.principals is not None:
            for kind, values in s.principals.items():
                if any(v == "*" for v in values):
                    problems.append(f"{s.sid}: wildcard {kind} principal")
        if "*" in [r for r in s.resources if isinstance(r, str)]:
            scoped = [a for a in s.actions if a not in UNSCOPED_ACTIONS]
            if scoped and (s.principals is None or s.principals == "*"):
                problems.append(f"{s.sid}: Resource '*' for resource-scoped actions {scoped}")
    return problems
