"""GF-STOR-001: buckets are encrypted at rest with a customer-managed KMS key.

- AWS (`Bucket`, `BucketV2`, inline or through `BucketServerSideEncryptionConfiguration[V2]`):
  `sseAlgorithm` `aws:kms` or `aws:kms:dsse` with `kmsMasterKeyId` set. Without a key id S3 uses the
  AWS-managed `aws/s3` key, and naming it (`alias/aws/s3`, or its alias ARN) is the same key;
  `AES256` (and no configuration at all, which S3 treats as AES256) is S3-managed. All fail.
- Alibaba OSS (inline `serverSideEncryptionRule` or `BucketServerSideEncryption`): `KMS` with
  `kmsMasterKeyId`. `KMS` without a key id uses the OSS-managed default CMK, which the customer
  neither controls nor rotates, so it fails like the AWS-managed key; `AES256` and `SM4` fail.
- Tencent COS: `encryptionAlgorithm` `KMS` with `kmsId` (without it COS uses its default key).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.memo import per_stack
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage._buckets import (
    BUCKET_CLOUDS,
    PARTS,
    Bucket,
    BucketIndex,
    encryptions,
    is_kms,
    judge_buckets,
    part,
)

RULE = Rule(
    id="GF-STOR-001",
    name="bucket-customer-managed-key",
    description=(
        "Buckets are encrypted at rest with a customer-managed KMS key (SSE-KMS / OSS KMS / COS KMS), "
        "not the provider-managed default."
    ),
    clouds=clouds_with(PARTS, "CMK_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=by_cloud_name(PARTS, "CMK_REMEDIATION"),
    url=sole(PARTS, "CMK_URL"),
    checkov=chained(PARTS, "CMK_CHECKOV"),
)


def bucket_problems(bucket: Bucket) -> list[str]:
    """Why a bucket is not encrypted with a customer-managed key (empty when it is)."""
    found = encryptions(bucket)
    facts = part(bucket.cloud)
    expected = facts.CMK_EXPECTED
    if not found:
        return [f"{bucket.label} {facts.CMK_NO_CONFIGURATION}; {expected}"]
    # A cloud whose key references can name a provider-managed key says so (`cmk_managed_alias`).
    managed_alias = getattr(facts, "cmk_managed_alias", None)
    problems = []
    for encryption in found:
        if not is_kms(bucket.cloud, encryption.algorithm):
            problems.append(f"{bucket.label} is encrypted with {encryption.algorithm}; {expected}")
        elif encryption.key is None:
            problems.append(f"{bucket.label} is encrypted with {facts.CMK_PROVIDER_KEY}; {expected}")
        elif managed_alias is not None and (problem := managed_alias(bucket.label, encryption.key, expected)):
            problems.append(problem)
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")
    judge_buckets(report, index.buckets, bucket_problems)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
