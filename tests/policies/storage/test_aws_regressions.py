"""Storage-rule behaviours found by judging raw-SDK AWS programs (tests/realworld/aws)."""

from __future__ import annotations

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.storage.bucket_customer_managed_key import POLICY

from .helpers import UNKNOWN, res, run_stack

AWS_BUCKET = "aws:s3/bucket:Bucket"
AWS_SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
TAIL = "use aws:kms with a customer-managed KMS key (kmsMasterKeyId)"


def _bucket_with_key(key: str) -> list[PolicyResource]:
    bucket = res(AWS_BUCKET, "ckpt")
    sse = res(
        AWS_SSE,
        "ckpt",
        {
            "bucket": UNKNOWN,
            "rules": [
                {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": key}}
            ],
        },
        prop_deps={"bucket": [bucket]},
    )
    return [bucket, sse]


@pytest.mark.parametrize("key", ["alias/aws/s3", "arn:aws:kms:eu-west-1:111122223333:alias/aws/s3"])
def test_naming_the_aws_managed_key_is_not_customer_managed(key: str) -> None:
    assert run_stack(POLICY, _bucket_with_key(key)) == [
        (
            f"S3 bucket 'ckpt' is encrypted with the AWS-managed key {key}, which the account neither "
            f"controls nor can rotate on its own terms; {TAIL}",
            "urn:pulumi:dev::gpufleet::aws:s3/bucket:Bucket::ckpt",
        )
    ]


@pytest.mark.parametrize(
    "key", ["alias/vision-ckpt", "arn:aws:kms:eu-west-1:111122223333:alias/aws-prod-keys", UNKNOWN]
)
def test_customer_aliases_and_unknown_key_references_pass(key: str) -> None:
    assert run_stack(POLICY, _bucket_with_key(key)) == []
