"""Checkpoint buckets on the BucketV2 family (separate *V2 resources) and through the deprecated
inline fields of Bucket and BucketV2, compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "bucket_families"

VARIANTS: dict[str, tuple[set[str], str, str]] = {
    # AES256 on a restricted bucket is neither customer-managed nor BYOK.
    "v2-aes256": ({"GF-STOR-001", "GF-STOR-002"}, "restricted", "is encrypted with AES256"),
    "restricted-not-byok": ({"GF-STOR-002"}, "restricted", "has provider-generated key material"),
    "v2-glacier": ({"GF-STOR-006"}, "restricted", "before GLACIER's 90-day minimum storage duration"),
    "v2-pab-open": ({"GF-STOR-003"}, "restricted", "blockPublicPolicy not true"),
    "v2-acl-public": ({"GF-STOR-003"}, "restricted", "public canned ACL public-read"),
    "inline-acl-public": ({"GF-STOR-003"}, "inline", "public canned ACL public-read"),
    "inline-aes256": ({"GF-STOR-001"}, "inline", "is encrypted with AES256"),
    "kms-default-key": ({"GF-STOR-001"}, "inline", "AWS-managed aws/s3 key (no kmsMasterKeyId)"),
    "aws-managed-alias": ({"GF-STOR-001"}, "inline", "AWS-managed key alias/aws/s3"),
    "inline-no-abort": ({"GF-STOR-005"}, "inline", "does not abort incomplete multipart uploads"),
    "inline-no-tls": ({"GF-STOR-004"}, "inline", "accepts requests without TLS"),
    "legacy-aes256": ({"GF-STOR-001"}, "legacy", "is encrypted with AES256"),
    "legacy-unversioned": ({"GF-STOR-007"}, "legacy", "is not versioned"),
    "legacy-expire-90": ({"GF-STOR-005"}, "legacy", "expires objects after 90 days"),
}

COMPLIANT_VARIANTS = (
    "none",
    "dsse-own-alias",  # aws:kms:dsse with the ARN of the stack's own alias
)


@pytest.mark.parametrize("variant", COMPLIANT_VARIANTS)
def test_compliant_program_has_no_findings(variant: str) -> None:
    assert outcome(PROGRAM, variant).summary() == []


def test_account_public_access_block_blocks_buckets_but_is_an_account_singleton() -> None:
    """One AccountPublicAccessBlock instead of per-bucket blocks satisfies the bucket rules; owning an
    account-wide setting in this stack is the operability advice, and nothing else is reported."""
    found = outcome(PROGRAM, "account-pab")
    assert [(v.rule_id, v.enforcement, v.urn.rsplit("::", 1)[-1]) for v in found.violations] == [
        ("GF-OPS-004", "advisory", "account")
    ]
    assert "creates the S3 account public-access block, one per account" in found.violations[0].message


def test_every_bucket_family_is_present() -> None:
    types = {r.type for r in run_variant(PROGRAM).resources}
    assert {
        "aws:s3/bucketV2:BucketV2",
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
        "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2",
        "aws:s3/bucketVersioningV2:BucketVersioningV2",
        "aws:kms/externalKey:ExternalKey",
    } <= types


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == rule_ids, found.summary()
    for finding in found.violations:
        assert finding.urn.endswith(f"::{resource}")
        assert f"'{resource}'" in finding.message
    assert any(words in v.message for v in found.violations), found.summary()


def test_preview_only_leaves_the_apply_built_policies_unjudged() -> None:
    preview = judge(as_preview(run_variant(PROGRAM)))
    assert sorted((v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in preview.violations) == [
        ("GF-OPS-002", "legacy"),
        ("GF-OPS-002", "restricted"),
        ("GF-STOR-004", "legacy"),
        ("GF-STOR-004", "restricted"),
    ]
    assert all("could not be judged at preview" in v.message for v in preview.violations)
