"""Every rule of the catalogue (RULES.md) is implemented exactly once, with complete metadata."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel, Severity

from gpufleet.policies.registry import DuplicateRuleError, Registry, default_registry
from gpufleet.policies.rule import GfPolicy, GfResourcePolicy, Rule
from gpufleet.policy_config import load_policy_config

# id: (default enforcement, severity), copied from RULES.md (49 rules) plus GF-NET-004, GF-DEPLOY-001..003
# and GF-FIT-001..006.
CATALOGUE: dict[str, tuple[str, str]] = {
    "GF-STOR-001": ("M", "high"),
    "GF-STOR-002": ("M", "high"),
    "GF-STOR-003": ("M", "critical"),
    "GF-STOR-004": ("M", "high"),
    "GF-STOR-005": ("M", "medium"),
    "GF-STOR-006": ("M", "medium"),
    "GF-STOR-007": ("A", "low"),
    "GF-STOR-008": ("M", "high"),
    "GF-KMS-001": ("M", "medium"),
    "GF-KMS-002": ("M", "high"),
    "GF-ACC-001": ("M", "critical"),
    "GF-ACC-002": ("M", "high"),
    "GF-ACC-003": ("M", "high"),
    "GF-ACC-004": ("M", "high"),
    "GF-ACC-005": ("M", "high"),
    "GF-ACC-006": ("A", "medium"),
    "GF-IAM-001": ("M", "critical"),
    "GF-IAM-002": ("M", "high"),
    "GF-IAM-003": ("M", "critical"),
    "GF-IAM-004": ("M", "critical"),
    "GF-IAM-005": ("M", "high"),
    "GF-IAM-006": ("M", "high"),
    "GF-AUD-001": ("A", "medium"),
    "GF-AUD-002": ("M", "medium"),
    "GF-AUD-003": ("A", "low"),
    "GF-NET-001": ("M", "high"),
    "GF-NET-002": ("M", "high"),
    "GF-NET-003": ("A", "medium"),
    "GF-NET-004": ("M", "high"),
    "GF-COST-001": ("M", "medium"),
    "GF-COST-002": ("M", "medium"),
    "GF-COST-003": ("M", "high"),
    "GF-COST-004": ("M", "medium"),
    "GF-COST-005": ("M", "medium"),
    "GF-COST-006": ("M", "medium"),
    "GF-COST-007": ("M", "high"),
    "GF-COST-008": ("A", "medium"),
    "GF-COST-009": ("A", "low"),
    "GF-K8S-001": ("M", "medium"),
    "GF-K8S-002": ("M", "medium"),
    "GF-K8S-003": ("M", "high"),
    "GF-K8S-004": ("A", "low"),
    "GF-K8S-005": ("M", "critical"),
    "GF-DR-001": ("A", "medium"),
    "GF-DR-002": ("A", "low"),
    "GF-OPS-001": ("M", "high"),
    "GF-OPS-002": ("A", "high"),
    "GF-OPS-003": ("M", "medium"),
    "GF-OPS-004": ("A", "medium"),
    "GF-OPS-005": ("A", "medium"),
    "GF-DEPLOY-001": ("M", "high"),
    "GF-DEPLOY-002": ("M", "high"),
    "GF-DEPLOY-003": ("M", "high"),
    "GF-FIT-001": ("M", "high"),
    "GF-FIT-002": ("M", "high"),
    "GF-FIT-003": ("M", "high"),
    "GF-FIT-004": ("M", "high"),
    "GF-FIT-005": ("A", "medium"),
    "GF-FIT-006": ("M", "medium"),
}
LEVEL = {"M": EnforcementLevel.MANDATORY, "A": EnforcementLevel.ADVISORY}
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return default_registry()


def test_catalogue_copy_has_59_rules() -> None:
    assert len(CATALOGUE) == 59


def test_every_catalogue_id_is_implemented(registry: Registry) -> None:
    missing = sorted(set(CATALOGUE) - set(registry.ids()), key=list(CATALOGUE).index)
    assert not missing, f"{len(missing)} of 59 catalogue rules are not implemented: {', '.join(missing)}"


def test_no_rule_outside_the_catalogue(registry: Registry) -> None:
    assert sorted(set(registry.ids()) - set(CATALOGUE)) == []


def test_each_rule_is_implemented_once(registry: Registry) -> None:
    policies = list(registry)
    assert len({p.rule.id for p in policies}) == len(policies)
    assert len({p.name for p in policies}) == len(policies)


@pytest.mark.parametrize("rule_id", list(CATALOGUE))
def test_metadata_is_complete_and_matches_the_catalogue(registry: Registry, rule_id: str) -> None:
    if rule_id not in registry:
        pytest.fail(f"{rule_id} is not implemented (see test_every_catalogue_id_is_implemented)")
    policy = registry.get(rule_id)
    rule = policy.rule
    enforcement, severity = CATALOGUE[rule_id]
    assert KEBAB.match(policy.name), policy.name
    assert policy.name == rule.name
    assert policy.description.startswith(f"{rule_id}: "), policy.description
    assert len(policy.description) > len(rule_id) + 10
    assert policy.enforcement_level == LEVEL[enforcement]
    assert policy.severity == Severity(severity)
    assert rule.remediation.strip(), f"{rule_id} has no remediation"
    assert rule.url.startswith("https://"), f"{rule_id} url {rule.url!r}"
    assert rule.clouds
    for key, schema in rule.config.items():
        assert "default" in schema and "type" in schema, f"{rule_id}.{key} schema {schema}"


def _policy(rule_id: str, name: str) -> GfPolicy:
    rule = Rule(
        id=rule_id,
        name=name,
        description="test",
        clouds=("aws",),
        enforcement=EnforcementLevel.ADVISORY,
        severity=Severity.LOW,
        remediation="-",
        url="https://example.invalid",
    )
    return GfResourcePolicy(rule, lambda args, report: None)


def test_registry_rejects_duplicates_and_resets() -> None:
    registry = Registry([_policy("GF-NET-990", "dup-one")])
    with pytest.raises(DuplicateRuleError, match="rule id GF-NET-990 is registered twice"):
        registry.register(_policy("GF-NET-990", "dup-two"))
    with pytest.raises(DuplicateRuleError, match="policy name dup-one is registered twice"):
        registry.register(_policy("GF-NET-991", "dup-one"))
    registry.reset()
    assert len(registry) == 0
    registry.register(_policy("GF-NET-990", "dup-two"))
    assert registry.ids() == ["GF-NET-990"]


def test_project_policy_config_is_valid_for_the_registry(registry: Registry) -> None:
    path = ROOT / "policy-config.json"
    raw = json.loads(path.read_text())
    assert isinstance(raw, dict)
    load_policy_config(path, list(registry))
