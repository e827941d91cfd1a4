from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel, PolicyResource

from gpufleet.policies.resilience.checkpoint_replication import POLICY, RULE
from gpufleet.policies.storage.alicloud import OSS_BUCKET, OSS_REPLICATION
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_REPLICATION
from gpufleet.policies.storage.tencentcloud import COS_BUCKET

from .helpers import UNKNOWN, NotApplicable, provider, res, run_stack

PROD = {"purpose": "checkpoints", "env": "prod"}


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-DR-001", "checkpoint-bucket-replication")
    assert POLICY.enforcement_level == EnforcementLevel.ADVISORY


def s3_pair(dest_region: str) -> tuple[PolicyResource, list[PolicyResource]]:
    source = res(AWS_BUCKET, "ckpt", {"tags": PROD}, prov=provider("aws", "us-east-1"))
    replica = res(AWS_BUCKET, "ckpt-replica", {}, prov=provider("aws", dest_region, "dr"))
    config = res(
        AWS_REPLICATION,
        "repl",
        {
            "bucket": UNKNOWN,
            "role": UNKNOWN,
            "rules": [{"status": "Enabled", "destination": {"bucket": UNKNOWN}}],
        },
        prop_deps={"bucket": [source], "rules": [replica]},
    )
    return source, [source, replica, config]


def test_s3_cross_region_passes() -> None:
    _, resources = s3_pair("us-west-2")
    assert run_stack(POLICY, resources) == []


def test_s3_same_region_fails() -> None:
    source, resources = s3_pair("us-east-1")
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' replicates only within its own region us-east-1; replicate it to a second "
            "region "
            "or cloud",
            source.urn,
        )
    ]


def test_missing_replication() -> None:
    bucket = res(COS_BUCKET, "ckpt", {"tags": {"purpose": "checkpoints"}}, stack="prod")
    assert run_stack(POLICY, [bucket]) == [
        (
            "COS bucket 'ckpt' is a production checkpoint bucket without replication; replicate it to a "
            "bucket "
            "in a second region or cloud",
            bucket.urn,
        )
    ]


def test_inline_oss_and_cos_shapes() -> None:
    inline = res(
        AWS_BUCKET,
        "a",
        {
            "tags": PROD,
            "replicationConfiguration": {
                "role": "arn:aws:iam::1:role/r",
                "rules": [{"status": "Enabled", "destination": {"bucket": "arn:aws:s3:::elsewhere"}}],
            },
        },
    )
    oss = res(OSS_BUCKET, "b", {"tags": PROD}, prov=provider("alicloud", "cn-hangzhou"))
    oss_repl = res(
        OSS_REPLICATION,
        "b-repl",
        {"bucket": UNKNOWN, "destination": {"bucket": "dr", "location": "oss-cn-beijing"}},
        prop_deps={"bucket": [oss]},
    )
    cos = res(
        COS_BUCKET,
        "c",
        {
            "tags": PROD,
            "versioningEnable": True,
            "replicaRole": "qcs::cam::uin/1:roleName/r",
            "replicaRules": [{"status": "Enabled", "destinationBucket": "qcs::cos:ap-shanghai::dr-125"}],
        },
        prov=provider("tencentcloud", "ap-guangzhou"),
    )
    assert run_stack(POLICY, [inline, oss, oss_repl, cos]) == []
    same = res(
        COS_BUCKET,
        "d",
        {
            "tags": PROD,
            "replicaRules": [{"status": "Enabled", "destinationBucket": "qcs::cos:ap-guangzhou::dr-125"}],
        },
        prov=provider("tencentcloud", "ap-guangzhou"),
    )
    assert [u for _, u in run_stack(POLICY, [same])] == [same.urn]


def test_not_applicable_outside_production() -> None:
    with pytest.raises(NotApplicable, match="no production bucket"):
        run_stack(POLICY, [res(AWS_BUCKET, "ckpt", {"tags": {"purpose": "checkpoints"}}, stack="dev")])


def test_stack_tag_marks_production() -> None:
    bucket = res(AWS_BUCKET, "ckpt", {"tags": {"purpose": "checkpoints"}}, stack="blue")
    assert [u for _, u in run_stack(POLICY, [bucket], stack_tags={"environment": "production"})] == [
        bucket.urn
    ]


def test_unknown_and_proxy() -> None:
    bucket = res(COS_BUCKET, "c", {"tags": PROD, "replicaRules": [{"status": UNKNOWN}]})
    found = run_stack(POLICY, [bucket], proxy=True)
    assert [(m.startswith("could not be judged at preview"), u) for m, u in found] == [(True, bucket.urn)]


def test_a_cross_region_replica_is_the_second_copy() -> None:
    # One-way replication: the replica, itself a production checkpoint bucket, needs no replication of
    # its own; a same-region "replica" still does.
    def pair(dest_region: str) -> tuple[PolicyResource, list[PolicyResource]]:
        source = res(AWS_BUCKET, "ckpt", {"tags": PROD}, prov=provider("aws", "us-east-1"))
        replica = res(AWS_BUCKET, "ckpt-replica", {"tags": PROD}, prov=provider("aws", dest_region, "dr"))
        config = res(
            AWS_REPLICATION,
            "repl",
            {
                "bucket": UNKNOWN,
                "role": UNKNOWN,
                "rules": [{"status": "Enabled", "destination": {"bucket": UNKNOWN}}],
            },
            prop_deps={"bucket": [source], "rules": [replica]},
        )
        return replica, [source, replica, config]

    _, resources = pair("us-west-2")
    assert run_stack(POLICY, resources) == []
    replica, resources = pair("us-east-1")
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' replicates only within its own region us-east-1; replicate it to a second "
            "region or cloud",
            resources[0].urn,
        ),
        (
            "S3 bucket 'ckpt-replica' is a production checkpoint bucket without replication; replicate it "
            "to a bucket in a second region or cloud",
            replica.urn,
        ),
    ]
