from __future__ import annotations

from collections.abc import Mapping

import pytest
from pulumi_policy import EnforcementLevel, Severity

from gpufleet.policies.storage.alicloud import OSS_BUCKET, OSS_SSE
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_BUCKET_V2, AWS_SSE, AWS_SSE_V2
from gpufleet.policies.storage.bucket_customer_managed_key import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET

from .helpers import UNKNOWN, NotApplicable, res, run_stack

KEY_ARN = "arn:aws:kms:us-east-1:111122223333:key/abcd"


def aws_sse(algorithm: str, key: str | None = KEY_ARN) -> Mapping[str, object]:
    default: dict[str, object] = {"sseAlgorithm": algorithm}
    if key is not None:
        default["kmsMasterKeyId"] = key
    return {"rules": [{"applyServerSideEncryptionByDefault": default}]}


def test_metadata() -> None:
    assert RULE.id == "GF-STOR-001"
    assert POLICY.name == "bucket-customer-managed-key"
    assert POLICY.enforcement_level == EnforcementLevel.MANDATORY
    assert RULE.severity == Severity.HIGH
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud")
    assert RULE.checkov == ("CKV_AWS_145", "CKV_ALI_6")


@pytest.mark.parametrize("sse_type", [AWS_SSE, AWS_SSE_V2])
def test_aws_separate_configuration_joined_by_property_dependency(sse_type: str) -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    sse = res(sse_type, "ckpt-sse", {"bucket": UNKNOWN, **aws_sse("aws:kms")}, prop_deps={"bucket": [bucket]})
    assert run_stack(POLICY, [bucket, sse]) == []


def test_aws_separate_configuration_joined_by_name_and_by_dependency() -> None:
    bucket = res(AWS_BUCKET, "ckpt", {"bucket": "ckpt-123"})
    sse = res(AWS_SSE, "ckpt-sse", {"bucket": "ckpt-123", **aws_sse("aws:kms:dsse")})
    assert run_stack(POLICY, [bucket, sse]) == []
    other = res(AWS_BUCKET, "other")
    sse_dep = res(AWS_SSE, "o-sse", {"bucket": UNKNOWN, **aws_sse("aws:kms")}, deps=[other])
    assert run_stack(POLICY, [other, sse_dep]) == []


