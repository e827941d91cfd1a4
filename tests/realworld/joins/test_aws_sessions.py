"""Session Manager reachability, session-log encryption, pool/bucket regions and the audit trail,
judged on a raw pulumi-aws program written each way a platform engineer might write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "aws_sessions"
# Advisory findings of the baseline that are outside this fixture's subject.
BASELINE: set[str] = set()

# Other compliant ways of writing the same program: profile/role joins and SSM grants.
ALTERNATIVES = (
    "alt-managed-arns",
    "alt-policy-attachment",
    "alt-customer-policy",
    "alt-inline-policies",
    "alt-default-host-management",
    "alt-role-by-id",
    "alt-profile-literal",
    "alt-profile-arn",
    "alt-template-profile-name",
)

# variant -> (rule id, resources named in findings, words every finding of that rule carries)
BREAKS: dict[str, tuple[str, set[str], str]] = {
    "no-ssm": ("GF-ACC-003", {"trainer", "workers"}, "uses role 'gpu-node'"),
    "inline-partial": ("GF-ACC-003", {"trainer", "workers"}, "does not grant Session Manager access"),
    "ssm-read-only": ("GF-ACC-003", {"trainer", "workers"}, "does not grant Session Manager access"),
    "no-profile": ("GF-ACC-003", {"trainer"}, "has no instance profile"),
    "prefs-cw-unencrypted": ("GF-ACC-006", {"session-preferences"}, "cloudWatchEncryptionEnabled off"),
    "bucket-region-input": ("GF-COST-008", {"trainer", "workers"}, "reads S3 bucket 'datasets' in eu-west-1"),
    "bucket-provider": ("GF-COST-008", {"trainer", "workers"}, "reads S3 bucket 'datasets' in eu-west-1"),
    "no-trail": ("GF-AUD-001", {""}, "declares no audit trail"),
    "trail-single-region": ("GF-AUD-001", {"org"}, "is single-region"),
}


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1] if urn else ""


def test_baseline_has_no_mandatory_and_only_unrelated_advice() -> None:
    found = outcome(PROGRAM)
    assert found.mandatory() == [], found.summary()
    assert found.ids() == BASELINE, found.summary()


@pytest.mark.parametrize("variant", ALTERNATIVES)
def test_each_compliant_alternative_is_judged_like_the_baseline(variant: str) -> None:
    found = outcome(PROGRAM, variant)
    assert found.mandatory() == [], found.summary()
    assert found.ids() == BASELINE, found.summary()


@pytest.mark.parametrize("variant", sorted(BREAKS))
def test_each_break_is_reported_by_its_rule_only(variant: str) -> None:
    rule_id, names, words = BREAKS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == BASELINE | {rule_id}, found.summary()
    findings = found.of(rule_id)
    assert {_name(f.urn) for f in findings} == names, found.summary()
    for finding in findings:
        assert words in finding.message
        if finding.urn:
            assert f"'{_name(finding.urn)}'" in finding.message


def test_log_group_without_kms_is_named_by_the_session_rule_and_the_log_rule() -> None:
    found = outcome(PROGRAM, "log-group-no-kms")
    assert found.ids() == BASELINE | {"GF-ACC-006", "GF-AUD-003"}, found.summary()
    (finding,) = found.of("GF-ACC-006")
    assert _name(finding.urn) == "session-logs"
    assert finding.message == (
        "CloudWatch log group 'session-logs' holds Session Manager logs without a KMS key; set kmsKeyId"
    )


@pytest.mark.parametrize("variant", ("none", "alt-profile-arn", "alt-role-by-id", "alt-customer-policy"))
def test_preview_with_unknown_references_does_not_fail_session_manager(variant: str) -> None:
    found = judge(as_preview(run_variant(PROGRAM, variant)))
    assert found.of("GF-ACC-003") == [], found.summary()
    assert found.of("GF-COST-008") == [], found.summary()
    # The preferences document is built with apply from the log group's outputs: its decisive
    # settings are unknown, so the advisory rule says so instead of passing.
    (session,) = found.of("GF-ACC-006")
    assert "could not be judged at preview" in session.message


def test_preview_still_reports_a_role_without_ssm_and_a_far_bucket() -> None:
    found = judge(as_preview(run_variant(PROGRAM, "no-ssm")))
    assert {_name(f.urn) for f in found.of("GF-ACC-003")} == {"trainer", "workers"}
    far = judge(as_preview(run_variant(PROGRAM, "bucket-provider")))
    assert {_name(f.urn) for f in far.of("GF-COST-008")} == {"trainer", "workers"}
