"""GF-ENGINE-001 (component-not-inspected) takes its level like any rule: `--enforce`, the policy-config
file and `--rules`, not only `check --strict`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.evaluate import evaluate_stack
from gpufleet.policies.registry import default_registry
from gpufleet.policy_config import PolicyConfigError, engine_enforcement, load_policy_config
from gpufleet.policy_overrides import apply_overrides
from tests.cli.helpers import invoke
from tests.engine.projects import write_project
from tests.report.test_opaque_report import _graph

POLICIES = list(default_registry())


def _levels(config: dict[str, object]) -> list[str]:
    result = evaluate_stack(_graph(), [], config)
    return [f.enforcement for f in result.violations if f.rule_id == "GF-ENGINE-001"]


def test_the_pack_keeps_its_49_policies() -> None:
    assert len(POLICIES) == 59
    assert "GF-ENGINE-001" not in {p.rule.id for p in POLICIES}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, ["advisory", "advisory"]),
        ({"component-not-inspected": "mandatory"}, ["mandatory", "mandatory"]),
        ({"GF-ENGINE-001": {"enforcementLevel": "remediate"}}, ["mandatory", "mandatory"]),
        ({"component-not-inspected": {"enforcementLevel": "disabled"}}, []),
        # `all` speaks for the pack's policies only.
        ({"all": "mandatory"}, ["advisory", "advisory"]),
    ],
)
def test_the_config_sets_the_level(config: dict[str, object], expected: list[str]) -> None:
    assert _levels(config) == expected


def test_enforce_names_it_by_id_or_name() -> None:
    assert apply_overrides({}, POLICIES, enforce=["GF-ENGINE-001=mandatory"]) == {
        "component-not-inspected": "mandatory"
    }
    config = apply_overrides(
        {"component-not-inspected": "mandatory"}, POLICIES, enforce=["all=advisory", "gf-engine-001=disabled"]
    )
    assert engine_enforcement(config).value == "disabled"
    with pytest.raises(PolicyConfigError) as caught:
        apply_overrides({}, POLICIES, enforce=["GF-ENGINE-001=fatal"], set_values=["GF-ENGINE-001.x=1"])
    assert caught.value.problems == [
        '--enforce GF-ENGINE-001=fatal: "fatal" is not an enforcement level; allowed: advisory, mandatory, '
        "remediate, disabled",
        "--set GF-ENGINE-001.x=1: GF-ENGINE-001 takes no config, only a level (--enforce)",
    ]


def test_the_file_accepts_it_and_rejects_config_keys(tmp_path: Path) -> None:
    good = tmp_path / "policy-config.yaml"
    good.write_text("component-not-inspected: {enforcementLevel: mandatory}\n")
    assert load_policy_config(good, POLICIES) == {"component-not-inspected": "mandatory"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"GF-ENGINE-001": {"enforcementLevel": "mandatory", "depth": 3}}))
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(bad, POLICIES)
    assert caught.value.problems == [
        f"{bad}: GF-ENGINE-001.depth: unknown key; GF-ENGINE-001 takes enforcementLevel only"
    ]


RELEASE = """
import pulumi_kubernetes as k8s

k8s.helm.v3.Release("dcgm", chart="dcgm-exporter", namespace="monitoring")
"""


def test_check_enforce_file_and_rules(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", RELEASE)
    enforced = invoke("check", str(root), "-s", "dev", "--enforce", "GF-ENGINE-001=mandatory")
    assert enforced.exit_code == 1, enforced.stdout
    [finding] = json.loads(enforced.stdout)["stacks"][0]["violations"]
    assert (finding["rule_id"], finding["enforcement"]) == ("GF-ENGINE-001", "mandatory")

    (root / "policy-config.json").write_text('{"component-not-inspected": {"enforcementLevel": "mandatory"}}')
    from_file = invoke("check", str(root), "-s", "dev", "--rules", "GF-ENGINE-001")
    assert from_file.exit_code == 1, from_file.stdout
    [finding] = json.loads(from_file.stdout)["stacks"][0]["violations"]
    assert (finding["rule_id"], finding["enforcement"]) == ("GF-ENGINE-001", "mandatory")

    # Other rules only: the engine rule was not asked for; the report still lists the component.
    others = invoke("check", str(root), "-s", "dev", "--rules", "GF-K8S-*")
    assert others.exit_code == 0, others.stdout
    stack = json.loads(others.stdout)["stacks"][0]
    assert [f["rule_id"] for f in stack["violations"]] == []
    assert [o["name"] for o in stack["opaque"]] == ["dcgm"]
