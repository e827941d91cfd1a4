"""GF-COST-008 (advisory): GPU pools and the buckets they read live in the same region.

Each pool is followed to its instance role, the role to the policies granted to it, the policies to
the buckets of the stack they name, and each bucket's region is compared with the pool's.

AWS: pool -> instance role -> the role's policies -> S3 buckets of the stack -> bucket region.
- the role: launch template / launch configuration / instance `iamInstanceProfile` ->
  `aws:iam/instanceProfile:InstanceProfile` `role`; EKS node groups' `nodeRoleArn`;
- its policies: `inlinePolicies` on the role, `aws:iam/rolePolicy:RolePolicy`, and
  `aws:iam/rolePolicyAttachment:RolePolicyAttachment` -> `aws:iam/policy:Policy`;
- the buckets: `arn:aws:s3:::NAME` resources in the documents.

Alibaba Cloud: pool -> RAM role -> RAM policies -> OSS buckets.
- the role: `roleName` of the ESS scaling configuration or ECS instance (set), `ramRoleName` of the
  ECS launch template of a scaling group -> `alicloud:ram/role:Role` (`roleName`);
- its policies: `alicloud:ram/rolePolicyAttachment:RolePolicyAttachment` (`roleName`, `policyName`)
  -> `alicloud:ram/policy:Policy` `policyDocument` (system policies name no bucket of the stack);
- the buckets: `acs:oss:*:*:NAME[/...]` resources -> `alicloud:oss/bucket:Bucket` (`bucket`).

Tencent Cloud: pool -> CAM role -> CAM policies -> COS buckets.
- the role: `camRoleName` of the AS scaling config or CVM instance -> `tencentcloud:Cam/role:Role`
  (`name`);
- its policies: `tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment` (`roleId`, `policyId`)
  and `...:RolePolicyAttachmentByName` (`roleName`, `policyName`) -> `tencentcloud:Cam/policy:Policy`
  `document`;
- the buckets: `qcs::cos:REGION:uid/APPID:NAME-APPID/*` resources -> `tencentcloud:Cos/bucket:Bucket`
  (`bucket`).

On every cloud a document built from bucket outputs (unknown at preview) is joined to the buckets
its document input depends on. Regions: the resource's `region` input (AWS v7), else its provider's
region. Pairs whose region is unknown on either side, and references that match no resource of the
stack, are not judged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.context import resource_region
from gpufleet.policies.cost._common import describe, stack_pools
from gpufleet.policies.cost.pools import AWS_EKS_NODE_GROUP, Pool, ResourceIndex
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.documents import UNKNOWN, DocumentError, parse_document
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
MANAGED_POLICY = "aws:iam/policy:Policy"
BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")

RAM_ROLE = "alicloud:ram/role:Role"
RAM_POLICY = "alicloud:ram/policy:Policy"
RAM_ATTACHMENT = "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"
OSS_BUCKET = "alicloud:oss/bucket:Bucket"

CAM_ROLE = "tencentcloud:Cam/role:Role"
CAM_POLICY = "tencentcloud:Cam/policy:Policy"
CAM_ATTACHMENT = "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment"
CAM_ATTACHMENT_BY_NAME = "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName"
COS_BUCKET = "tencentcloud:Cos/bucket:Bucket"

RULE = Rule(
    id="GF-COST-008",
    name="gpu-pools-near-their-buckets",
    description="GPU pools and the buckets they read live in the same region (no cross-region transfer).",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Create the bucket in the pool's region (AWS: set `region` on the v7 bucket or use a provider "
        "for that region; Alibaba Cloud OSS and Tencent Cloud COS: create the bucket with a provider "
        "for the pool's region), or replicate the data into a bucket in the pool's region and grant "
        "the pool's role (instance profile role, RAM role, CAM role) that bucket instead."
    ),
    url="https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer",
)


def _aws_bucket(arn: str) -> str | None:
    if not arn.startswith("arn:aws:s3:::"):
        return None
    return arn[len("arn:aws:s3:::") :].split("/", 1)[0]


def _oss_bucket(arn: str) -> str | None:
    # acs:oss:<region>:<account>:<bucket>[/<object>]
    parts = arn.split(":", 4)
    if len(parts) != 5 or parts[0] != "acs" or parts[1] != "oss":
        return None
    return parts[4].split("/", 1)[0]


def _cos_bucket(arn: str) -> str | None:
    # qcs::cos:<region>:uid/<appid>:<bucket>-<appid>[/<object>]
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "qcs" or parts[2] != "cos":
        return None
    return parts[5].split("/", 1)[0]


@dataclass(frozen=True)
class _Cloud:
    """How one cloud links a pool to its role, the role to its documents, the documents to buckets."""

    name: str
    bucket_kind: str
    bucket_types: tuple[str, ...]
    bucket_of_arn: Callable[[str], str | None]


_CLOUDS = {
    "aws": _Cloud("aws", "S3", BUCKETS, _aws_bucket),
    "alicloud": _Cloud("alicloud", "OSS", (OSS_BUCKET,), _oss_bucket),
    "tencentcloud": _Cloud("tencentcloud", "COS", (COS_BUCKET,), _cos_bucket),
}


def _bucket_names(document: Any, cloud: _Cloud, path: str) -> set[str]:
    """Bucket names the allow statements of `document` grant; none when it cannot be read."""
    try:
        parsed = parse_document(document, path, cloud=cloud.name)
    except (UnknownValueError, DocumentError):
        return set()
    names: set[str] = set()
    for statement in parsed.allows() if parsed else ():
        for arn in statement.resources:
            name = cloud.bucket_of_arn(arn) if arn != UNKNOWN else None
            if name and "*" not in name:
                names.add(name)
    return names


class _Joins:
    """Role -> documents links for every cloud, built once per stack."""

    def __init__(self, index: ResourceIndex) -> None:
        self.index = index
        # role URN -> (resource holding a document, the document's input name)
        self.docs_by_role: dict[str, list[tuple[Any, str]]] = defaultdict(list)
        for role_policy in index.of_type(ROLE_POLICY):
            for role in index.refs(role_policy, "role", (ROLE,)):
                self.docs_by_role[role.urn].append((role_policy, "policy"))
        self._attach(ATTACHMENT, ("role", ROLE), ("policyArn", MANAGED_POLICY, "policy"))
        self._attach(RAM_ATTACHMENT, ("roleName", RAM_ROLE), ("policyName", RAM_POLICY, "policyDocument"))
        self._attach(CAM_ATTACHMENT, ("roleId", CAM_ROLE), ("policyId", CAM_POLICY, "document"))
        self._attach(CAM_ATTACHMENT_BY_NAME, ("roleName", CAM_ROLE), ("policyName", CAM_POLICY, "document"))

    def _attach(self, attachment_type: str, role: tuple[str, str], policy: tuple[str, str, str]) -> None:
        """Link roles to attached policies: `role` is (input, role type), `policy` is (input, policy
        type, the policy's document input)."""
        role_prop, role_type = role
        policy_prop, policy_type, doc = policy
        for attachment in self.index.of_type(attachment_type):
            policies = self.index.refs(attachment, policy_prop, (policy_type,))
            for target in self.index.refs(attachment, role_prop, (role_type,)):
                self.docs_by_role[target.urn].extend((found, doc) for found in policies)

    def roles(self, pool: Pool) -> list[Any]:
        found: dict[str, Any] = {}
        for urn in pool.role_refs:
            source = self.index.by_urn.get(urn)
            if source is None:
                continue
            for role in self._roles_of(pool.cloud, source):
                found[role.urn] = role
        return list(found.values())

    def _roles_of(self, cloud: str, source: Any) -> Iterable[Any]:
        if cloud == "alicloud":
            return [
                *self.index.refs(source, "roleName", (RAM_ROLE,)),
                *self.index.refs(source, "ramRoleName", (RAM_ROLE,)),
            ]
        if cloud == "tencentcloud":
            return self.index.refs(source, "camRoleName", (CAM_ROLE,))
        if source.resource_type == AWS_EKS_NODE_GROUP:
            return self.index.refs(source, "nodeRoleArn", (ROLE,))
        profile_value = get_ref(source.props, "iamInstanceProfile")
        candidates: Iterable[Any] = [profile_value]
        if isinstance(profile_value, dict) or hasattr(profile_value, "keys"):
            candidates = [get_ref(profile_value, "name"), get_ref(profile_value, "arn")]
        roles: list[Any] = []
        for candidate in candidates:
            value = candidate if isinstance(candidate, str) else ""
            for profile in self.index.refs(source, "iamInstanceProfile", (PROFILE,), value=value):
                roles.extend(self.index.refs(profile, "role", (ROLE,)))
        return roles

    def buckets(self, role: Any, cloud: _Cloud) -> list[Any]:
        found: dict[str, Any] = {}
        sources = list(self.docs_by_role.get(role.urn, []))
        if cloud.name == "aws":
            sources.append((role, "inlinePolicies"))
        for resource, prop in sources:
            for bucket in self.index.refs(resource, prop, cloud.bucket_types, value=""):
                found[bucket.urn] = bucket
            if prop == "inlinePolicies":
                documents = [get_ref(item, "policy") for item in as_list(get_ref(resource.props, prop))]
            else:
                documents = [get_ref(resource.props, prop)]
            for document in documents:
                if document is None or is_unknown(document):
                    continue
                for name in _bucket_names(document, cloud, f"{resource.name}.{prop}"):
                    for bucket in self.index.refs(resource, prop, cloud.bucket_types, value=name):
                        found[bucket.urn] = bucket
        return list(found.values())


def _joins(resources: Sequence[Any]) -> _Joins:
    return _Joins(per_stack(ResourceIndex, resources))


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    pools, _ = stack_pools(args)
    joins = per_stack(_joins, args.resources)
    for pool in pools:
        cloud = _CLOUDS.get(pool.cloud)
        if cloud is None or pool.region is None:
            continue

        def check(pool: Pool = pool, cloud: _Cloud = cloud) -> None:
            for role in joins.roles(pool):
                for bucket in joins.buckets(role, cloud):
                    region = resource_region(bucket.props, bucket.provider)
                    if region and region != pool.region:
                        report(
                            f"{describe(pool)} in {pool.region} reads {cloud.bucket_kind} bucket "
                            f"'{bucket.name}' in {region} through role '{role.name}'; keep them in one "
                            "region to avoid cross-region transfer charges",
                            pool.urn,
                        )

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
