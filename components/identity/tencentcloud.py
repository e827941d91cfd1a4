"""The Tencent Cloud site's CAM role for its GPU instances, with a least-privilege policy.

The role is assumed by CVM (``cvm.qcloud.com``) for the instances the pools launch; nothing gets API
keys, and no one logs in: instances are operated through TAT. The policy grants exactly: read under the
data prefix and read/write under the checkpoint prefix of the site's bucket, encrypt/decrypt with the
site's key, writing to the nodes' log topic, and receiving and deleting messages from the pools' queues.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.tags import check_cost_tags

TRUSTED_SERVICE = "cvm.qcloud.com"
READ_OBJECT = ("name/cos:GetObject", "name/cos:HeadObject")
WRITE_OBJECT = (
    "name/cos:PutObject",
    "name/cos:InitiateMultipartUpload",
    "name/cos:UploadPart",
    "name/cos:CompleteMultipartUpload",
    "name/cos:AbortMultipartUpload",
    "name/cos:ListParts",
)
KEY_USE = ("name/kms:Encrypt", "name/kms:Decrypt", "name/kms:GenerateDataKey")
LOG_WRITE = ("name/cls:pushLog",)
QUEUE_CONSUME = ("name/cmq:ReceiveMessage", "name/cmq:BatchReceiveMessage", "name/cmq:DeleteMessage",
                 "name/cmq:BatchDeleteMessage")  # fmt: skip


def trust_document() -> str:
    """CVM may assume the role; no one else."""
    statement = {
        "action": ["name/sts:AssumeRole"],
        "effect": "allow",
        "principal": {"service": [TRUSTED_SERVICE]},
    }
    return json.dumps({"version": "2.0", "statement": [statement]}, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class Grants:
    """The resolved names the policy scopes to (the bucket's full name, with its APPID)."""

    region: str
    app_id: str
    uin: str
    bucket: str
    key_id: str
    log_topic_id: str
    queues: Sequence[str]
    data_prefix: str
    checkpoint_prefix: str


def node_policy_document(grants: Grants) -> str:
    g = grants
    objects = f"qcs::cos:{g.region}:uid/{g.app_id}:{g.bucket}"
    statements: list[dict[str, Any]] = [
        {"effect": "allow", "action": list(READ_OBJECT), "resource": [f"{objects}/{g.data_prefix}*"]},
        {
            "effect": "allow",
            "action": [*READ_OBJECT, *WRITE_OBJECT],
            "resource": [f"{objects}/{g.checkpoint_prefix}*"],
        },
        {
            "effect": "allow",
            "action": list(KEY_USE),
            "resource": [f"qcs::kms:{g.region}:uin/{g.uin}:key/creatorUin/{g.uin}/{g.key_id}"],
        },
        {
            "effect": "allow",
            "action": list(LOG_WRITE),
            "resource": [f"qcs::cls:{g.region}:uin/{g.uin}:topic/{g.log_topic_id}"],
        },
    ]
    if g.queues:
        statements.append(
            {
                "effect": "allow",
                "action": list(QUEUE_CONSUME),
                "resource": [
                    f"qcs::cmqqueue:{g.region}:uin/{g.uin}:queueName/uin/{g.uin}/{q}" for q in g.queues
                ],
            }
        )
    return json.dumps({"version": "2.0", "statement": statements}, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class TencentIdentityArgs:
    region: str
    app_id: pulumi.Input[str]
    uin: pulumi.Input[str]
    bucket_name: pulumi.Input[str]
    key_id: pulumi.Input[str]
    log_topic_id: pulumi.Input[str]
    queue_names: Sequence[str]
    tags: Mapping[str, str]
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"
    provider: pulumi.ProviderResource | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        for field_name in ("data_prefix", "checkpoint_prefix"):
            prefix = getattr(self, field_name)
            if not prefix.endswith("/") or "*" in prefix or prefix.startswith("/"):
                problems.append(f"{field_name}: {prefix!r} must end with '/', no leading '/' or wildcard")
        if problems:
            raise ValueError("TencentIdentityArgs: " + "; ".join(problems))


class TencentIdentity(pulumi.ComponentResource):
    """``cam.Role`` ``<name>-nodes`` (CVM only, no console login), ``cam.Policy`` and the
    ``cam.RolePolicyAttachment``."""

    role_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: TencentIdentityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:identity:TencentIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        role = tencentcloud.cam.Role(
            f"{name}-nodes",
            name=f"{name}-nodes",
            document=trust_document(),
            description="gpufleet GPU instances (CVM); operated through TAT",
            console_login=False,
            tags=dict(args.tags),
            opts=child,
        )
        document = pulumi.Output.all(
            args.app_id, args.uin, args.bucket_name, args.key_id, args.log_topic_id
        ).apply(
            lambda found: node_policy_document(
                Grants(
                    region=args.region,
                    app_id=str(found[0]),
                    uin=str(found[1]),
                    bucket=str(found[2]),
                    key_id=str(found[3]),
                    log_topic_id=str(found[4]),
                    queues=tuple(args.queue_names),
                    data_prefix=args.data_prefix,
                    checkpoint_prefix=args.checkpoint_prefix,
                )
            )
        )
        policy = tencentcloud.cam.Policy(
            f"{name}-nodes-policy",
            name=f"{name}-nodes",
            document=document,
            description="gpufleet GPU instances: their bucket prefixes, key, log topic and queues",
            opts=child,
        )
        tencentcloud.cam.RolePolicyAttachment(
            f"{name}-nodes-policy-attach", role_id=role.id, policy_id=policy.id, opts=child
        )
        self.role_name = role.name
        self.register_outputs({"role_name": self.role_name})
