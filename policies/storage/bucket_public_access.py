"""GF-STOR-003: buckets block all public access.

- AWS: all four public-access-block flags (`blockPublicAcls`, `blockPublicPolicy`, `ignorePublicAcls`,
  `restrictPublicBuckets`) are true, each on the bucket's `BucketPublicAccessBlock` or on the
  account's `AccountPublicAccessBlock` (which covers every bucket of the account), and no public
  canned ACL or grant to the AllUsers/AuthenticatedUsers groups (inline `acl`/`grants`, `BucketAcl[V2]`).
  S3 turns the flags on for new buckets, but the pack asks for them to be declared, so that a
  later change or an account-level setting cannot silently turn them off.
- Alibaba OSS: ACL `private` (inline `acl` or `oss.BucketAcl`; OSS defaults to private) and a
  public-access block (`oss.BucketPublicAccessBlock` or `oss.AccountPublicAccessBlock`,
  `blockPublicAccess` true). With the block on, OSS refuses public bucket policies, so the policy is
  judged only without one.
- Tencent COS has no public-access-block resource: the bucket's ACL is `private` (the default), its
  `aclBody` grants nothing to AllUsers, and no `Cos.BucketPolicy` allows anyone without a condition.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import get, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.storage._buckets import BUCKET_CLOUDS, Bucket, BucketIndex, judge_buckets, walk
from gpufleet.policies.storage._documents import condition, effect, is_wildcard_principal, statements

RULE = Rule(
    id="GF-STOR-003",
    name="bucket-public-access-blocked",
    description=(
        "Buckets block all public access (all four S3 public-access-block flags; OSS/COS private ACL and "
        "public-access block)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "AWS: add an aws.s3.BucketPublicAccessBlock for the bucket (or one aws.s3.AccountPublicAccessBlock) "
        "with blockPublicAcls, blockPublicPolicy, ignorePublicAcls and restrictPublicBuckets = true, and "
        "remove public ACLs. Alibaba Cloud: keep the bucket ACL 'private' and add an "
        "oss.BucketPublicAccessBlock with blockPublicAccess = true. Tencent Cloud: keep acl = 'private', "
        "grant nothing to AllUsers in aclBody and allow no anonymous principal in the bucket policy."
    ),
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html",
    checkov=("CKV_AWS_53", "CKV_AWS_54", "CKV_AWS_55", "CKV_AWS_56", "CKV2_AWS_6", "CKV_ALI_1"),
)

FLAGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read"})
PUBLIC_GROUPS = ("allusers", "authenticatedusers")


def _aws(bucket: Bucket, account: list[PolicyResource]) -> list[str]:
    problems = []
    blocks = [r.props for r in bucket.of("public_access_block")] + [r.props for r in account]
    missing = [flag for flag in FLAGS if not any(truthy(get(block, flag)) for block in blocks)]
    if not blocks:
        problems.append(
            f"{bucket.label} has no public access block (neither a BucketPublicAccessBlock nor an "
            "AccountPublicAccessBlock); set all four flags to true"
        )
    elif missing:
        problems.append(
            f"{bucket.label} does not block public access: {', '.join(missing)} not true on its "
            "BucketPublicAccessBlock or the AccountPublicAccessBlock; set all four flags to true"
        )
    for source in [bucket.resource, *bucket.of("acl")]:
        acl = get(source.props, "acl")
        if isinstance(acl, str) and acl.lower() in PUBLIC_ACLS:
            problems.append(f"{bucket.label} has the public canned ACL {acl}; use private")
        grants = walk(source.props, "grants") + walk(source.props, "accessControlPolicy", "grants", "grantee")
        for grant in grants:
            uri = str(get(grant, "uri") or "").lower()
            if uri.endswith(PUBLIC_GROUPS):
                problems.append(
                    f"{bucket.label} grants access to the group {get(grant, 'uri')}; remove the grant"
                )
    return problems


def _anonymous_allows(policy_sources: list[tuple[object, str]]) -> bool:
    return any(
        effect(statement) == "allow" and is_wildcard_principal(statement) and not condition(statement)
        for document, path in policy_sources
        for statement in statements(document, path)
    )


def _anonymous_allows_unless_failing(
    policy_sources: Callable[[], list[tuple[object, str]]], problems: list[str]
) -> bool:
    """Whether a policy allows anyone; a policy unknown at preview (built with `apply` from the
    bucket's or a key's id) leaves the bucket unjudged only when no known setting already fails it,
    so a public ACL or a missing block is still reported at preview."""
    try:
        return _anonymous_allows(policy_sources())
    except UnknownValueError:
        if problems:
            return False
        raise


def _oss(bucket: Bucket, account: list[PolicyResource]) -> list[str]:
    problems = []
    for source in [bucket.resource, *bucket.of("acl")]:
        acl = get(source.props, "acl")
        if isinstance(acl, str) and acl.lower() != "private":
            problems.append(f"{bucket.label} has the ACL {acl}; use private")
    blocks = [r.props for r in bucket.of("public_access_block")] + [r.props for r in account]
    if any(truthy(get(block, "blockPublicAccess")) for block in blocks):
        # The block makes OSS refuse public bucket policies, so the policy is not read (at preview
        # it is usually an unknown document built from the bucket's name).
        return problems
    problems.append(
        f"{bucket.label} has no public access block (oss.BucketPublicAccessBlock or "
        "oss.AccountPublicAccessBlock with blockPublicAccess = true); add one"
    )

    def documents() -> list[tuple[object, str]]:
        return [(get(bucket.props, "policy"), "policy")] + [
            (get(r.props, "policy"), "policy") for r in bucket.of("policy")
        ]

    if _anonymous_allows_unless_failing(documents, problems):
        problems.append(f"{bucket.label} has a bucket policy that allows any principal without a condition")
    return problems


def _cos(bucket: Bucket) -> list[str]:
    problems = []
    acl = get(bucket.props, "acl")
    if isinstance(acl, str) and acl.lower() != "private":
        problems.append(f"{bucket.label} has the ACL {acl}; use private")
    body = get(bucket.props, "aclBody")
    if isinstance(body, str) and "allusers" in body.lower():
        problems.append(f"{bucket.label} has an aclBody that grants access to AllUsers; remove the grant")

    def documents() -> list[tuple[object, str]]:
        return [(get(r.props, "policy"), "policy") for r in bucket.of("policy")]

    if _anonymous_allows_unless_failing(documents, problems):
        problems.append(f"{bucket.label} has a bucket policy that allows any principal without a condition")
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")

    def problems(bucket: Bucket) -> list[str]:
        account = index.account_level.get(bucket.cloud, [])
        if bucket.cloud == "aws":
            return _aws(bucket, account)
        if bucket.cloud == "alicloud":
            return _oss(bucket, account)
        return _cos(bucket)

    judge_buckets(report, index.buckets, problems)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
