"""A raw pulumi-alicloud GPU stack: compliant as written, and each realistic mistake caught by its rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.realworld.alicloud.support import (
    first_deploy_advice,
    graph_of,
    ids,
    judge,
    mandatory,
    of_rule,
    replaced,
    result_of,
)

PROJECT = Path(__file__).parent / "gpu_stack"


def test_compliant_program_has_no_violation() -> None:
    result = result_of(PROJECT)
    assert result.resources >= 35
    assert [(f.rule_id, f.message) for f in result.violations if not first_deploy_advice(f)] == []
    [advice] = [f for f in result.violations if first_deploy_advice(f)]
    assert advice.enforcement == "advisory"
    assert advice.message.startswith(
        "OSS bucket 'datasets' encrypts with key 'restricted-key', pending import in this deployment "
        "('restricted-key': origin EXTERNAL: its material is imported outside Pulumi)"
    )


def test_compliant_program_is_judged_not_skipped() -> None:
    """The rules that matter here judge the GPU pool and buckets instead of calling them not applicable."""
    skipped = {n["rule_id"] for n in result_of(PROJECT).not_applicable if n["urn"]}
    for rule_id in ("GF-STOR-001", "GF-STOR-003", "GF-ACC-002", "GF-ACC-005", "GF-COST-004", "GF-NET-001"):
        assert rule_id not in skipped


# variant -> (rule id, resource name, words the message must contain)
VARIANTS = {
    "cidr_overlap": ("GF-NET-002", "gpu-vpc", "10.0.0.0/8 overlaps"),
    "ssh_open": ("GF-ACC-001", "allow-nccl-from-onprem", "SSH (TCP 22)"),
    "key_rotation": ("GF-KMS-001", "checkpoint-key", "automaticRotation Disabled"),
    "byok_origin": ("GF-STOR-002", "datasets", "origin Aliyun_KMS"),
    "oss_sse_aes": ("GF-STOR-001", "checkpoints", "AES256"),
    "oss_public_read": ("GF-STOR-003", "checkpoints", "public-read"),
    "no_tls_policy": ("GF-STOR-004", "checkpoints", "acs:SecureTransport"),
    "tls11": ("GF-STOR-004", "checkpoints", "TLSv1.1"),
    "versioning_off": ("GF-STOR-007", "checkpoints", "not versioned"),
    "archive_before_expiry": ("GF-STOR-006", "checkpoints", "60-day minimum storage duration"),
    "long_expiry": ("GF-STOR-005", "checkpoints", "after 90 days"),
    "trust_any": ("GF-IAM-004", "gpu-node-role", "trusts any principal"),
    "ram_star": ("GF-IAM-001", "gpu-node-policy", "wildcard action '*'"),
    "kms_unscoped": ("GF-IAM-002", "gpu-node-policy", "kms:Decrypt"),
    "admin_policy": ("GF-IAM-003", "gpu-node-admin", "'AdministratorAccess'"),
    "short_cooldown": ("GF-COST-006", "gpu-pool", "cooldown of 60 s"),
    "on_demand_mix": ("GF-COST-004", "gpu-pool", "37.50% of its capacity on spot"),
    "disk_unencrypted": ("GF-STOR-008", "gpu-pool-config", "unencrypted system disk"),
    "legacy_disk": ("GF-COST-009", "gpu-pool-config", "cloud_efficiency"),
    "public_ip": ("GF-ACC-005", "gpu-pool-config", "internetMaxBandwidthOut is 10"),
    "password": ("GF-ACC-002", "gpu-pool-config", "login password"),
    "key_pair": ("GF-ACC-002", "gpu-pool-config", "'ops-keypair'"),
    "thresholds_inverted": ("GF-COST-006", "gpu-pool", "scales out at 70 but in at 80"),
    "no_off_hours": ("GF-COST-005", "gpu-pool", "no off-hours schedule"),
    "short_retention": ("GF-AUD-002", "actiontrail-store", "30 days"),
    "no_trail": ("GF-AUD-001", "", "no audit trail"),
    "weak_ike": ("GF-NET-001", "onprem-link", "ikeAuthAlg is md5"),
    "no_session_manager": ("GF-ACC-003", "gpu-pool", "not reachable by Session Manager"),
}


# A group default cooldown of 60 s also lets the scale-in rule remove an instance a minute (GF-OPS-003).
ALSO_REPORTED = {"short_cooldown": {"GF-OPS-003"}}


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


def test_access_key_is_caught() -> None:
    result = result_of(PROJECT, "access_key")
    [finding] = of_rule(result, "GF-IAM-005")
    assert finding.urn.endswith("::ci-key")
    assert "long-lived access key for 'ci-deployer'" in finding.message


def test_cmk_reference_unknown_at_preview_still_passes() -> None:
    """A key created in the same program has an unknown id at preview: still a customer-managed key."""
    graph = replaced(graph_of(PROJECT), "checkpoints-sse", "kmsMasterKeyId", UNKNOWN_STRING)
    graph = replaced(graph, "datasets", "serverSideEncryptionRule.kmsMasterKeyId", UNKNOWN_STRING)
    graph = replaced(graph, "gpu-node-policy-attach", "roleName", UNKNOWN_STRING)
    graph = replaced(graph, "allow-nccl-from-onprem", "securityGroupId", UNKNOWN_STRING)
    assert mandatory(judge(graph)) == []


def test_oss_kms_without_key_is_the_service_key() -> None:
    graph = replaced(graph_of(PROJECT), "checkpoints-sse", "kmsMasterKeyId", None)
    [finding] = mandatory(judge(graph))
    assert finding.rule_id == "GF-STOR-001"
    assert "OSS-managed default KMS key" in finding.message


@pytest.mark.parametrize(
    ("name", "path", "rule_id"),
    [
        ("checkpoints-sse", "sseAlgorithm", "GF-STOR-001"),
        ("checkpoints-acl", "acl", "GF-STOR-003"),
        ("restricted-key", "origin", "GF-STOR-002"),
        ("checkpoint-key", "automaticRotation", "GF-KMS-001"),
        ("gpu-pool-config", "spotStrategy", "GF-COST-004"),
        ("gpu-pool-config", "internetMaxBandwidthOut", "GF-ACC-005"),
        ("actiontrail-store", "retentionPeriod", "GF-AUD-002"),
        ("onprem-link", "ikeConfig.ikePfs", "GF-NET-001"),
    ],
)
def test_unknown_decisive_setting_is_not_judged(name: str, path: str, rule_id: str) -> None:
    result = judge(replaced(graph_of(PROJECT), name, path, UNKNOWN_STRING))
    findings = of_rule(result, rule_id)
    assert findings, [(f.rule_id, f.message) for f in result.violations]
    assert all("could not be judged" in f.message for f in findings)


def test_nospot_configuration_under_cost_optimized_group_is_on_demand() -> None:
    graph = replaced(graph_of(PROJECT), "gpu-pool-config", "spotStrategy", "NoSpot")
    [finding] = mandatory(judge(graph))
    assert finding.rule_id == "GF-COST-004"
    assert "runs 0% of its capacity on spot" in finding.message
