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

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.memo import per_stack
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage._buckets import BUCKET_CLOUDS, PARTS, Bucket, BucketIndex, judge_buckets, part

RULE = Rule(
    id="GF-STOR-003",
    name="bucket-public-access-blocked",
    description=(
        "Buckets block all public access (all four S3 public-access-block flags; OSS/COS private ACL and "
        "public-access block)."
    ),
    clouds=clouds_with(PARTS, "PUBLIC_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=by_cloud_name(PARTS, "PUBLIC_REMEDIATION"),
    url=sole(PARTS, "PUBLIC_URL"),
    checkov=chained(PARTS, "PUBLIC_CHECKOV"),
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")

    def problems(bucket: Bucket) -> list[str]:
        account = index.account_level.get(bucket.cloud, [])
        # Each cloud's judgement of its own settings (`public_access_problems` in its module).
        found: list[str] = part(bucket.cloud).public_access_problems(bucket, account)
        return found

    judge_buckets(report, index.buckets, problems)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
