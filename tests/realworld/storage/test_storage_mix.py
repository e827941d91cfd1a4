"""Buckets, volumes and keys on AWS, Alibaba Cloud and Tencent Cloud (tests/realworld/storage/mixed),
compliant and broken one rule at a time, and at preview with unknown references and settings."""

from __future__ import annotations

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.realworld.aws.harness import as_preview, run_variant, with_input

from .support import MIXED, judge, outcome

# Stack-wide advisories about audit trails are outside this fixture's subject.
OTHER = {"GF-AUD-001"}

VARIANTS: dict[str, tuple[str, str, str]] = {
    "dsse-no-key": ("GF-STOR-001", "ckpt", "AWS-managed aws/s3 key (no kmsMasterKeyId)"),
    "unversioned": ("GF-STOR-007", "ckpt", "is not versioned"),
    "expire-by-date": ("GF-STOR-005", "ckpt", "has no expiration"),
    "glacier-7": ("GF-STOR-006", "ckpt", "to GLACIER after 7 days but expires them after 30 days"),
    "noncurrent-ia-3": ("GF-STOR-006", "ckpt", "S3 rejects STANDARD_IA before 30 days"),
    "no-pab": ("GF-STOR-003", "ckpt", "has no public access block"),
    "pab-no-restrict": ("GF-STOR-003", "ckpt", "restrictPublicBuckets not true"),
    "acl-allusers": (
        "GF-STOR-003",
        "ckpt",
        "grants access to the group http://acs.amazonaws.com/groups/global/AllUsers",
    ),
    "volume-plain": ("GF-STOR-008", "scratch", "EBS volume 'scratch' has an unencrypted volume"),
    "aws-rotation-off": ("GF-KMS-001", "data", "enableKeyRotation is not true"),
    "ali-rotation-off": ("GF-KMS-001", "ckpt", "automaticRotation Disabled"),
    "tc-rotation-off": ("GF-KMS-001", "ckpt", "keyRotationEnabled is not true"),
    "oss-aes256": ("GF-STOR-001", "oss-ckpt", "is encrypted with AES256"),
    "oss-archive-7": ("GF-STOR-006", "oss-ckpt", "before Archive's 60-day minimum storage duration"),
    "oss-acl-public": ("GF-STOR-003", "oss-ckpt", "has the ACL public-read"),
    "oss-no-pab": ("GF-STOR-003", "oss-ckpt", "has no public access block"),
    "cos-public": ("GF-STOR-003", "cos-ckpt", "has the ACL public-read"),
    "cos-aes256": ("GF-STOR-001", "cos-ckpt", "is encrypted with AES256"),
    "cos-archive-7": ("GF-STOR-006", "cos-ckpt", "before ARCHIVE's 90-day minimum storage duration"),
    # A TLS deny that covers only part of the bucket leaves the rest open to plain HTTP.
    "s3-tls-objects-only": ("GF-STOR-004", "ckpt", "without TLS on the bucket itself"),
    "oss-tls-bucket-only": ("GF-STOR-004", "oss-ckpt", "without TLS on every object"),
    "cos-tls-prefix-only": ("GF-STOR-004", "cos-ckpt", "without TLS on the bucket itself and every object"),
}

COMPLIANT = (
    "none",
    # Principal "*" s3:GetObject in the bucket policy, with all four public-access-block flags on.
    "public-read-policy",
)


def test_volume_under_encryption_by_default_passes_but_the_setting_is_an_account_singleton() -> None:
    """An unencrypted volume in a region where EBS encryption by default is enabled passes the volume
    rule; owning that account-wide setting in this stack is the operability advice."""
    result = outcome(MIXED, "volume-plain-default-on")
    found = [v for v in result.violations if v.rule_id not in OTHER]
    assert [(v.rule_id, v.enforcement, v.urn.rsplit("::", 1)[-1]) for v in found] == [
        ("GF-OPS-004", "advisory", "default")
    ]
    assert "'default' creates EBS encryption by default, one per account and region" in found[0].message


def _own(found: list[str]) -> list[str]:
    return [line for line in found if line.split(" ", 1)[0] not in OTHER]


@pytest.mark.parametrize("variant", COMPLIANT)
def test_compliant_program_has_no_findings(variant: str) -> None:
    result = outcome(MIXED, variant)
    assert result.mandatory() == []
    assert _own(result.summary()) == []


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_id, resource, words = VARIANTS[variant]
    result = outcome(MIXED, variant)
    found = [v for v in result.violations if v.rule_id not in OTHER]
    # S3 refuses STANDARD_IA before 30 days itself: the deploy check reports that beside the cost rule.
    refused = {"GF-DEPLOY-003"} if "STANDARD_IA before 30 days" in words else set()
    assert {v.rule_id for v in found} == {rule_id} | refused, result.summary()
    for finding in found:
        assert finding.urn.endswith(f"::{resource}")
        assert f"'{resource}'" in finding.message
    assert any(words in v.message for v in found), result.summary()


def test_unknown_references_do_not_fail_the_compliant_program() -> None:
    preview = judge(as_preview(run_variant(MIXED)))
    found = [v for v in preview.violations if v.rule_id not in OTHER]
    # Only the TLS deny policies, built with apply from the buckets' names, are decisive and unknown;
    # the OSS public-access block makes its bucket policy irrelevant to GF-STOR-003.
    assert sorted((v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in found) == [
        ("GF-OPS-002", "ckpt"),
        ("GF-STOR-003", "cos-ckpt"),
        ("GF-STOR-004", "ckpt"),
        ("GF-STOR-004", "cos-ckpt"),
        ("GF-STOR-004", "oss-ckpt"),
    ]
    assert all("could not be judged at preview" in v.message for v in found)


@pytest.mark.parametrize(
    ("name", "resource_type", "path", "rule_id"),
    [
        ("oss-ckpt", "alicloud:oss/bucket:Bucket", "serverSideEncryptionRule.sseAlgorithm", "GF-STOR-001"),
        ("cos-ckpt", "tencentcloud:Cos/bucket:Bucket", "encryptionAlgorithm", "GF-STOR-001"),
        ("data", "aws:kms/key:Key", "enableKeyRotation", "GF-KMS-001"),
        ("scratch", "aws:ebs/volume:Volume", "encrypted", "GF-STOR-008"),
        ("cos-ckpt", "tencentcloud:Cos/bucket:Bucket", "acl", "GF-STOR-003"),
    ],
)
def test_unknown_decisive_settings_are_not_judged(
    name: str, resource_type: str, path: str, rule_id: str
) -> None:
    result = judge(with_input(run_variant(MIXED), name, resource_type, path, UNKNOWN_STRING))
    found = [v for v in result.violations if v.rule_id not in OTHER]
    assert [(v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in found] == [(rule_id, name)]
    assert "could not be judged at preview" in found[0].message


def test_unknown_key_reference_counts_as_set() -> None:
    graph = with_input(
        run_variant(MIXED), "cos-ckpt", "tencentcloud:Cos/bucket:Bucket", "kmsId", UNKNOWN_STRING
    )
    graph = with_input(
        graph,
        "oss-ckpt",
        "alicloud:oss/bucket:Bucket",
        "serverSideEncryptionRule.kmsMasterKeyId",
        UNKNOWN_STRING,
    )
    assert _own(judge(graph).summary()) == []
