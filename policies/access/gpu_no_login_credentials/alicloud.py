"""GF-ACC-002 on Alibaba Cloud: `keyName`/`password`/`kmsEncryptedPassword` on ECS instances and ESS
scaling configurations; `keyPairName`/`password` on ECS instance sets; `keyPairName` on ECS launch
templates; `passwordInherit: true` (the image's preset password) on all of these;
`keyName`/`password`/`kmsEncryptedPassword` on ACK node pools; and key pairs bound afterwards to GPU
instances through key pair attachments."""

from __future__ import annotations

from typing import Any

from pulumi_policy import ReportViolation

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.alicloud import (
    ALI_ECS_LAUNCH_TEMPLATE,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATE,
    ALI_NODE_POOL,
    ALI_SCALING_CONFIGURATION,
)
from gpufleet.policies.access.gpu_no_login_credentials.words import EXPECTED, INHERITED, KEY, PASSWORD

ALI_KEY_PAIR_ATTACHMENT = "alicloud:ecs/keyPairAttachment:KeyPairAttachment"
ALI_ECS_KEY_PAIR_ATTACHMENT = "alicloud:ecs/ecsKeyPairAttachment:EcsKeyPairAttachment"

# (prop path, what it is, whether its value may be shown), of instances and what launches them
CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    ALI_INSTANCE: (
        ("keyName", KEY, True),
        ("password", PASSWORD, False),
        ("kmsEncryptedPassword", PASSWORD, False),
        INHERITED,
    ),
    ALI_INSTANCE_SET: (("keyPairName", KEY, True), ("password", PASSWORD, False), INHERITED),
    ALI_LAUNCH_TEMPLATE: (("keyPairName", KEY, True), INHERITED),
    ALI_ECS_LAUNCH_TEMPLATE: (("keyPairName", KEY, True), INHERITED),
    ALI_SCALING_CONFIGURATION: (
        ("keyName", KEY, True),
        ("password", PASSWORD, False),
        ("kmsEncryptedPassword", PASSWORD, False),
        INHERITED,
    ),
}
# ... and of managed pools
POOL_CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    ALI_NODE_POOL: (
        ("keyName", KEY, True),
        ("password", PASSWORD, False),
        ("kmsEncryptedPassword", PASSWORD, False),
    ),
}
REMEDIATION = (
    "Alibaba: unset `keyName`/`keyPairName`, `password` and `kmsEncryptedPassword` on the ecs Instance, "
    "EcsInstanceSet, LaunchTemplate, ess ScalingConfiguration or cs NodePool, and drop KeyPairAttachments "
    "to GPU instances."
)


def _judge_attachment(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    link = c.Link(("instanceIds.*",), "instanceIds", (ALI_INSTANCE,))
    instances, _ = index.follow(resource, link)
    gpu = [instance for instance in instances if index.is_gpu(instance)]
    if gpu:
        key = c.values_at(index.p(resource), "keyPairName") or c.values_at(index.p(resource), "keyName")
        key_text = repr(c.display(key[0])) if key else "(unnamed)"
        names = ", ".join(index.describe(instance) for instance in gpu)
        report(
            f"ECS key pair attachment '{resource.name}' binds {KEY} {key_text} to {names}; {EXPECTED}",
            resource.urn,
        )


# resource type -> how to judge it beyond its own credentials
JUDGES = {ALI_KEY_PAIR_ATTACHMENT: _judge_attachment, ALI_ECS_KEY_PAIR_ATTACHMENT: _judge_attachment}
