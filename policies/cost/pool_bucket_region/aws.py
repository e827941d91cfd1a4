"""AWS facts of GF-COST-008: how a pool reaches its IAM role (instance profile or EKS node role), how
the role reaches its policy documents (inline policies, role policies, attached managed policies),
how a document names an S3 bucket (`arn:aws:s3:::NAME`), and the texts naming them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpufleet.policies.cost.pools import ResourceIndex
from gpufleet.policies.cost.pools.tokens.aws import AWS_EKS_NODE_GROUP
from gpufleet.policies.props import get_ref

PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
MANAGED_POLICY = "aws:iam/policy:Policy"

BUCKET_KIND = "S3"
BUCKET_TYPES = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
# Resources holding one document for a role: (type, role input, role type, document input).
ROLE_POLICIES = ((ROLE_POLICY, "role", ROLE, "policy"),)
# Attachments: (type, (role input, role type), (policy input, policy type, the policy's document input)).
ATTACHMENTS = ((ATTACHMENT, ("role", ROLE), ("policyArn", MANAGED_POLICY, "policy")),)
# The role's own list of documents (`[{name, policy}]`).
INLINE_POLICIES = "inlinePolicies"

REGION_ADVICE = "AWS: set `region` on the v7 bucket or use a provider for that region"
ROLE_NOUN = "instance profile role"
URL = "https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer"


def bucket_of_arn(arn: str) -> str | None:
    if not arn.startswith("arn:aws:s3:::"):
        return None
    return arn[len("arn:aws:s3:::") :].split("/", 1)[0]


def roles_of(index: ResourceIndex, source: Any) -> Iterable[Any]:
    """The roles a pool resource runs as: an EKS node group's `nodeRoleArn`, else the role of the
    instance profile its launch template / launch configuration / instance names."""
    if source.resource_type == AWS_EKS_NODE_GROUP:
        return index.refs(source, "nodeRoleArn", (ROLE,))
    profile_value = get_ref(source.props, "iamInstanceProfile")
    candidates: Iterable[Any] = [profile_value]
    if isinstance(profile_value, dict) or hasattr(profile_value, "keys"):
        candidates = [get_ref(profile_value, "name"), get_ref(profile_value, "arn")]
    roles: list[Any] = []
    for candidate in candidates:
        value = candidate if isinstance(candidate, str) else ""
        for profile in index.refs(source, "iamInstanceProfile", (PROFILE,), value=value):
            roles.extend(index.refs(profile, "role", (ROLE,)))
    return roles
