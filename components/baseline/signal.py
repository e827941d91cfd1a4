"""The AWS side of the baseline's burst signal: the role the on-prem exporter publishes under.

The burst order (:mod:`components.pools.burst`) gates each AWS pool's scale-out on the
``gpufleet/Baseline`` ``FreeGpusAhead`` metric of its site. The exporter runs next to the baseline, on
premises, and gets short-lived credentials for this role through IAM Roles Anywhere (an X.509
certificate from the team's trust anchor; no access key is ever issued). The role may do one thing:
``cloudwatch:PutMetricData`` into ``gpufleet/Baseline``. This role is also what GF-OPS-001 finds as the
metric's publisher in the stack.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.identity.documents import Statement, document
from components.pools.burst import SIGNAL_NAMESPACE
from components.tags import check_cost_tags

ROLES_ANYWHERE = "rolesanywhere.amazonaws.com"
_TRUST_ANCHOR_RE = re.compile(
    r"^arn:aws(-cn|-us-gov)?:rolesanywhere:[a-z0-9-]+:\d{12}:trust-anchor/[0-9a-f-]{36}$"
)


@dataclass(frozen=True, kw_only=True)
class BaselineSignalArgs:
    trust_anchor_arn: str  # the IAM Roles Anywhere trust anchor holding the on-prem CA
    tags: Mapping[str, str]
    region: str | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not _TRUST_ANCHOR_RE.match(self.trust_anchor_arn):
            problems.append(
                f"trust_anchor_arn: {self.trust_anchor_arn!r} is not an IAM Roles Anywhere trust anchor ARN "
                "(arn:aws:rolesanywhere:<region>:<account>:trust-anchor/<uuid>)"
            )
        if problems:
            raise ValueError("BaselineSignalArgs: " + "; ".join(problems))


def trust_statements(trust_anchor_arn: str) -> list[Statement]:
    """Only sessions Roles Anywhere opens through the team's trust anchor may assume the role."""
    return [
        Statement(
            sid="RolesAnywhereTrustAnchor",
            actions=["sts:AssumeRole", "sts:TagSession", "sts:SetSourceIdentity"],
            principals={"Service": [ROLES_ANYWHERE]},
            conditions={"ArnEquals": {"aws:SourceArn": trust_anchor_arn}},
        )
    ]


def publish_statements() -> list[Statement]:
    """PutMetricData into the signal's namespace and no other (PutMetricData takes no resource ARN)."""
    return [
        Statement(
            sid="PublishBaselineSignal",
            actions=["cloudwatch:PutMetricData"],
            resources=["*"],
            conditions={"StringEquals": {"cloudwatch:namespace": SIGNAL_NAMESPACE}},
        )
    ]


class BaselineSignal(pulumi.ComponentResource):
    """Children: ``-signal-role`` (trusted by Roles Anywhere through one trust anchor) and
    ``-signal-publish`` (its only permission: PutMetricData into ``gpufleet/Baseline``)."""

    role_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: BaselineSignalArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:baseline:BaselineSignal", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-signal-role",
            description="gpufleet baseline exporter: publishes the burst-order signal",
            assume_role_policy=document(trust_statements(args.trust_anchor_arn)),
            max_session_duration=3600,
            tags=dict(args.tags),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-signal-publish",
            role=role.name,
            policy=document(publish_statements()),
            opts=child,
        )
        self.role_arn = role.arn
        self.register_outputs({"role_arn": self.role_arn})
