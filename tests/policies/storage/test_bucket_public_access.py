from __future__ import annotations

import json

import pytest

from gpufleet.policies.storage.alicloud import (
    OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK,
    OSS_ACL,
    OSS_BUCKET,
    OSS_POLICY,
    OSS_PUBLIC_ACCESS_BLOCK,
)
from gpufleet.policies.storage.aws import (
    AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK,
    AWS_BUCKET,
    AWS_BUCKET_ACL_V2,
    AWS_PUBLIC_ACCESS_BLOCK,
)
from gpufleet.policies.storage.aws import PUBLIC_ACCESS_FLAGS as FLAGS
from gpufleet.policies.storage.bucket_public_access import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET, COS_POLICY

from .helpers import UNKNOWN, NotApplicable, res, run_stack

ALL_FLAGS = dict.fromkeys(FLAGS, True)


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.severity.value) == (
        "GF-STOR-003",
        "bucket-public-access-blocked",
        "critical",
    )


def test_aws_bucket_block_passes() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    pab = res(
        AWS_PUBLIC_ACCESS_BLOCK, "pab", {"bucket": UNKNOWN, **ALL_FLAGS}, prop_deps={"bucket": [bucket]}
    )
    assert run_stack(POLICY, [bucket, pab]) == []


def test_aws_account_block_covers_every_bucket() -> None:
    account = res(AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK, "acct", ALL_FLAGS)
    assert run_stack(POLICY, [res(AWS_BUCKET, "a"), res(AWS_BUCKET, "b"), account]) == []


def test_aws_flags_combine_bucket_and_account() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    pab = res(
        AWS_PUBLIC_ACCESS_BLOCK,
        "pab",
        {"bucket": UNKNOWN, "blockPublicAcls": True, "ignorePublicAcls": True},
        prop_deps={"bucket": [bucket]},
    )
    account = res(AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK, "acct", {"blockPublicPolicy": True})
    assert run_stack(POLICY, [bucket, pab, account]) == [
        (
            "S3 bucket 'ckpt' does not block public access: restrictPublicBuckets not true on its "
            "BucketPublicAccessBlock or the AccountPublicAccessBlock; set all four flags to true",
            bucket.urn,
        )
    ]


def test_aws_missing_block_and_public_acl() -> None:
    bucket = res(AWS_BUCKET, "ckpt", {"acl": "public-read"})
    assert run_stack(POLICY, [bucket]) == [
        (
            "S3 bucket 'ckpt' has no public access block (neither a BucketPublicAccessBlock nor an "
            "AccountPublicAccessBlock); set all four flags to true",
            bucket.urn,
        ),
        ("S3 bucket 'ckpt' has the public canned ACL public-read; use private", bucket.urn),
    ]


def test_aws_acl_resource_grant_to_all_users() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    account = res(AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK, "acct", ALL_FLAGS)
    uri = "http://acs.amazonaws.com/groups/global/AllUsers"
    acl = res(
        AWS_BUCKET_ACL_V2,
        "acl",
        {
            "bucket": "ckpt",
            "accessControlPolicy": {
                "grants": [{"permission": "READ", "grantee": {"type": "Group", "uri": uri}}]
            },
        },
        deps=[bucket],
    )
    assert run_stack(POLICY, [bucket, account, acl]) == [
        (f"S3 bucket 'ckpt' grants access to the group {uri}; remove the grant", bucket.urn)
    ]


def test_oss() -> None:
    good = res(OSS_BUCKET, "good")
    good_acl = res(OSS_ACL, "good-acl", {"bucket": UNKNOWN, "acl": "private"}, prop_deps={"bucket": [good]})
    good_pab = res(
        OSS_PUBLIC_ACCESS_BLOCK,
        "good-pab",
        {"bucket": UNKNOWN, "blockPublicAccess": True},
        prop_deps={"bucket": [good]},
    )
    assert run_stack(POLICY, [good, good_acl, good_pab]) == []
    account = res(OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK, "acct", {"blockPublicAccess": True})
    assert run_stack(POLICY, [res(OSS_BUCKET, "b"), account]) == []
    public = res(
        OSS_BUCKET,
        "pub",
        {
            "acl": "public-read",
            "policy": json.dumps(
                {"Statement": [{"Effect": "Allow", "Principal": ["*"], "Action": ["oss:GetObject"]}]}
            ),
        },
    )
    assert run_stack(POLICY, [public]) == [
        ("OSS bucket 'pub' has the ACL public-read; use private", public.urn),
        (
            "OSS bucket 'pub' has no public access block (oss.BucketPublicAccessBlock or "
            "oss.AccountPublicAccessBlock with blockPublicAccess = true); add one",
            public.urn,
        ),
        ("OSS bucket 'pub' has a bucket policy that allows any principal without a condition", public.urn),
    ]


def test_oss_block_covers_an_unknown_or_public_policy() -> None:
    # The bucket policy, built at preview from the bucket's name, made a blocked bucket unjudgeable.
    for document in (
        UNKNOWN,
        json.dumps({"Statement": [{"Effect": "Allow", "Principal": ["*"], "Action": ["oss:GetObject"]}]}),
    ):
        bucket = res(OSS_BUCKET, "b", {"acl": "private"})
        policy = res(
            OSS_POLICY, "b-policy", {"bucket": UNKNOWN, "policy": document}, prop_deps={"bucket": [bucket]}
        )
        block = res(
            OSS_PUBLIC_ACCESS_BLOCK,
            "b-pab",
            {"bucket": UNKNOWN, "blockPublicAccess": True},
            prop_deps={"bucket": [bucket]},
        )
        assert run_stack(POLICY, [bucket, policy, block]) == []
        found = run_stack(POLICY, [bucket, policy])
        assert [urn for _, urn in found] == [bucket.urn] * len(found)
        if document is UNKNOWN:
            # Without the block the bucket fails on a known setting, whatever the unknown policy says.
            assert [message for message, _ in found] == [
                "OSS bucket 'b' has no public access block (oss.BucketPublicAccessBlock or "
                "oss.AccountPublicAccessBlock with blockPublicAccess = true); add one"
            ]


def test_cos() -> None:
    good = res(COS_BUCKET, "good", {"acl": "private"})
    assert run_stack(POLICY, [good]) == []
    bad = res(COS_BUCKET, "bad", {"acl": "public-read-write"})
    policy = res(
        COS_POLICY,
        "bad-policy",
        {
            "bucket": UNKNOWN,
            "policy": {
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                        "Action": ["name/cos:*"],
                    }
                ]
            },
        },
        prop_deps={"bucket": [bad]},
    )
    assert run_stack(POLICY, [bad, policy]) == [
        ("COS bucket 'bad' has the ACL public-read-write; use private", bad.urn),
        ("COS bucket 'bad' has a bucket policy that allows any principal without a condition", bad.urn),
    ]


def test_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [])


def test_unknown_flag_and_proxy() -> None:
    bucket = res(AWS_BUCKET, "ckpt")
    pab = res(
        AWS_PUBLIC_ACCESS_BLOCK,
        "pab",
        {"bucket": UNKNOWN, **ALL_FLAGS, "restrictPublicBuckets": UNKNOWN},
        prop_deps={"bucket": [bucket]},
    )
    found = run_stack(POLICY, [bucket, pab], proxy=True)
    assert len(found) == 1
    assert found[0][0].startswith("could not be judged at preview")
    assert found[0][1] == bucket.urn
