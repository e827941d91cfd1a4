"""The whole policy pack on the Tencent Cloud site built from the tc-dev stack (stacks/Pulumi.tc-dev.yaml,
run by tencent_site_program, which can break one input at a time): nothing to report as built, and each
setting the site's resources could get wrong trips its own rule."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import project_policy_config

PROGRAM = Path(__file__).parent / "tencent_site_program"
ROOT = Path(__file__).resolve().parents[2]
TC_DEV: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / "Pulumi.tc-dev.yaml").read_text(encoding="utf-8"))[
    "config"
]
SITE = "gpufleet-dev-tencentcloud-ap-guangzhou"
CONFIG = "pool-t4-dev-spot-config"


@functools.cache
def _graph(mutate: str = "") -> ResourceGraph:
    return run_program(PROGRAM, "dev", config_overrides={**TC_DEV, **({"mutate": mutate} if mutate else {})})


def test_the_site_program_builds_the_same_site_as_the_project_program() -> None:
    # The tests' small program and infra/ (through HybridGpuFleet) build one site from stacks/: the same
    # resources under the same names but for the fleet's name (gpufleet-dev here, gpufleet-tc-dev there).
    project = run_program(ROOT, "tc-dev")

    def site(graph: ResourceGraph, fleet: str) -> list[tuple[str, str]]:
        return sorted(
            (r.type, r.name.replace(fleet, "<fleet>"))
            for r in graph
            if r.custom and r.type.startswith(("tencentcloud:", "pulumi:providers:tencentcloud"))
        )

    assert site(project, "gpufleet-tc-dev") == site(_graph(), "gpufleet-dev")
    # 29 and the queue alarm's binding to its queue; then per backlog band past the first a policy, an
    # alarm policy and its binding, and the first band's own policy (10).
    assert len(site(project, "gpufleet-tc-dev")) == 43


def _check(mutate: str = "") -> StackResult:
    return evaluate_stack(_graph(mutate), list(default_registry()), project_policy_config())


def _system_disk_unjudged(finding: Any) -> bool:
    """GF-STOR-008's advisory on an AS launch configuration: its system disk has no encryption input."""
    return finding.rule_id == "GF-STOR-008" and "could not be judged: the encryption of its system disk" in (
        finding.message
    )


def test_site_as_built_has_no_violation_but_the_unjudgeable_system_disk() -> None:
    result = _check()
    assert [(v.rule_id, v.enforcement, v.urn.rsplit("::", 1)[-1]) for v in result.violations] == [
        ("GF-STOR-008", "advisory", f"{SITE}-{CONFIG}")
    ]
    assert (
        f"AS launch configuration '{SITE}-{CONFIG}' could not be judged: the encryption of its system disk "
        "(systemDiskType): the Tencent Cloud provider has no system-disk encryption input"
    ) in result.violations[0].message
    # The rules that judge the site's kinds of resources ran on them (were not skipped).
    judged = {"GF-ACC-001", "GF-ACC-002", "GF-ACC-003", "GF-ACC-005", "GF-KMS-001", "GF-STOR-001"}
    judged |= {"GF-STOR-003", "GF-STOR-004", "GF-STOR-005", "GF-STOR-007", "GF-AUD-001", "GF-AUD-002"}
    judged |= {"GF-IAM-001", "GF-IAM-004", "GF-COST-002", "GF-COST-004", "GF-COST-006", "GF-OPS-001"}
    assert judged.isdisjoint({n["rule_id"] for n in result.not_applicable})


def test_every_tencent_resource_uses_the_site_provider_for_its_region() -> None:
    graph = _graph()
    [provider] = graph.of_type("pulumi:providers:tencentcloud")
    assert provider.name == f"{SITE}-provider"
    assert provider.inputs["region"] == "ap-guangzhou"
    custom = [r for r in graph if r.custom and r.type.startswith("tencentcloud:")]
    # 28, the queue alarm's binding to its queue, the group's drain hook, the pool's protection policy
    # and its attachment, and the backlog bands' 4 policies, 3 more alarm policies and their 3 bindings
    assert len(custom) == 42
    assert {r.provider for r in custom if r.provider} == {provider.urn}
    assert [r.name for r in custom if not r.provider] == []


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


