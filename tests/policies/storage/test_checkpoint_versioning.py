from __future__ import annotations

from collections.abc import Mapping

import pytest
from pulumi_policy import EnforcementLevel, PolicyResource

from gpufleet.policies.storage.alicloud import OSS_BUCKET, OSS_VERSIONING
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_LIFECYCLE, AWS_VERSIONING
from gpufleet.policies.storage.checkpoint_versioning import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET

from .helpers import UNKNOWN, NotApplicable, res, run_stack

TAGS = {"purpose": "checkpoints"}
NONCURRENT = {"status": "Enabled", "noncurrentVersionExpiration": {"noncurrentDays": 7}}


def s3(
    status: str = "Enabled", rules: list[Mapping[str, object]] | None = None
) -> tuple[PolicyResource, list[PolicyResource]]:
    bucket = res(AWS_BUCKET, "ckpt", {"tags": TAGS})
    versioning = res(
        AWS_VERSIONING,
        "v",
        {"bucket": UNKNOWN, "versioningConfiguration": {"status": status}},
        prop_deps={"bucket": [bucket]},
    )
    lifecycle = res(
        AWS_LIFECYCLE,
        "lc",
        {"bucket": UNKNOWN, "rules": rules or [NONCURRENT]},
        prop_deps={"bucket": [bucket]},
    )
    return bucket, [bucket, versioning, lifecycle]


def test_metadata() -> None:
    assert RULE.id == "GF-STOR-007"
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY
    assert RULE.defaults()["noncurrent_days"] == 7


def test_s3_passes() -> None:
    _, resources = s3()
    assert run_stack(POLICY, resources) == []


def test_s3_suspended() -> None:
    bucket, resources = s3("Suspended")
    assert run_stack(POLICY, resources) == [
        ("S3 bucket 'ckpt' is a checkpoint bucket but is not versioned; enable versioning", bucket.urn)
    ]


def test_s3_noncurrent_too_long_and_missing() -> None:
    bucket, resources = s3(
        rules=[{"status": "Enabled", "noncurrentVersionExpiration": {"noncurrentDays": 30}}]
    )
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' expires noncurrent versions after 30 days; expire them after at most 7 days",
            bucket.urn,
        )
    ]
    bucket, resources = s3(rules=[{"status": "Enabled", "expiration": {"days": 30}}])
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' is versioned but never expires noncurrent versions; expire them after at most "
            "7 days",
            bucket.urn,
        )
    ]


def test_inline_shapes_and_other_clouds() -> None:
    v7 = res(
        AWS_BUCKET,
        "a",
        {
            "tags": TAGS,
            "versioning": {"enabled": True},
            "lifecycleRules": [{"enabled": True, "noncurrentVersionExpiration": {"days": 3}}],
        },
    )
    oss = res(
        OSS_BUCKET,
        "b",
        {"tags": TAGS, "lifecycleRules": [{"enabled": True, "noncurrentVersionExpirations": [{"days": 7}]}]},
    )
    oss_v = res(OSS_VERSIONING, "bv", {"bucket": UNKNOWN, "status": "Enabled"}, prop_deps={"bucket": [oss]})
    cos = res(
        COS_BUCKET,
        "c",
        {
            "tags": TAGS,
            "versioningEnable": True,
            "lifecycleRules": [{"nonCurrentExpiration": {"nonCurrentDays": 5}}],
        },
    )
    assert run_stack(POLICY, [v7, oss, oss_v, cos]) == []
    unversioned = res(COS_BUCKET, "d", {"tags": TAGS})
    assert run_stack(POLICY, [unversioned]) == [
        ("COS bucket 'd' is a checkpoint bucket but is not versioned; enable versioning", unversioned.urn)
    ]


def test_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [res(COS_BUCKET, "d")])


def test_unknown_and_proxy() -> None:
    bucket = res(COS_BUCKET, "c", {"tags": TAGS, "versioningEnable": UNKNOWN})
    found = run_stack(POLICY, [bucket], proxy=True)
    assert [(m.startswith("could not be judged at preview"), u) for m, u in found] == [(True, bucket.urn)]
