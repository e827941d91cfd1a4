"""A bucket policy built with `apply` from the bucket's or a key's id is unknown at a first preview.
GF-STOR-003 and GF-STOR-004 still fail an OSS/COS bucket on the settings that are known (a public ACL,
a missing public-access block, a weak HTTPS config) and leave it "could not be judged" only when
nothing known already fails it."""

from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.storage import bucket_public_access, bucket_tls_only
from gpufleet.policies.storage.alicloud import (
    OSS_BUCKET,
    OSS_HTTPS_CONFIG,
    OSS_POLICY,
    OSS_PUBLIC_ACCESS_BLOCK,
)
from gpufleet.policies.storage.tencentcloud import COS_BUCKET, COS_POLICY

from .helpers import UNKNOWN, res, run_stack

PREVIEW = "could not be judged at preview: the string value at .policy can't be known during preview"


def oss(acl: str, *, block: bool, tls: list[str]) -> tuple[PolicyResource, list[PolicyResource]]:
    bucket = res(OSS_BUCKET, "ckpt", {"bucket": "vision-ckpt", "acl": acl})
    joined = {"bucket": [bucket]}
    resources = [
        bucket,
        res(OSS_POLICY, "ckpt-tls", {"bucket": UNKNOWN, "policy": UNKNOWN}, prop_deps=joined),
        res(
            OSS_HTTPS_CONFIG,
            "ckpt-https",
            {"bucket": UNKNOWN, "enable": True, "tlsVersions": tls},
            prop_deps=joined,
        ),
    ]
    if block:
        resources.append(
            res(
                OSS_PUBLIC_ACCESS_BLOCK,
                "ckpt-pab",
                {"bucket": UNKNOWN, "blockPublicAccess": True},
                prop_deps=joined,
            )
        )
    return bucket, resources


def cos(acl: str) -> tuple[PolicyResource, list[PolicyResource]]:
    bucket = res(COS_BUCKET, "ckpt", {"bucket": "vision-ckpt-1250000000", "acl": acl})
    policy = res(
        COS_POLICY, "ckpt-tls", {"bucket": UNKNOWN, "policy": UNKNOWN}, prop_deps={"bucket": [bucket]}
    )
    return bucket, [bucket, policy]


def test_oss_public_acl_is_reported_although_the_policy_is_unknown() -> None:
    bucket, resources = oss("public-read", block=True, tls=["TLSv1.2"])
    assert run_stack(bucket_public_access.POLICY, resources, proxy=True) == [
        ("OSS bucket 'ckpt' has the ACL public-read; use private", bucket.urn)
    ]


def test_oss_missing_block_is_reported_although_the_policy_is_unknown() -> None:
    bucket, resources = oss("private", block=False, tls=["TLSv1.2"])
    assert run_stack(bucket_public_access.POLICY, resources, proxy=True) == [
        (
            "OSS bucket 'ckpt' has no public access block (oss.BucketPublicAccessBlock or "
            "oss.AccountPublicAccessBlock with blockPublicAccess = true); add one",
            bucket.urn,
        )
    ]


def test_cos_public_acl_is_reported_although_the_policy_is_unknown() -> None:
    bucket, resources = cos("public-read")
    assert run_stack(bucket_public_access.POLICY, resources, proxy=True) == [
        ("COS bucket 'ckpt' has the ACL public-read; use private", bucket.urn)
    ]


def test_cos_private_bucket_with_unknown_policy_is_not_judged() -> None:
    bucket, resources = cos("private")
    assert run_stack(bucket_public_access.POLICY, resources, proxy=True) == [(PREVIEW, bucket.urn)]


def test_oss_weak_https_is_reported_although_the_policy_is_unknown() -> None:
    bucket, resources = oss("private", block=True, tls=["TLSv1.1", "TLSv1.2"])
    assert run_stack(bucket_tls_only.POLICY, resources, proxy=True) == [
        ("OSS bucket 'ckpt' allows TLSv1.1 in its BucketHttpsConfig; allow only TLS 1.2 or later", bucket.urn)
    ]


def test_oss_strong_https_with_unknown_policy_is_not_judged() -> None:
    bucket, resources = oss("private", block=True, tls=["TLSv1.2", "TLSv1.3"])
    assert run_stack(bucket_tls_only.POLICY, resources, proxy=True) == [(PREVIEW, bucket.urn)]
