"""GF-STOR-004: a deny of plain HTTP must cover the bucket itself and every object. A deny of the objects
only, of the bucket only or of one prefix fires; the same deny split over two statements, or written
with a wildcard that covers both, does not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.policies.storage.alicloud import OSS_BUCKET, OSS_HTTPS_CONFIG, OSS_POLICY
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_BUCKET_POLICY
from gpufleet.policies.storage.bucket_tls_only import POLICY
from gpufleet.policies.storage.tencentcloud import COS_BUCKET, COS_POLICY

from .helpers import UNKNOWN, res, run_stack

AWS_FIX = "list both the bucket ARN (arn:aws:s3:::<bucket>) and its objects (arn:aws:s3:::<bucket>/*)"
OSS_FIX = "list both the bucket (acs:oss:*:*:<bucket>) and its objects (acs:oss:*:*:<bucket>/*)"
COS_FIX = "list the bucket with all its objects (qcs::cos:<region>:uid/<appid>:<bucket>/*)"


def s3_deny(resource: Any = None, not_resource: Any = None) -> dict[str, Any]:
    statement: dict[str, Any] = {
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    if resource is not None:
        statement["Resource"] = resource
    if not_resource is not None:
        statement["NotResource"] = not_resource
    return statement


def s3(*statements: dict[str, Any], name: str | None = "ckpt") -> tuple[Any, list[Any]]:
    bucket = res(AWS_BUCKET, "ckpt", {"bucket": name} if name else {})
    policy = res(
        AWS_BUCKET_POLICY,
        "ckpt-policy",
        {"bucket": UNKNOWN, "policy": json.dumps({"Version": "2012-10-17", "Statement": list(statements)})},
        prop_deps={"bucket": [bucket]},
    )
    return bucket, [bucket, policy]


@pytest.mark.parametrize(
    ("statements", "missing"),
    [
        ([s3_deny("arn:aws:s3:::ckpt/*")], "the bucket itself"),
        ([s3_deny("arn:aws:s3:::ckpt")], "every object"),
        ([s3_deny(["arn:aws:s3:::ckpt", "arn:aws:s3:::ckpt/checkpoints/*"])], "every object"),
        ([s3_deny("arn:aws:s3:::other"), s3_deny("arn:aws:s3:::ckpt/*")], "the bucket itself"),
        ([s3_deny(not_resource="arn:aws:s3:::ckpt")], "the bucket itself"),
    ],
)
def test_s3_partial_deny_fires(statements: list[dict[str, Any]], missing: str) -> None:
    bucket, resources = s3(*statements)
    assert run_stack(POLICY, resources) == [
        (
            f"S3 bucket 'ckpt' accepts requests without TLS on {missing}: its deny of plain HTTP does not "
            f"cover them; {AWS_FIX} in the statement's Resource",
            bucket.urn,
        )
    ]


@pytest.mark.parametrize(
    "statements",
    [
        [s3_deny(["arn:aws:s3:::ckpt", "arn:aws:s3:::ckpt/*"])],
        [s3_deny("arn:aws:s3:::ckpt"), s3_deny("arn:aws:s3:::ckpt/*")],
        [s3_deny("arn:aws:s3:::ckpt*")],
        [s3_deny("*")],
        [s3_deny("arn:aws:s3:::*")],
        [s3_deny(not_resource="arn:aws:s3:::logs/*")],
    ],
)
def test_s3_full_deny_passes(statements: list[dict[str, Any]]) -> None:
    assert run_stack(POLICY, s3(*statements)[1]) == []


def test_s3_bucket_named_by_the_cloud_is_read_from_the_patterns() -> None:
    # No `bucket` input: the name the patterns use stands for it.
    assert (
        run_stack(POLICY, s3(s3_deny(["arn:aws:s3:::ckpt-7f3a", "arn:aws:s3:::ckpt-7f3a/*"]), name=None)[1])
        == []
    )
    _, resources = s3(s3_deny("arn:aws:s3:::ckpt-7f3a/*"), name=None)
    assert [m for m, _ in run_stack(POLICY, resources)] == [
        "S3 bucket 'ckpt' accepts requests without TLS on the bucket itself: its deny of plain HTTP does "
        f"not cover them; {AWS_FIX} in the statement's Resource"
    ]


def oss(resource: list[str]) -> list[Any]:
    document = {
        "Version": "1",
        "Statement": [
            {
                "Effect": "Deny",
                "Principal": ["*"],
                "Action": ["oss:*"],
                "Resource": resource,
                "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
            }
        ],
    }
    bucket = res(OSS_BUCKET, "ckpt", {"bucket": "ckpt"})
    policy = res(OSS_POLICY, "p", {"bucket": "ckpt", "policy": json.dumps(document)})
    https = res(OSS_HTTPS_CONFIG, "https", {"bucket": "ckpt", "enable": True, "tlsVersions": ["TLSv1.2"]})
    return [bucket, policy, https]


def test_oss_needs_the_bucket_and_its_objects() -> None:
    assert run_stack(POLICY, oss(["acs:oss:*:*:ckpt", "acs:oss:*:*:ckpt/*"])) == []
    assert run_stack(POLICY, oss(["acs:oss:*:1234567890:ckpt", "acs:oss:*:1234567890:ckpt/*"])) == []
    [(message, _)] = run_stack(POLICY, oss(["acs:oss:*:*:ckpt/*"]))
    assert message == (
        "OSS bucket 'ckpt' accepts requests without TLS on the bucket itself: its deny of plain HTTP does "
        f"not cover them; {OSS_FIX} in the statement's Resource"
    )
    [(message, _)] = run_stack(POLICY, oss(["acs:oss:*:*:ckpt"]))
    assert "on every object:" in message


def cos(resource: list[str]) -> list[Any]:
    document = {
        "version": "2.0",
        "statement": [
            {
                "effect": "deny",
                "principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                "action": ["name/cos:*"],
                "resource": resource,
                "condition": {"bool_equal": {"cos:secure-transport": "false"}},
            }
        ],
    }
    bucket = res(COS_BUCKET, "ckpt", {"bucket": "ckpt-1250000000"})
    policy = res(COS_POLICY, "p", {"bucket": "ckpt-1250000000", "policy": json.dumps(document)})
    return [bucket, policy]


def test_cos_needs_the_whole_bucket() -> None:
    assert run_stack(POLICY, cos(["qcs::cos:ap-guangzhou:uid/1250000000:ckpt-1250000000/*"])) == []
    [(message, _)] = run_stack(POLICY, cos(["qcs::cos:ap-guangzhou:uid/1250000000:ckpt-1250000000/models/*"]))
    assert message == (
        "COS bucket 'ckpt' accepts requests without TLS on the bucket itself and every object: its deny of "
        f"plain HTTP does not cover them; {COS_FIX} in the statement's Resource"
    )
