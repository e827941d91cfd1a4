"""A pool's RAM role on Alibaba Cloud: what its instances may do, and nothing else.

The role trusts ``ecs.aliyuncs.com`` only; instances get it through the launch template's
``ram_role_name`` (Alibaba's instance profile), so no AccessKey exists anywhere. Its one custom policy
allows: listing and reading the data and checkpoint prefixes of the checkpoint bucket, writing
checkpoints, using the site's KMS key for those objects, writing the node log store, and taking work
from the pool's own queue.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.tags import check_cost_tags

TRUSTED_SERVICE = "ecs.aliyuncs.com"
MAX_ROLE_NAME = 64
READ_ACTIONS = ("oss:GetObject", "oss:GetObjectMeta")
WRITE_ACTIONS = ("oss:PutObject", "oss:AbortMultipartUpload", "oss:ListParts")
KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey", "kms:DescribeKey")
LOG_ACTIONS = ("log:PostLogStoreLogs",)
QUEUE_ACTIONS = (
    "mns:ReceiveMessage",
    "mns:DeleteMessage",
    "mns:ChangeMessageVisibility",
    "mns:GetQueueAttributes",
)


def service_trust_policy(service: str) -> str:
    """Only the Alibaba Cloud service ``service`` (``ecs.aliyuncs.com``, ``oss.aliyuncs.com``) may assume."""
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": [service]}}
            ],
        },
        sort_keys=True,
    )


def trust_policy() -> str:
    return service_trust_policy(TRUSTED_SERVICE)


def attach_custom_policy(
    name: str,
    role: alicloud.ram.Role,
    *,
    role_name: str,
    policy_name: str,
    document: pulumi.Input[str],
    description: str,
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> tuple[alicloud.ram.Policy, alicloud.ram.RolePolicyAttachment]:
    """``<name>-policy`` (a custom RAM policy) attached to ``role`` as ``<name>-attach``. The names fall
    back to the ones asked for while the mocks leave the outputs empty."""
    policy = alicloud.ram.Policy(
        f"{name}-policy",
        policy_name=policy_name,
        policy_document=document,
        description=description,
        tags=dict(tags),
        opts=opts,
    )
    attach = alicloud.ram.RolePolicyAttachment(
        f"{name}-attach",
        role_name=role.role_name.apply(lambda value: value or role_name),
        policy_name=policy.policy_name.apply(lambda value: value or policy_name),
        policy_type="Custom",
        opts=opts,
    )
    return policy, attach


@dataclass(frozen=True, kw_only=True)
class PoolIdentityArgs:
    role_name: str
    region: str
    bucket_name: pulumi.Input[str]
    key_id: pulumi.Input[str]
    log_project: pulumi.Input[str]
    log_store: pulumi.Input[str]
    queue_name: pulumi.Input[str]
    tags: Mapping[str, str]
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not 1 <= len(self.role_name) <= MAX_ROLE_NAME:
            problems.append(f"role_name: {self.role_name!r} must be 1 to {MAX_ROLE_NAME} characters")
        for label, prefix in (
            ("data_prefix", self.data_prefix),
            ("checkpoint_prefix", self.checkpoint_prefix),
        ):
            if not prefix or "*" in prefix or prefix.startswith("/"):
                problems.append(f"{label}: {prefix!r} must be a key prefix without '*' or a leading '/'")
        if problems:
            raise ValueError("PoolIdentityArgs: " + "; ".join(problems))


def policy_document(
    *,
    region: str,
    bucket: str,
    key_id: str,
    project: str,
    store: str,
    queue: str,
    data_prefix: str,
    checkpoint_prefix: str,
) -> str:
    """The role's policy: every statement names its resources; nothing is ``*``."""
    objects = f"acs:oss:*:*:{bucket}"
    statements: list[dict[str, Any]] = [
        {
            "Sid": "ListFleetPrefixes",
            "Effect": "Allow",
            "Action": ["oss:ListObjects"],
            "Resource": [objects],
            "Condition": {"StringLike": {"oss:Prefix": [f"{data_prefix}*", f"{checkpoint_prefix}*"]}},
        },
        {
            "Sid": "ReadDataAndCheckpoints",
            "Effect": "Allow",
            "Action": list(READ_ACTIONS),
            "Resource": [f"{objects}/{data_prefix}*", f"{objects}/{checkpoint_prefix}*"],
        },
        {
            "Sid": "WriteCheckpoints",
            "Effect": "Allow",
            "Action": list(WRITE_ACTIONS),
            "Resource": [f"{objects}/{checkpoint_prefix}*"],
        },
        {
            "Sid": "UseFleetKey",
            "Effect": "Allow",
            "Action": list(KEY_ACTIONS),
            "Resource": [f"acs:kms:{region}:*:key/{key_id}"],
        },
        {
            "Sid": "WriteNodeLogs",
            "Effect": "Allow",
            "Action": list(LOG_ACTIONS),
            "Resource": [f"acs:log:{region}:*:project/{project}/logstore/{store}"],
        },
        {
            "Sid": "TakeWorkFromPoolQueue",
            "Effect": "Allow",
            "Action": list(QUEUE_ACTIONS),
            "Resource": [
                f"acs:mns:{region}:*:/queues/{queue}",
                f"acs:mns:{region}:*:/queues/{queue}/messages",
            ],
        },
    ]
    return json.dumps({"Version": "1", "Statement": statements}, sort_keys=True)


class PoolIdentity(pulumi.ComponentResource):
    """``alicloud.ram.Role`` (trusting ECS) with one custom ``ram.Policy`` attached."""

    role_name: pulumi.Output[str]
    role_arn: pulumi.Output[str]

    def __init__(self, name: str, args: PoolIdentityArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:identity:PoolIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = alicloud.ram.Role(
            f"{name}-role",
            role_name=args.role_name,
            assume_role_policy_document=trust_policy(),
            description="gpufleet GPU pool instances",
            max_session_duration=3600,
            tags=dict(args.tags),
            opts=child,
        )
        document = pulumi.Output.all(
            args.bucket_name, args.key_id, args.log_project, args.log_store, args.queue_name
        ).apply(
            lambda v: policy_document(
                region=args.region,
                bucket=v[0],
                key_id=v[1],
                project=v[2],
                store=v[3],
                queue=v[4],
                data_prefix=args.data_prefix,
                checkpoint_prefix=args.checkpoint_prefix,
            )
        )
        attach_custom_policy(
            name,
            role,
            role_name=args.role_name,
            policy_name=f"{args.role_name}-access",
            document=document,
            description="checkpoint prefixes, the site key, node logs and the pool queue",
            tags=args.tags,
            opts=child,
        )
        self.role_name = role.role_name.apply(lambda value: value or args.role_name)
        self.role_arn = role.arn
        self.register_outputs({"role_name": self.role_name, "role_arn": self.role_arn})
