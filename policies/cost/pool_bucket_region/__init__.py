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
from typing import Any, cast

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import Cloud, cloud_parts, part_values, profile
from gpufleet.policies.context import resource_region
from gpufleet.policies.cost._clouds import and_list, sole
from gpufleet.policies.cost._common import describe, stack_pools
from gpufleet.policies.cost.pools import Pool, ResourceIndex
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.documents import UNKNOWN, DocumentError, parse_document
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud's facts (`pool_bucket_region/<cloud>.py`): BUCKET_KIND, BUCKET_TYPES, `bucket_of_arn`,
# `roles_of`, the role -> document links (ROLE_POLICIES, ATTACHMENTS, INLINE_POLICIES) and the texts.
PARTS = cloud_parts(__name__)


def _region_advice() -> str:
    """How to put a bucket in the pool's region: each cloud's own advice, then the clouds that need
    only a provider for that region, named together."""
    own = list(part_values(PARTS, "REGION_ADVICE").values())
    plain = [
        f"{profile(k).name} {p.BUCKET_KIND}" for k, p in PARTS.items() if not hasattr(p, "REGION_ADVICE")
    ]
    return "; ".join([*own, f"{and_list(plain)}: create the bucket with a provider for the pool's region"])


RULE = Rule(
    id="GF-COST-008",
    name="gpu-pools-near-their-buckets",
    description="GPU pools and the buckets they read live in the same region (no cross-region transfer).",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        f"Create the bucket in the pool's region ({_region_advice()}), or replicate the data into a "
        "bucket in the pool's region and grant the pool's role "
        f"({', '.join(p.ROLE_NOUN for p in PARTS.values())}) that bucket instead."
    ),
    url=sole(PARTS, "URL"),
)


def _bucket_names(document: Any, cloud: str, path: str) -> set[str]:
    """Bucket names the allow statements of `document` grant; none when it cannot be read."""
    bucket_of_arn: Callable[[str], str | None] = PARTS[cast(Cloud, cloud)].bucket_of_arn
    try:
        parsed = parse_document(document, path, cloud=cloud)
    except (UnknownValueError, DocumentError):
        return set()
    names: set[str] = set()
    for statement in parsed.allows() if parsed else ():
        for arn in statement.resources:
            name = bucket_of_arn(arn) if arn != UNKNOWN else None
            if name and "*" not in name:
                names.add(name)
    return names


class _Joins:
    """Role -> documents links for every cloud, built once per stack."""

    def __init__(self, index: ResourceIndex) -> None:
        self.index = index
        # role URN -> (resource holding a document, the document's input name)
        self.docs_by_role: dict[str, list[tuple[Any, str]]] = defaultdict(list)
        for part in PARTS.values():
            for holder_type, role_prop, role_type, doc in getattr(part, "ROLE_POLICIES", ()):
                for holder in index.of_type(holder_type):
                    for role in index.refs(holder, role_prop, (role_type,)):
                        self.docs_by_role[role.urn].append((holder, doc))
            for attachment_type, role, policy in part.ATTACHMENTS:
                self._attach(attachment_type, role, policy)

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
        roles: Iterable[Any] = PARTS[cast(Cloud, cloud)].roles_of(self.index, source)
        return roles

    def buckets(self, role: Any, cloud: str) -> list[Any]:
        part = PARTS[cast(Cloud, cloud)]
        bucket_types: tuple[str, ...] = part.BUCKET_TYPES
        inline: str | None = getattr(part, "INLINE_POLICIES", None)
        found: dict[str, Any] = {}
        sources = list(self.docs_by_role.get(role.urn, []))
        if inline is not None:
            sources.append((role, inline))
        for resource, prop in sources:
            for bucket in self.index.refs(resource, prop, bucket_types, value=""):
                found[bucket.urn] = bucket
            if prop == inline:
                documents = [get_ref(item, "policy") for item in as_list(get_ref(resource.props, prop))]
            else:
                documents = [get_ref(resource.props, prop)]
            for document in documents:
                if document is None or is_unknown(document):
                    continue
                for name in _bucket_names(document, cloud, f"{resource.name}.{prop}"):
                    for bucket in self.index.refs(resource, prop, bucket_types, value=name):
                        found[bucket.urn] = bucket
        return list(found.values())


def _joins(resources: Sequence[Any]) -> _Joins:
    return _Joins(per_stack(ResourceIndex, resources))


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    pools, _ = stack_pools(args)
    joins = per_stack(_joins, args.resources)
    for pool in pools:
        if pool.cloud not in PARTS or pool.region is None:
            continue

        def check(pool: Pool = pool) -> None:
            kind = PARTS[cast(Cloud, pool.cloud)].BUCKET_KIND
            for role in joins.roles(pool):
                for bucket in joins.buckets(role, pool.cloud):
                    region = resource_region(bucket.props, bucket.provider)
                    if region and region != pool.region:
                        report(
                            f"{describe(pool)} in {pool.region} reads {kind} bucket "
                            f"'{bucket.name}' in {region} through role '{role.name}'; keep them in one "
                            "region to avoid cross-region transfer charges",
                            pool.urn,
                        )

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
