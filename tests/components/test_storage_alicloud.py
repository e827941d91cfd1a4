"""OssCheckpointBucket: SSE-KMS with the site key, private, public access blocked, TLS only, versioned,
and a lifecycle whose IA move pays off (IA's 30-day minimum counts from the object's creation)."""

from __future__ import annotations

import json

import pytest

from gpufleet.components.storage.alicloud import (
    OssCheckpointBucket,
    OssCheckpointBucketArgs,
    ia_transition_days,
    tls_only_policy,
)
from tests.components.alicloud_builders import TAGS
from tests.components.conftest import RecordingMocks, Runner

BUCKET = "ckpt-bucket-0a1b2c3"


def build(run_pulumi: Runner, **changes: object) -> RecordingMocks:
    args = OssCheckpointBucketArgs(kms_key_id="key-hzz0001", tags=TAGS, **changes)  # type: ignore[arg-type]
    return run_pulumi(lambda: OssCheckpointBucket("ckpt", args))


def test_children_and_their_security_settings(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi)
    assert [n for t, n in mocks.names_by_type() if t.startswith("alicloud:")] == [
        "ckpt-bucket",
        "ckpt-acl",
        "ckpt-https",
        "ckpt-tls-only",
        "ckpt-public-access",
    ]
    bucket = mocks.one("alicloud:oss/bucket:Bucket", "ckpt-bucket").inputs
    # On the bucket itself, so it never exists unencrypted or unversioned (and checkov reads them there).
    assert bucket["serverSideEncryptionRule"] == {"sseAlgorithm": "KMS", "kmsMasterKeyId": "key-hzz0001"}
    assert bucket["versioning"] == {"status": "Enabled"}
    assert mocks.one("alicloud:oss/bucketAcl:BucketAcl", "ckpt-acl").inputs["acl"] == "private"
    block = mocks.one("alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock", "ckpt-public-access")
    assert block.inputs["blockPublicAccess"] is True
    https = mocks.one("alicloud:oss/bucketHttpsConfig:BucketHttpsConfig", "ckpt-https").inputs
    assert https["enable"] is True
    assert https["tlsVersions"] == ["TLSv1.2", "TLSv1.3"]
    for deprecated in ("acl", "policy", "refererConfig"):
        assert deprecated not in bucket
    assert bucket["tags"] == {**TAGS, "purpose": "checkpoints", "data-classification": "internal"}


def test_policy_denies_plain_http_on_the_bucket_and_its_objects(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi)
    policy = json.loads(mocks.one("alicloud:oss/bucketPolicy:BucketPolicy", "ckpt-tls-only").inputs["policy"])
    assert policy == json.loads(tls_only_policy(BUCKET))
    [statement] = policy["Statement"]
    assert statement["Effect"] == "Deny"
    assert statement["Principal"] == ["*"]
    assert statement["Action"] == ["oss:*"]
    assert statement["Resource"] == [f"acs:oss:*:*:{BUCKET}", f"acs:oss:*:*:{BUCKET}/*"]
    assert statement["Condition"] == {"Bool": {"acs:SecureTransport": ["false"]}}


def test_default_lifecycle_moves_checkpoints_to_ia_at_7_days_and_expires_them_at_30(
    run_pulumi: Runner,
) -> None:
    """OSS bills IA's 30 days from the object's creation: the seed's 7-day move costs nothing extra."""
    mocks = build(run_pulumi)
    [rule, uploads] = mocks.one("alicloud:oss/bucket:Bucket", "ckpt-bucket").inputs["lifecycleRules"]
    assert rule["enabled"] is True
    # The checkpoints only: datasets share the bucket and must outlive the 30 days.
    assert rule["prefix"] == "checkpoints/"
    assert rule["transitions"] == [{"days": 7, "storageClass": "IA"}]
    assert rule["expirations"] == [{"days": 30}]
    assert rule["noncurrentVersionExpirations"] == [{"days": 7}]
    assert rule["abortMultipartUploads"] == [{"days": 1}]
    # Unfinished uploads anywhere in the bucket, and nothing else.
    assert uploads == {
        "id": "abort-incomplete-uploads",
        "enabled": True,
        "prefix": "",
        "abortMultipartUploads": [{"days": 1}],
    }


def test_an_empty_checkpoint_prefix_is_refused() -> None:
    with pytest.raises(ValueError, match="checkpoint_prefix: must not be empty"):
        OssCheckpointBucketArgs(kms_key_id="k", tags=TAGS, checkpoint_prefix="")


def test_a_long_lifetime_gets_the_ia_transition(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, ia_after_days=7, expire_after_days=90)
    [rule, _] = mocks.one("alicloud:oss/bucket:Bucket", "ckpt-bucket").inputs["lifecycleRules"]
    assert rule["transitions"] == [{"days": 7, "storageClass": "IA"}]
    assert rule["expirations"] == [{"days": 90}]


@pytest.mark.parametrize(
    ("ia", "expire", "days"),
    [(7, 30, 7), (0, 30, 0), (7, 37, 7), (29, 30, 29), (7, 29, None), (30, 30, None), (60, 30, None)],
)
def test_ia_where_objects_live_30_days_from_creation(ia: int, expire: int, days: int | None) -> None:
    assert ia_transition_days(ia, expire) == days


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="ia_after_days: must not be negative"):
        OssCheckpointBucketArgs(kms_key_id="k", tags=TAGS, ia_after_days=-1)
