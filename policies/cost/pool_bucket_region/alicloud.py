"""Alibaba Cloud facts of GF-COST-008: how a pool reaches its RAM role, how the role reaches its RAM
policies, how a policy names an OSS bucket (`acs:oss:*:*:NAME[/...]`), and the texts naming them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpufleet.policies.cost.pools import ResourceIndex

RAM_ROLE = "alicloud:ram/role:Role"
RAM_POLICY = "alicloud:ram/policy:Policy"
RAM_ATTACHMENT = "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"

BUCKET_KIND = "OSS"
BUCKET_TYPES = ("alicloud:oss/bucket:Bucket",)
# Attachments: (type, (role input, role type), (policy input, policy type, the policy's document input)).
ATTACHMENTS = ((RAM_ATTACHMENT, ("roleName", RAM_ROLE), ("policyName", RAM_POLICY, "policyDocument")),)
ROLE_NOUN = "RAM role"


def bucket_of_arn(arn: str) -> str | None:
    # acs:oss:<region>:<account>:<bucket>[/<object>]
    parts = arn.split(":", 4)
    if len(parts) != 5 or parts[0] != "acs" or parts[1] != "oss":
        return None
    return parts[4].split("/", 1)[0]


def roles_of(index: ResourceIndex, source: Any) -> Iterable[Any]:
    """The RAM roles a pool resource runs as: `roleName` of its scaling configuration or instance,
    `ramRoleName` of its launch template."""
    return [
        *index.refs(source, "roleName", (RAM_ROLE,)),
        *index.refs(source, "ramRoleName", (RAM_ROLE,)),
    ]
