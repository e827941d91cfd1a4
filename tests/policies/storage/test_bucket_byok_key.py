from __future__ import annotations

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.kms.alicloud import ALI_KEY
from gpufleet.policies.kms.aws import AWS_ALIAS, AWS_EXTERNAL_KEY, AWS_KEY
from gpufleet.policies.kms.tencentcloud import TC_EXTERNAL_KEY, TC_KEY
from gpufleet.policies.storage.alicloud import OSS_BUCKET
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_SSE
from gpufleet.policies.storage.bucket_byok_key import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET

from .helpers import UNKNOWN, NotApplicable, res, run_stack

RESTRICTED = {"data-classification": "restricted"}


def aws_stack(key_type: str) -> tuple[list[PolicyResource], PolicyResource]:
    key = res(key_type, "ckpt-key")
    bucket = res(AWS_BUCKET, "ckpt", {"tags": RESTRICTED})
    sse = res(
        AWS_SSE,
        "ckpt-sse",
        {
            "bucket": UNKNOWN,
            "rules": [
                {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": UNKNOWN}}
            ],
        },
        prop_deps={"bucket": [bucket], "rules": [key]},
    )
    return [key, bucket, sse], bucket


def test_metadata() -> None:
    assert RULE.id == "GF-STOR-002"
    assert RULE.defaults() == {"classification_tag": "data-classification", "byok_values": ["restricted"]}


def test_aws_external_key_passes() -> None:
    resources, _ = aws_stack(AWS_EXTERNAL_KEY)
    assert run_stack(POLICY, resources) == []


def test_aws_generated_key_fails() -> None:
    resources, bucket = aws_stack(AWS_KEY)
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' is classified data-classification=restricted but its key 'ckpt-key' "
            "(aws:kms/key:Key) has provider-generated key material; use a key whose material is imported "
            "(origin EXTERNAL)",
            bucket.urn,
        )
    ]


def test_aws_known_arns_and_alias() -> None:
    key = res(AWS_EXTERNAL_KEY, "k", {"arn": "arn:aws:kms:us-east-1:1:key/x", "id": "x"})
    alias = res(AWS_ALIAS, "a", {"name": "alias/ckpt", "targetKeyId": "x"})
    by_arn = res(
        AWS_BUCKET,
        "one",
        {
            "tags": RESTRICTED,
            "serverSideEncryptionConfiguration": {
                "rule": {
                    "applyServerSideEncryptionByDefault": {
                        "sseAlgorithm": "aws:kms",
                        "kmsMasterKeyId": "arn:aws:kms:us-east-1:1:key/x",
                    }
                }
            },
        },
    )
    by_alias = res(
        AWS_BUCKET,
        "two",
        {
            "tags": RESTRICTED,
            "serverSideEncryptionConfiguration": {
                "rule": {
                    "applyServerSideEncryptionByDefault": {
                        "sseAlgorithm": "aws:kms",
                        "kmsMasterKeyId": "arn:aws:kms:us-east-1:1:alias/ckpt",
                    }
                }
            },
        },
    )
    assert run_stack(POLICY, [key, alias, by_arn, by_alias]) == []


def test_key_outside_stack_cannot_be_judged() -> None:
    bucket = res(
        COS_BUCKET, "ckpt", {"tags": RESTRICTED, "encryptionAlgorithm": "KMS", "kmsId": "kms-imported-123"}
    )
    assert run_stack(POLICY, [bucket]) == [
        (
            "COS bucket 'ckpt' is classified data-classification=restricted and uses key 'kms-imported-123', "
            "which is not managed in this stack, so its origin could not be judged; manage the key in the "
            "stack as a key with imported material (origin EXTERNAL)",
            bucket.urn,
        )
    ]


def test_restricted_bucket_without_cmk() -> None:
    bucket = res(
        OSS_BUCKET, "ckpt", {"tags": RESTRICTED, "serverSideEncryptionRule": {"sseAlgorithm": "AES256"}}
    )
    assert run_stack(POLICY, [bucket]) == [
        (
            "OSS bucket 'ckpt' is classified data-classification=restricted but is not encrypted with a "
            "customer-managed KMS key; encrypt it with a key whose material is imported (origin EXTERNAL)",
            bucket.urn,
        )
    ]


@pytest.mark.parametrize(("origin", "ok"), [("EXTERNAL", True), ("Aliyun_KMS", False), (None, False)])
def test_alicloud_key_origin(origin: str | None, ok: bool) -> None:
    key = res(ALI_KEY, "k", {"origin": origin} if origin else {})
    bucket = res(
        OSS_BUCKET,
        "ckpt",
        {"tags": RESTRICTED, "serverSideEncryptionRule": {"sseAlgorithm": "KMS", "kmsMasterKeyId": UNKNOWN}},
        prop_deps={"serverSideEncryptionRule": [key]},
    )
    expected = (
        []
        if ok
        else [
            (
                "OSS bucket 'ckpt' is classified data-classification=restricted but its key 'k' "
                f"(alicloud:kms/key:Key) has origin {origin or 'Aliyun_KMS'}; use a key whose material is "
                "imported "
                "(origin EXTERNAL)",
                bucket.urn,
            )
        ]
    )
    assert run_stack(POLICY, [key, bucket]) == expected


@pytest.mark.parametrize(("key_type", "ok"), [(TC_EXTERNAL_KEY, True), (TC_KEY, False)])
def test_tencent_keys(key_type: str, ok: bool) -> None:
    key = res(key_type, "k", {"id": "kms-1"})
    bucket = res(COS_BUCKET, "ckpt", {"tags": RESTRICTED, "encryptionAlgorithm": "KMS", "kmsId": "kms-1"})
    assert (run_stack(POLICY, [key, bucket]) == []) is ok


def test_config_and_not_applicable() -> None:
    bucket = res(COS_BUCKET, "ckpt", {"tags": {"class": "secret"}, "encryptionAlgorithm": "AES256"})
    with pytest.raises(NotApplicable, match="no bucket is tagged data-classification = restricted"):
        run_stack(POLICY, [bucket])
    found = run_stack(POLICY, [bucket], config={"classification_tag": "class", "byok_values": ["secret"]})
    assert [urn for _, urn in found] == [bucket.urn]


def test_unknown_algorithm_and_proxy() -> None:
    bucket = res(COS_BUCKET, "ckpt", {"tags": RESTRICTED, "encryptionAlgorithm": UNKNOWN, "kmsId": "kms-1"})
    found = run_stack(POLICY, [bucket], proxy=True)
    assert found == [
        (
            "could not be judged at preview: the string value at .encryptionAlgorithm can't be known during "
            "preview",
            bucket.urn,
        )
    ]