WORLD_SSH = [{"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "TCP", "port": "22"}]
TRUST_ANYONE = {
    "version": "2.0",
    "statement": [
        {
            "action": ["name/sts:AssumeRole"],
            "effect": "allow",
            "principal": {"qcs": ["qcs::cam::anyone:anyone"]},
        }
    ],
}
BUCKET = "qcs::cos:ap-guangzhou:uid/1250000000:gpufleet-dev-ckpt-ap-guangzhou-1250000000"
COS_STAR = {
    "version": "2.0",
    "statement": [{"effect": "allow", "action": ["cos:*"], "resource": [f"{BUCKET}/checkpoints/*"]}],
}

# mutation (resource suffix after the site name, dotted input, value) -> (rule id, resource suffix, words)
MUTATIONS: dict[str, tuple[str, str, Any, str, str, str]] = {
    "rotation-off": ("key-key", "key_rotation_enabled", False, "GF-KMS-001", "key-key", "does not rotate"),
    "public-read": (
        "checkpoints-bucket",
        "acl",
        "public-read",
        "GF-STOR-003",
        "checkpoints-bucket",
        "public-read",
    ),
    "unencrypted": (
        "checkpoints-bucket",
        "encryption_algorithm",
        None,
        "GF-STOR-001",
        "checkpoints-bucket",
        "encryptionAlgorithm",
    ),
    "unversioned": (
        "checkpoints-bucket",
        "versioning_enable",
        False,
        "GF-STOR-007",
        "checkpoints-bucket",
        "not versioned",
    ),
    "tls-policy-gone": (
        "checkpoints-tls-only",
        "policy",
        _json({"version": "2.0", "Statement": []}),
        "GF-STOR-004",
        "checkpoints-bucket",
        "cos:secure-transport",
    ),
    "ssh-from-world": (
        "network-nodes-rules",
        "ingresses",
        WORLD_SSH,
        "GF-ACC-001",
        "network-nodes-rules",
        "SSH (TCP 22)",
    ),
    "password": (CONFIG, "password", "Sup3r-Secret!", "GF-ACC-002", CONFIG, "a login password (password)"),
    "no-login-lock": (CONFIG, "user_data", None, "GF-ACC-002", CONFIG, "CVM sets a random login password"),
    "tat-off": (
        CONFIG,
        "enhanced_automation_tools_service",
        False,
        "GF-ACC-003",
        CONFIG,
        "enhancedAutomationToolsService is false",
    ),
    "public-ip": (CONFIG, "public_ip_assigned", True, "GF-ACC-005", CONFIG, "publicIpAssigned is true"),
    "on-demand": (
        CONFIG,
        "instance_charge_type",
        "POSTPAID_BY_HOUR",
        "GF-COST-004",
        "pool-t4-dev-spot",
        "0% of its capacity on spot",
    ),
    "short-retention": ("audit-cloudaudit", "period", 30, "GF-AUD-002", "audit-cloudaudit", "30 days"),
    "trust-anyone": (
        "identity-nodes",
        "document",
        _json(TRUST_ANYONE),
        "GF-IAM-004",
        "identity-nodes",
        "qcs::cam::anyone:anyone",
    ),
    "cos-star": (
        "identity-nodes-policy",
        "document",
        _json(COS_STAR),
        "GF-IAM-001",
        "identity-nodes-policy",
        "'cos:*'",
    ),
    "late-alert": (
        "cost-budget",
        "warn_jsons",
        [{"warn_type": "ACTUAL", "cal_type": "PERCENTAGE", "threshold_value": "95"}],
        "GF-COST-002",
        "cost-budget",
        "95%",
    ),
    "agent-off": (
        CONFIG,
        "enhanced_monitor_service",
        False,
        "GF-OPS-001",
        "pool-t4-dev-gpu-high",
        "enhancedMonitorService false",
    ),
}


# On demand, the dev spot group pays GN7.2XLARGE32's on-demand price, over the dev ceiling of 5 CNY an hour
# for a T4 (GF-FIT-006's default).
ALSO_TRIPPED = {"on-demand": {("GF-FIT-006", "pool-t4-dev-spot")}}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_each_mutation_trips_its_rule(case: str) -> None:
    target, path, value, rule_id, subject, words = MUTATIONS[case]
    result = _check(f"{SITE}-{target}.{path}={_json(value)}")
    found = [
        (v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in result.violations if not _system_disk_unjudged(v)
    ]
    assert (rule_id, f"{SITE}-{subject}") in found, [(v.rule_id, v.message) for v in result.violations]
    also = {(r, f"{SITE}-{name}") for r, name in ALSO_TRIPPED.get(case, set())}
    assert {f for f in found if f[0] != rule_id} == also, [(v.rule_id, v.message) for v in result.violations]
    assert any(words in v.message for v in result.violations if v.rule_id == rule_id)
