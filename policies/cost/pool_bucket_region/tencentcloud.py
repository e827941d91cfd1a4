"""Tencent Cloud facts of GF-COST-008: how a pool reaches its CAM role, how the role reaches its CAM
policies (by id or by name), how a policy names a COS bucket (`qcs::cos:REGION:uid/APPID:NAME-APPID`),
and the texts naming them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpufleet.policies.cost.pools import ResourceIndex

CAM_ROLE = "tencentcloud:Cam/role:Role"
CAM_POLICY = "tencentcloud:Cam/policy:Policy"
CAM_ATTACHMENT = "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment"
CAM_ATTACHMENT_BY_NAME = "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName"

BUCKET_KIND = "COS"
BUCKET_TYPES = ("tencentcloud:Cos/bucket:Bucket",)
# Attachments: (type, (role input, role type), (policy input, policy type, the policy's document input)).
ATTACHMENTS = (
    (CAM_ATTACHMENT, ("roleId", CAM_ROLE), ("policyId", CAM_POLICY, "document")),
    (CAM_ATTACHMENT_BY_NAME, ("roleName", CAM_ROLE), ("policyName", CAM_POLICY, "document")),
)
ROLE_NOUN = "CAM role"


def bucket_of_arn(arn: str) -> str | None:
    # qcs::cos:<region>:uid/<appid>:<bucket>-<appid>[/<object>]
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "qcs" or parts[2] != "cos":
        return None
    return parts[5].split("/", 1)[0]


def roles_of(index: ResourceIndex, source: Any) -> Iterable[Any]:
    """The CAM roles a pool resource runs as: `camRoleName` of its scaling config or instance."""
    return index.refs(source, "camRoleName", (CAM_ROLE,))
