"""Audit and node logs on Alibaba Cloud: an SLS project with ActionTrail's log store and the nodes'.

ActionTrail writes to a log store it names ``actiontrail_<trail>`` in the project the trail names;
the store is created here first so that its retention is the spec's (``audit.log_retention_days``,
180 by default; 0 keeps logs forever, which SLS spells 3650). The trail is account-wide
(``trail_region: All``, every read and write event) and is built by the home Alibaba site only; it
writes through a role that trusts ActionTrail alone. The nodes' store keeps what instances write
(boot logs) for ``access.session_log_retention_days``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.tags import check_cost_tags

SLS_FOREVER_DAYS = 3650
SLS_PROJECT_MAX = 63
TRAIL_NAME_MAX = 36  # ActionTrail trail names: 6 to 36 characters
TRAIL_WRITER_POLICY = "AliyunActionTrailRolePolicy"


def retention(days: int) -> int:
    return SLS_FOREVER_DAYS if days == 0 else days


@dataclass(frozen=True, kw_only=True)
class AlicloudAuditArgs:
    """``trail``: build the account's ActionTrail trail (the home site, with ``audit.trail``)."""

    name_prefix: str
    region: str
    account_id: pulumi.Input[str]
    tags: Mapping[str, str]
    log_retention_days: int = 180
    node_log_retention_days: int = 180
    trail: bool = True

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.log_retention_days < 0 or self.node_log_retention_days < 1:
            problems.append("log_retention_days >= 0 and node_log_retention_days >= 1")
        if problems:
            raise ValueError("AlicloudAuditArgs: " + "; ".join(problems))


class AlicloudAudit(pulumi.ComponentResource):
    project_name: pulumi.Output[str]
    node_store_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: AlicloudAuditArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:audit:AlicloudAudit", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        # SLS project names are unique in a region across every account: the account id makes ours so.
        project_name = pulumi.Output.from_input(args.account_id).apply(
            lambda account: f"{args.name_prefix[: SLS_PROJECT_MAX - len(account) - 1]}-{account}"
        )
        project = alicloud.log.Project(
            f"{name}-project",
            project_name=project_name,
            description="gpufleet audit trail and node logs",
            tags=dict(args.tags),
            opts=child,
        )
        nodes = alicloud.log.Store(
            f"{name}-nodes",
            project_name=project.project_name,
            logstore_name="gpufleet-nodes",
            retention_period=retention(args.node_log_retention_days),
            shard_count=2,
            auto_split=True,
            max_split_shard_count=8,
            opts=child,
        )
        self.project_name = pulumi.Output.all(project.project_name, project_name).apply(
            lambda v: str(v[0] or v[1])
        )
        self.node_store_name = nodes.logstore_name.apply(lambda value: value or "gpufleet-nodes")
        if args.trail:
            self._trail(name, args, project, child)
        self.register_outputs({"project_name": self.project_name, "node_store_name": self.node_store_name})

    def _trail(
        self, name: str, args: AlicloudAuditArgs, project: alicloud.log.Project, child: pulumi.ResourceOptions
    ) -> None:
        trail_name = f"{args.name_prefix[: TRAIL_NAME_MAX - len('-trail')]}-trail"
        store = alicloud.log.Store(
            f"{name}-trail-store",
            project_name=project.project_name,
            logstore_name=f"actiontrail_{trail_name}",
            retention_period=retention(args.log_retention_days),
            shard_count=2,
            auto_split=True,
            max_split_shard_count=8,
            opts=child,
        )
        role = alicloud.ram.Role(
            f"{name}-trail-role",
            role_name=trail_name,
            assume_role_policy_document=json.dumps(
                {
                    "Version": "1",
                    "Statement": [
                        {
                            "Action": "sts:AssumeRole",
                            "Effect": "Allow",
                            "Principal": {"Service": ["actiontrail.aliyuncs.com"]},
                        }
                    ],
                },
                sort_keys=True,
            ),
            description="ActionTrail writes the gpufleet trail to SLS",
            tags=dict(args.tags),
            opts=child,
        )
        attachment = alicloud.ram.RolePolicyAttachment(
            f"{name}-trail-role-policy",
            role_name=role.role_name.apply(lambda value: value or trail_name),
            policy_name=TRAIL_WRITER_POLICY,
            policy_type="System",
            opts=child,
        )
        project_arn = pulumi.Output.all(args.account_id, project.project_name).apply(
            lambda v: f"acs:log:{args.region}:{v[0]}:project/{v[1]}"
        )
        alicloud.actiontrail.Trail(
            f"{name}-trail",
            trail_name=trail_name,
            trail_region="All",
            event_rw="All",
            status="Enable",
            sls_project_arn=project_arn,
            sls_write_role_arn=role.arn,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[store, attachment]),
        )
