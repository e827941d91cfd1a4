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

import re

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.memo import per_stack
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.storage._buckets import (
    BUCKET_CLOUDS,
    Bucket,
    BucketIndex,
    encryptions,
    is_kms,
    judge_buckets,
)

RULE = Rule(
    id="GF-STOR-001",
    name="bucket-customer-managed-key",
    description=(
        "Buckets are encrypted at rest with a customer-managed KMS key (SSE-KMS / OSS KMS / COS KMS), "
        "not the provider-managed default."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "AWS: add an aws.s3.BucketServerSideEncryptionConfiguration with "
        "rules[].applyServerSideEncryptionByDefault.sseAlgorithm = 'aws:kms' and kmsMasterKeyId = the ARN "
        "of your aws.kms.Key. Alibaba Cloud: set serverSideEncryptionRule (or "
        "oss.BucketServerSideEncryption) "
        "sseAlgorithm = 'KMS' with kmsMasterKeyId = your kms.Key id. Tencent Cloud: set the COS bucket's "
        "encryptionAlgorithm = 'KMS' and kmsId = your kms.Key id."
    ),
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html",
    checkov=("CKV_AWS_145", "CKV_ALI_6"),
)

_DEFAULTS = {
    "aws": "has no server-side encryption configuration (S3 then uses AES256 with S3-managed keys)",
    "alicloud": "has no server-side encryption rule",
    "tencentcloud": "has no encryptionAlgorithm",
}
_MANAGED_KEY = {
    "aws": "the AWS-managed aws/s3 key (no kmsMasterKeyId)",
    "alicloud": "the OSS-managed default KMS key (no kmsMasterKeyId)",
    "tencentcloud": "the COS default KMS key (no kmsId)",
}
_EXPECTED = {
    "aws": "use aws:kms with a customer-managed KMS key (kmsMasterKeyId)",
    "alicloud": "use KMS with a customer-managed key (kmsMasterKeyId)",
    "tencentcloud": "use KMS with a customer-managed key (kmsId)",
}


# `alias/aws/<service>` names an AWS-managed key, bare or inside an alias ARN.
_AWS_MANAGED_ALIAS = re.compile(r"(^|:)alias/aws/[a-z0-9-]+$")


def _aws_managed_alias(cloud: str, key: object) -> bool:
    return cloud == "aws" and isinstance(key, str) and bool(_AWS_MANAGED_ALIAS.search(key.strip()))


def bucket_problems(bucket: Bucket) -> list[str]:
    """Why a bucket is not encrypted with a customer-managed key (empty when it is)."""
    found = encryptions(bucket)
    expected = _EXPECTED[bucket.cloud]
    if not found:
        return [f"{bucket.label} {_DEFAULTS[bucket.cloud]}; {expected}"]
    problems = []
    for encryption in found:
        if not is_kms(bucket.cloud, encryption.algorithm):
            problems.append(f"{bucket.label} is encrypted with {encryption.algorithm}; {expected}")
        elif encryption.key is None:
            problems.append(f"{bucket.label} is encrypted with {_MANAGED_KEY[bucket.cloud]}; {expected}")
        elif _aws_managed_alias(bucket.cloud, encryption.key):
            problems.append(
                f"{bucket.label} is encrypted with the AWS-managed key {encryption.key}, which the account "
                f"neither controls nor can rotate on its own terms; {expected}"
            )
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")
    judge_buckets(report, index.buckets, bucket_problems)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
