"""A raw tencentcloud-iac-pulumi GPU stack: compliant as written, and each realistic mistake caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.project_policy import judged
from tests.realworld.alicloud.support import graph_of, ids, judge, mandatory, of_rule, replaced, result_of

PROJECT = Path(__file__).parent / "gpu_stack"


def test_compliant_program_has_no_violation() -> None:
    result = result_of(PROJECT)
    assert result.resources >= 28
    assert [(f.rule_id, f.message) for f in judged(result.violations)] == []


# variant -> (rule id, resource name, words the message must contain)
VARIANTS = {
    "cidr_overlap": ("GF-NET-002", "gpu-vpc", "10.0.0.0/8 overlaps"),
    "lite_rule_ssh": ("GF-ACC-001", "gpu-sg-lite", "SSH (TCP 22) ingress from 0.0.0.0/0"),
    "ssh_open": ("GF-ACC-001", "gpu-sg-rules", "SSH (TCP 22) and RDP (3389)"),
    "key_rotation": ("GF-KMS-001", "checkpoint-key", "does not rotate"),
    "byok_generated": ("GF-STOR-002", "datasets", "provider-generated key material"),
    "cos_public_read": ("GF-STOR-003", "checkpoints", "public-read"),
    "cos_unencrypted": ("GF-STOR-001", "checkpoints", "no encryptionAlgorithm"),
    "versioning_off": ("GF-STOR-007", "checkpoints", "not versioned"),
    "archive_before_expiry": ("GF-STOR-006", "checkpoints", "ARCHIVE's 90-day minimum"),
    "no_abort": ("GF-STOR-005", "checkpoints", "incomplete multipart uploads"),
    "no_tls_policy": ("GF-STOR-004", "checkpoints", "cos:secure-transport"),
    "trust_any": ("GF-IAM-004", "gpu-node-role", "qcs::cam::anyone:anyone"),
    "cam_service_star": ("GF-IAM-001", "gpu-node-policy", "'cos:*'"),
    "cvm_unscoped": ("GF-IAM-002", "gpu-node-policy", "cvm:TerminateInstances on Resource '*'"),
    "admin_policy": ("GF-IAM-003", "gpu-node-cos-full", "'QcloudCOSFullAccess'"),
    "legacy_disk": ("GF-COST-009", "gpu-launch", "CLOUD_BASIC"),
    "on_demand": ("GF-COST-004", "gpu-pool", "0% of its capacity on spot"),
    "public_ip": ("GF-ACC-005", "gpu-launch", "publicIpAssigned is true"),
    "password": ("GF-ACC-002", "gpu-launch", "login password"),
    "key_ids": ("GF-ACC-002", "gpu-launch", "'skey-abc123'"),
    "no_login_lock": ("GF-ACC-002", "gpu-launch", "CVM sets a random login password"),
    "tat_disabled": ("GF-ACC-003", "gpu-launch", "enhancedAutomationToolsService is false"),
    "no_tat": ("GF-ACC-003", "gpu-launch", "not operated through TAT"),
    "short_cooldown": ("GF-COST-006", "gpu-pool", "cooldown of 60 s"),
    "no_off_hours": ("GF-COST-005", "gpu-pool", "no off-hours schedule"),
    "short_retention": ("GF-AUD-002", "audit-topic", "30 days"),
    "no_trail": ("GF-AUD-001", "", "no audit trail"),
    "weak_ike": ("GF-NET-001", "onprem-link", "ikeProtoAuthenAlgorithm is MD5"),
    "no_budget": ("GF-COST-002", "", "no budget"),
    "late_alert": ("GF-COST-002", "monthly-budget", "warns at 95%"),
}


# On demand, the dev T4 pool also pays GN7.2XLARGE32's on-demand 9.07 CNY an hour, over the dev ceiling of
# 5 CNY an hour for a T4 (GF-FIT-006's default); on spot it pays 3.63.
ALSO_REPORTED = {"on_demand": {"GF-FIT-006"}}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_caught_by_its_rule_only(variant: str) -> None:
    rule_id, name, words = VARIANTS[variant]
    result = result_of(PROJECT, variant)
    assert ids(result) == {rule_id} | ALSO_REPORTED.get(variant, set()), [
        (f.rule_id, f.message) for f in result.violations
    ]
    for finding in of_rule(result, rule_id):
        assert finding.urn.endswith(f"::{name}") if name else finding.urn == ""
        assert words in finding.message
        if name:
            assert f"'{name}'" in finding.message


def test_hardened_image_keeping_its_login_needs_no_lock() -> None:
    # keep_image_login: the image's own (hardened) login settings, no random password from CVM.
    result = result_of(PROJECT, "image_login")
    assert [(f.rule_id, f.message) for f in judged(result.violations)] == []


def test_references_unknown_at_preview_still_pass() -> None:
    graph = replaced(graph_of(PROJECT), "checkpoints", "kmsId", UNKNOWN_STRING)
    graph = replaced(graph, "datasets", "kmsId", UNKNOWN_STRING)
    graph = replaced(graph, "checkpoints-tls", "bucket", UNKNOWN_STRING)
    graph = replaced(graph, "gpu-pool", "configurationId", UNKNOWN_STRING)
    graph = replaced(graph, "gpu-node-policy-attach", "roleId", UNKNOWN_STRING)
    assert mandatory(judge(graph)) == []


def test_kms_without_key_is_the_cos_default_key() -> None:
    [finding] = mandatory(judge(replaced(graph_of(PROJECT), "checkpoints", "kmsId", None)))
    assert finding.rule_id == "GF-STOR-001"
    assert "COS default KMS key" in finding.message


@pytest.mark.parametrize(
    ("name", "path", "rule_id"),
    [
        ("checkpoints", "encryptionAlgorithm", "GF-STOR-001"),
        ("checkpoint-key", "keyRotationEnabled", "GF-KMS-001"),
        ("gpu-launch", "instanceChargeType", "GF-COST-004"),
        ("gpu-launch", "publicIpAssigned", "GF-ACC-005"),
        ("audit-topic", "period", "GF-AUD-002"),
    ],
)
def test_unknown_decisive_setting_is_not_judged(name: str, path: str, rule_id: str) -> None:
    result = judge(replaced(graph_of(PROJECT), name, path, UNKNOWN_STRING))
    findings = of_rule(result, rule_id)
    assert findings, [(f.rule_id, f.message) for f in result.violations]
    assert all("could not be judged" in f.message for f in findings)
