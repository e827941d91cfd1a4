from __future__ import annotations

import pytest

from gpufleet.components.storage.aws import CheckpointBucket, CheckpointBucketArgs, transition_storage_class

from .builders import KEY_ARN, TAGS
from .conftest import Runner, document, statements_by_sid

BUCKET = "ckpt-bucket-0a1b2c3"
BUCKET_ARN = f"arn:aws:s3:::{BUCKET}"


@pytest.mark.parametrize(
    ("ia_after", "expire_after", "expected"),
    [
        # Intelligent-Tiering bills less only 30 days after the move: with 30 days or fewer left, never.
        (0, 30, None),
        (7, 30, None),  # the seeds' numbers: STANDARD_IA is refused before day 30, IT cannot pay off
        (7, 37, None),
        (7, 38, "INTELLIGENT_TIERING"),
        (29, 90, "INTELLIGENT_TIERING"),
        (30, 60, "STANDARD_IA"),
        (30, 59, None),  # 29 days left: STANDARD_IA would bill 30, IT would never reach its cheaper tier
        (30, 61, "STANDARD_IA"),
        (45, 365, "STANDARD_IA"),
        (30, 30, None),  # expires before it could move
        (40, 30, None),
    ],
)
def test_transition_class_is_one_s3_accepts_and_bills_fairly(
    ia_after: int, expire_after: int, expected: str | None
) -> None:
    assert transition_storage_class(ia_after, expire_after) == expected


def _build(**overrides: object):  # type: ignore[no-untyped-def]
    values: dict[str, object] = {"kms_key_arn": KEY_ARN, "tags": TAGS, "classification": "restricted"}
    values.update(overrides)
    return lambda: CheckpointBucket("ckpt", CheckpointBucketArgs(**values))  # type: ignore[arg-type]


def test_children_are_the_bucket_and_its_separate_resources(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    assert mocks.names_by_type() == [
        ("aws:s3/bucket:Bucket", "ckpt-bucket"),
        ("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "ckpt-lifecycle"),
        ("aws:s3/bucketPolicy:BucketPolicy", "ckpt-policy"),
        ("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "ckpt-public-access"),
        (
            "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
            "ckpt-encryption",
        ),
        ("aws:s3/bucketVersioning:BucketVersioning", "ckpt-versioning"),
        ("gpufleet:storage:CheckpointBucket", "ckpt"),
    ]
    bucket = mocks.one("aws:s3/bucket:Bucket", "ckpt-bucket").inputs
    assert bucket["tags"] == {**TAGS, "purpose": "checkpoints", "data-classification": "restricted"}
    assert bucket["forceDestroy"] is False


def test_encryption_is_sse_kms_with_the_fleet_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    sse = mocks.one(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "ckpt-encryption",
    ).inputs
    assert sse["bucket"] == "ckpt-bucket-id"
    assert sse["rules"] == [
        {
            "applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": KEY_ARN},
            "bucketKeyEnabled": True,
        }
    ]


def test_versioning_and_lifecycle(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    versioning = mocks.one("aws:s3/bucketVersioning:BucketVersioning", "ckpt-versioning").inputs
    assert versioning["versioningConfiguration"] == {"status": "Enabled"}
    rules = {
        r["id"]: r
        for r in mocks.one(
            "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "ckpt-lifecycle"
        ).inputs["rules"]
    }
    assert rules["checkpoints"] == {
        "id": "checkpoints",
        "status": "Enabled",
        "filter": {"prefix": "checkpoints/"},
        "expiration": {"days": 30},
        "noncurrentVersionExpiration": {"noncurrentDays": 7},
        "abortIncompleteMultipartUpload": {"daysAfterInitiation": 7},
    }
    assert rules["whole-bucket-cleanup"] == {
        "id": "whole-bucket-cleanup",
        "status": "Enabled",
        "filter": {"prefix": ""},
        "noncurrentVersionExpiration": {"noncurrentDays": 7},
        "abortIncompleteMultipartUpload": {"daysAfterInitiation": 7},
    }


def test_lifecycle_uses_standard_ia_when_the_ages_allow(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(ia_after_days=30, expire_after_days=90))
    rule = mocks.one(
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "ckpt-lifecycle"
    ).inputs["rules"][0]
    assert rule["transitions"] == [{"days": 30, "storageClass": "STANDARD_IA"}]
    assert rule["expiration"] == {"days": 90}


def test_public_access_is_blocked_four_ways(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    block = mocks.one("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "ckpt-public-access").inputs
    assert {
        k: block[k]
        for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    } == dict.fromkeys(
        ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"), True
    )


def test_bucket_policy_denies_plain_http_and_old_tls(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    inputs = mocks.one("aws:s3/bucketPolicy:BucketPolicy", "ckpt-policy").inputs
    assert len(document(inputs)["Statement"]) == 5
    statements = statements_by_sid(inputs)
    resources = [BUCKET_ARN, f"{BUCKET_ARN}/*"]
    assert statements["DenyInsecureTransport"] == {
        "Sid": "DenyInsecureTransport",
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:*"],
        "Resource": resources,
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    assert statements["DenyOutdatedTls"] == {
        "Sid": "DenyOutdatedTls",
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:*"],
        "Resource": resources,
        "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.2"}},
    }


def test_bucket_policy_denies_uploads_not_under_the_bucket_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    statements = statements_by_sid(mocks.one("aws:s3/bucketPolicy:BucketPolicy", "ckpt-policy").inputs)
    deny_put = {
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:PutObject"],
        "Resource": [f"{BUCKET_ARN}/*"],
    }
    # SSE-S3 (AES256) or DSSE is refused; no header at all gets the bucket's default, SSE-KMS.
    assert statements["DenyNonKmsEncryption"] == {
        "Sid": "DenyNonKmsEncryption",
        **deny_put,
        "Condition": {"StringNotEqualsIfExists": {"s3:x-amz-server-side-encryption": "aws:kms"}},
    }
    # Another key is refused ...
    assert statements["DenyOtherKmsKeys"] == {
        "Sid": "DenyOtherKmsKeys",
        **deny_put,
        "Condition": {"StringNotEqualsIfExists": {"s3:x-amz-server-side-encryption-aws-kms-key-id": KEY_ARN}},
    }
    # ... and so is aws:kms without a key id, which S3 would encrypt under the AWS managed aws/s3 key.
    assert statements["DenyKmsWithoutKeyId"] == {
        "Sid": "DenyKmsWithoutKeyId",
        **deny_put,
        "Condition": {
            "StringEquals": {"s3:x-amz-server-side-encryption": "aws:kms"},
            "Null": {"s3:x-amz-server-side-encryption-aws-kms-key-id": "true"},
        },
    }


def test_args_report_every_problem() -> None:
    with pytest.raises(ValueError) as raised:
        CheckpointBucketArgs(
            kms_key_arn=KEY_ARN,
            tags=TAGS,
            ia_after_days=-1,
            abort_multipart_days=9,
            checkpoint_prefix="/ckpt",
        )
    assert str(raised.value) == (
        "CheckpointBucketArgs: ia_after_days: must not be negative; abort_multipart_days: 9 is outside "
        "1..7; checkpoint_prefix: '/ckpt' must look like 'name/'"
    )
