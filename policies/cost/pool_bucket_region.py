"""GF-COST-008 (advisory): GPU pools and the buckets they read live in the same region.

AWS: pool -> instance role -> the role's policies -> S3 buckets of the stack -> bucket region.
- the role: launch template / launch configuration / instance `iamInstanceProfile` ->
  `aws:iam/instanceProfile:InstanceProfile` `role`; EKS node groups' `nodeRoleArn`;
- its policies: `inlinePolicies` on the role, `aws:iam/rolePolicy:RolePolicy`, and
  `aws:iam/rolePolicyAttachment:RolePolicyAttachment` -> `aws:iam/policy:Policy`;
- the buckets: `arn:aws:s3:::NAME` resources in the documents, or (when the document is built from
  bucket outputs and so unknown at preview) the buckets the policy's `policy` input depends on;
- regions: the v7 `region` input, else the resource's provider region.
Pairs whose region is unknown on either side are not judged.

Alibaba Cloud (RAM role -> policy -> OSS) and Tencent Cloud (CAM role -> policy -> COS) joins are
not followed yet: pools on those clouds are not judged by this rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from policies.context import resource_region
from policies.cost._common import describe, stack_pools
from policies.cost.pools import AWS_EKS_NODE_GROUP, Pool, ResourceIndex
from policies.props import as_list, get_ref, is_unknown, json_value
from policies.rule import GfStackPolicy, Rule, judge

PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
MANAGED_POLICY = "aws:iam/policy:Policy"
BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")

RULE = Rule(
    id="GF-COST-008",
    name="gpu-pools-near-their-buckets",
    description="GPU pools and the buckets they read live in the same region (no cross-region transfer).",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Create the bucket in the pool's region (set `region` on the v7 bucket or use a provider for "
        "that region), or replicate the data into a bucket in the pool's region and grant the pool's "
        "role that bucket instead."
    ),
    url="https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer",
)


def _bucket_names(document: Any) -> set[str]:
    names: set[str] = set()
    if not isinstance(document, dict):
        return names
    for statement in as_list(document.get("Statement")):
        if not isinstance(statement, dict) or statement.get("Effect", "Allow") != "Allow":
            continue
        for arn in as_list(statement.get("Resource")):
            if isinstance(arn, str) and arn.startswith("arn:aws:s3:::"):
                name = arn[len("arn:aws:s3:::") :].split("/", 1)[0]
                if name and "*" not in name:
                    names.add(name)
    return names


class _Joins:
    def __init__(self, index: ResourceIndex) -> None:
        self.index = index
        self.docs_by_role: dict[str, list[tuple[Any, str]]] = defaultdict(list)
        for role_policy in index.of_type(ROLE_POLICY):
            for role in index.refs(role_policy, "role", (ROLE,)):
                self.docs_by_role[role.urn].append((role_policy, "policy"))
        for attachment in index.of_type(ATTACHMENT):
            managed = index.refs(attachment, "policyArn", (MANAGED_POLICY,))
            for role in index.refs(attachment, "role", (ROLE,)):
                self.docs_by_role[role.urn].extend((policy, "policy") for policy in managed)

    def roles(self, pool: Pool) -> list[Any]:
        found: dict[str, Any] = {}
        for urn in pool.role_refs:
            source = self.index.by_urn.get(urn)
            if source is None:
                continue
            if source.resource_type == AWS_EKS_NODE_GROUP:
                for role in self.index.refs(source, "nodeRoleArn", (ROLE,)):
                    found[role.urn] = role
                continue
            profile_value = get_ref(source.props, "iamInstanceProfile")
            candidates: Iterable[Any] = [profile_value]
            if isinstance(profile_value, dict) or hasattr(profile_value, "keys"):
                candidates = [get_ref(profile_value, "name"), get_ref(profile_value, "arn")]
            for candidate in candidates:
                value = candidate if isinstance(candidate, str) else ""
                for profile in self.index.refs(source, "iamInstanceProfile", (PROFILE,), value=value):
                    for role in self.index.refs(profile, "role", (ROLE,)):
                        found[role.urn] = role
        return list(found.values())

    def buckets(self, role: Any) -> list[Any]:
        found: dict[str, Any] = {}
        sources = [*self.docs_by_role.get(role.urn, []), (role, "inlinePolicies")]
        for resource, prop in sources:
            for bucket in self.index.refs(resource, prop, BUCKETS, value=""):
                found[bucket.urn] = bucket
            documents = []
            if prop == "inlinePolicies":
                documents = [get_ref(item, "policy") for item in as_list(get_ref(resource.props, prop))]
            else:
                documents = [get_ref(resource.props, prop)]
            for document in documents:
                if document is None or is_unknown(document):
                    continue
                for name in _bucket_names(json_value(document)):
                    for bucket in self.index.refs(resource, prop, BUCKETS, value=name):
                        found[bucket.urn] = bucket
        return list(found.values())


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    pools, index = stack_pools(args)
    joins = _Joins(index)
    for pool in pools:
        if pool.cloud != "aws" or pool.region is None:
            continue

        def check(pool: Pool = pool) -> None:
            for role in joins.roles(pool):
                for bucket in joins.buckets(role):
                    region = resource_region(bucket.props, bucket.provider)
                    if region and region != pool.region:
                        report(
                            f"{describe(pool)} in {pool.region} reads S3 bucket '{bucket.name}' in "
                            f"{region} through role '{role.name}'; keep them in one region to avoid "
                            "cross-region transfer charges",
                            pool.urn,
                        )

        judge(report, pool.urn, check)


POLICY = GfStackPolicy(RULE, validate)