def test_aws_inline_v7_and_v2_shapes() -> None:
    v7 = res(
        AWS_BUCKET,
        "a",
        {
            "serverSideEncryptionConfiguration": {
                "rule": {
                    "applyServerSideEncryptionByDefault": {
                        "sseAlgorithm": "aws:kms",
                        "kmsMasterKeyId": UNKNOWN,
                    }
                }
            }
        },
    )
    v2 = res(
        AWS_BUCKET_V2,
        "b",
        {
            "serverSideEncryptionConfigurations": [
                {
                    "rules": [
                        {
                            "applyServerSideEncryptionByDefaults": [
                                {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": "k"}
                            ]
                        }
                    ]
                }
            ]
        },
    )
    assert run_stack(POLICY, [v7, v2]) == []


def test_aws_no_configuration() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    assert run_stack(POLICY, [bucket]) == [
        (
            "S3 bucket 'ckpt' has no server-side encryption configuration (S3 then uses AES256 with "
            "S3-managed keys); use aws:kms with a customer-managed KMS key (kmsMasterKeyId)",
            bucket.urn,
        )
    ]


def test_aws_aes256() -> None:
    bucket = res(AWS_BUCKET_V2, "ckpt")
    sse = res(AWS_SSE, "s", {"bucket": UNKNOWN, **aws_sse("AES256", None)}, prop_deps={"bucket": [bucket]})
    assert run_stack(POLICY, [bucket, sse]) == [
        (
            "S3 bucket 'ckpt' is encrypted with AES256; use aws:kms with a customer-managed KMS key "
            "(kmsMasterKeyId)",
            bucket.urn,
        )
    ]


def test_aws_managed_key() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    sse = res(AWS_SSE, "s", {"bucket": UNKNOWN, **aws_sse("aws:kms", None)}, prop_deps={"bucket": [bucket]})
    assert run_stack(POLICY, [bucket, sse]) == [
        (
            "S3 bucket 'ckpt' is encrypted with the AWS-managed aws/s3 key (no kmsMasterKeyId); use aws:kms "
            "with a customer-managed KMS key (kmsMasterKeyId)",
            bucket.urn,
        )
    ]


def test_oss_inline_and_separate() -> None:
    inline = res(
        OSS_BUCKET, "a", {"serverSideEncryptionRule": {"sseAlgorithm": "KMS", "kmsMasterKeyId": "key-1"}}
    )
    bucket = res(OSS_BUCKET, "b")
    separate = res(
        OSS_SSE,
        "b-sse",
        {"bucket": UNKNOWN, "sseAlgorithm": "KMS", "kmsMasterKeyId": UNKNOWN},
        prop_deps={"bucket": [bucket]},
    )
    assert run_stack(POLICY, [inline, bucket, separate]) == []


def test_oss_negatives() -> None:
    managed = res(OSS_BUCKET, "a", {"serverSideEncryptionRule": {"sseAlgorithm": "KMS"}})
    sm4 = res(OSS_BUCKET, "b", {"serverSideEncryptionRule": {"sseAlgorithm": "SM4"}})
    none = res(OSS_BUCKET, "c")
    assert run_stack(POLICY, [managed, sm4, none]) == [
        (
            "OSS bucket 'a' is encrypted with the OSS-managed default KMS key (no kmsMasterKeyId); use KMS "
            "with a customer-managed key (kmsMasterKeyId)",
            managed.urn,
        ),
        (
            "OSS bucket 'b' is encrypted with SM4; use KMS with a customer-managed key (kmsMasterKeyId)",
            sm4.urn,
        ),
        (
            "OSS bucket 'c' has no server-side encryption rule; use KMS with a customer-managed key "
            "(kmsMasterKeyId)",
            none.urn,
        ),
    ]


def test_cos() -> None:
    good = res(COS_BUCKET, "a", {"encryptionAlgorithm": "KMS", "kmsId": "kms-1"})
    aes = res(COS_BUCKET, "b", {"encryptionAlgorithm": "AES256"})
    default_key = res(COS_BUCKET, "c", {"encryptionAlgorithm": "KMS"})
    assert run_stack(POLICY, [good, aes, default_key]) == [
        ("COS bucket 'b' is encrypted with AES256; use KMS with a customer-managed key (kmsId)", aes.urn),
        (
            "COS bucket 'c' is encrypted with the COS default KMS key (no kmsId); use KMS with a "
            "customer-managed key (kmsId)",
            default_key.urn,
        ),
    ]


def test_not_applicable_without_buckets() -> None:
    with pytest.raises(NotApplicable, match="no S3, OSS or COS bucket"):
        run_stack(POLICY, [res("aws:ec2/instance:Instance", "i")])


def test_unknown_algorithm_is_not_passed() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    sse = res(AWS_SSE, "s", {"bucket": UNKNOWN, **aws_sse(UNKNOWN)}, prop_deps={"bucket": [bucket]})
    assert run_stack(POLICY, [bucket, sse]) == [
        (
            "could not be judged at preview: the string value at .sseAlgorithm can't be known during preview",
            bucket.urn,
        )
    ]


def test_wrapped_proxy() -> None:
    bucket = res(COS_BUCKET, "a", {"encryptionAlgorithm": UNKNOWN, "kmsId": "k"})
    good = res(COS_BUCKET, "b", {"encryptionAlgorithm": "KMS", "kmsId": UNKNOWN})
    found = run_stack(POLICY, [bucket, good], proxy=True)
    assert len(found) == 1
    assert found[0][1] == bucket.urn
    assert found[0][0].startswith("could not be judged at preview")


@pytest.mark.parametrize("sse_type", [AWS_SSE, AWS_SSE_V2])
def test_aws_configuration_naming_another_bucket_does_not_encrypt_the_one_it_depends_on(
    sse_type: str,
) -> None:
    # depends_on points at 'ckpt' while the configuration's bucket input names a bucket outside the stack.
    bucket = res(AWS_BUCKET, "ckpt", {"bucket": "ckpt-123"})
    sse = res(sse_type, "ckpt-sse", {"bucket": "scratch-999", **aws_sse("aws:kms")}, deps=[bucket])
    assert run_stack(POLICY, [bucket, sse]) == [
        (
            "S3 bucket 'ckpt' has no server-side encryption configuration (S3 then uses AES256 with "
            "S3-managed keys); use aws:kms with a customer-managed KMS key (kmsMasterKeyId)",
            bucket.urn,
        )
    ]
    assert POLICY.enforcement_level == EnforcementLevel.MANDATORY


def test_aws_configuration_naming_the_bucket_or_unknown_still_joins_by_dependency() -> None:
    bucket = res(AWS_BUCKET, "ckpt", {"bucket": "ckpt-123"})
    by_name = res(AWS_SSE, "ckpt-sse", {"bucket": "ckpt-123", **aws_sse("aws:kms")}, deps=[bucket])
    assert run_stack(POLICY, [bucket, by_name]) == []
    by_id = res(AWS_BUCKET_V2, "data", {"id": "data-7"})
    sse_id = res(AWS_SSE_V2, "data-sse", {"bucket": "data-7", **aws_sse("aws:kms")}, deps=[by_id])
    assert run_stack(POLICY, [by_id, sse_id]) == []
    unknown = res(AWS_SSE, "u-sse", {"bucket": UNKNOWN, **aws_sse("aws:kms")}, deps=[bucket])
    assert run_stack(POLICY, [bucket, unknown]) == []


def test_oss_configuration_naming_another_bucket_does_not_encrypt_the_one_it_depends_on() -> None:
    bucket = res(OSS_BUCKET, "ckpt", {"bucket": "ckpt-oss"})
    rule = {"sseAlgorithm": "KMS", "kmsMasterKeyId": "key-1"}
    elsewhere = res(OSS_SSE, "ckpt-sse", {"bucket": "other-oss", **rule}, deps=[bucket])
    assert run_stack(POLICY, [bucket, elsewhere]) == [
        (
            "OSS bucket 'ckpt' has no server-side encryption rule; use KMS with a customer-managed key "
            "(kmsMasterKeyId)",
            bucket.urn,
        )
    ]
    joined = res(OSS_SSE, "ckpt-sse", {"bucket": "ckpt-oss", **rule}, deps=[bucket])
    assert run_stack(POLICY, [bucket, joined]) == []
