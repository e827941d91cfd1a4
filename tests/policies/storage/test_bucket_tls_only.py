from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.storage.alicloud import OSS_BUCKET, OSS_HTTPS_CONFIG
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_BUCKET_POLICY
from gpufleet.policies.storage.bucket_tls_only import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET, COS_POLICY

from .helpers import UNKNOWN, NotApplicable, res, run_stack

S3_DENY = {
    "Sid": "DenyInsecureTransport",
    "Effect": "Deny",
    "Principal": {"AWS": "*"},
    "Action": "s3:*",
    "Resource": ["arn:aws:s3:::ckpt", "arn:aws:s3:::ckpt/*"],
    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
}
S3_TLS = {
    "Effect": "Deny",
    "Principal": "*",
    "Action": "s3:*",
    "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.3"}},
}


def aws(statements: list[Mapping[str, object]]) -> tuple[PolicyResource, list[PolicyResource]]:
    bucket = res(AWS_BUCKET, "ckpt")
    policy = res(
        AWS_BUCKET_POLICY,
        "ckpt-policy",
        {"bucket": UNKNOWN, "policy": json.dumps({"Version": "2012-10-17", "Statement": statements})},
        prop_deps={"bucket": [bucket]},
    )
    return bucket, [bucket, policy]


def test_metadata() -> None:
    assert RULE.id == "GF-STOR-004"
    assert RULE.defaults() == {"min_tls": "1.2"}


def test_aws_deny_passes() -> None:
    _, resources = aws([S3_DENY])
    assert run_stack(POLICY, resources) == []


def test_aws_inline_policy_dict() -> None:
    bucket = res(AWS_BUCKET, "ckpt", {"policy": {"Statement": [S3_DENY]}})
    assert run_stack(POLICY, [bucket]) == []


def test_aws_missing_deny() -> None:
    allow_only = {**S3_DENY, "Effect": "Allow"}
    bucket, resources = aws([allow_only])
    assert run_stack(POLICY, resources) == [
        (
            "S3 bucket 'ckpt' accepts requests without TLS (no bucket policy statement that would deny s3:* "
            "to "
            "Principal '*' when aws:SecureTransport is false); add one",
            bucket.urn,
        )
    ]


def test_aws_min_tls_above_floor_needs_tls_version_deny() -> None:
    bucket, resources = aws([S3_DENY])
    assert run_stack(POLICY, resources, config={"min_tls": "1.3"}) == [
        (
            "S3 bucket 'ckpt' accepts TLS below 1.3 (no Deny with NumericLessThan s3:TlsVersion 1.3); add "
            "one",
            bucket.urn,
        )
    ]
    _, resources = aws([S3_DENY, S3_TLS])
    assert run_stack(POLICY, resources, config={"min_tls": "1.3"}) == []


def oss_policy() -> str:
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Deny",
                    "Principal": ["*"],
                    "Action": ["oss:*"],
                    "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
                }
            ],
        }
    )


def test_oss() -> None:
    bucket = res(OSS_BUCKET, "ckpt", {"policy": oss_policy()})
    https = res(
        OSS_HTTPS_CONFIG,
        "https",
        {"bucket": UNKNOWN, "enable": True, "tlsVersions": ["TLSv1.2", "TLSv1.3"]},
        prop_deps={"bucket": [bucket]},
    )
    assert run_stack(POLICY, [bucket, https]) == []
    weak = res(
        OSS_HTTPS_CONFIG,
        "https",
        {"bucket": UNKNOWN, "enable": True, "tlsVersions": ["TLSv1.1", "TLSv1.2"]},
        prop_deps={"bucket": [bucket]},
    )
    assert run_stack(POLICY, [bucket, weak]) == [
        ("OSS bucket 'ckpt' allows TLSv1.1 in its BucketHttpsConfig; allow only TLS 1.2 or later", bucket.urn)
    ]
    bare = res(OSS_BUCKET, "bare")
    assert run_stack(POLICY, [bare]) == [
        (
            "OSS bucket 'bare' accepts requests without TLS (no bucket policy statement that would deny "
            "oss:* "
            "to '*' when acs:SecureTransport is false); add one",
            bare.urn,
        ),
        (
            "OSS bucket 'bare' has no enabled BucketHttpsConfig, so it also accepts TLS 1.0 and 1.1; allow "
            "only TLS 1.2 or later in tlsVersions",
            bare.urn,
        ),
    ]


def test_cos() -> None:
    bucket = res(COS_BUCKET, "ckpt")
    policy = res(
        COS_POLICY,
        "p",
        {
            "bucket": UNKNOWN,
            "policy": json.dumps(
                {
                    "statement": [
                        {
                            "effect": "deny",
                            "principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                            "action": ["name/cos:*"],
                            "condition": {"bool_equal": {"cos:secure-transport": "false"}},
                        }
                    ]
                }
            ),
        },
        prop_deps={"bucket": [bucket]},
    )
    assert run_stack(POLICY, [bucket, policy]) == []
    assert run_stack(POLICY, [bucket]) == [
        (
            "COS bucket 'ckpt' accepts requests without TLS (no bucket policy statement that would deny to "
            "anyone when cos:secure-transport is false); add one",
            bucket.urn,
        )
    ]


def test_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [res("aws:kms/key:Key", "k")])


def test_unknown_policy_and_proxy() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    policy = res(
        AWS_BUCKET_POLICY, "p", {"bucket": UNKNOWN, "policy": UNKNOWN}, prop_deps={"bucket": [bucket]}
    )
    found = run_stack(POLICY, [bucket, policy], proxy=True)
    assert [(m.startswith("could not be judged at preview"), u) for m, u in found] == [(True, bucket.urn)]
