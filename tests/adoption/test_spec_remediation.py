"""Fixes in the words of the stack file: every rule our components can break names the spec field and
value, the text report shows it, SARIF points at that field's line; other programs keep the rule's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.evaluate import Finding
from gpufleet.remediation_fields import FIELDS, field_line, pool_of
from tests.cli.helpers import DEV_STACK, copy_project, invoke, replace_once

ROOT = Path(__file__).resolve().parents[2]
BROKEN = {
    "spot_percent: 100": "spot_percent: 0",
    "[g4dn.xlarge, g5.xlarge]": "[p4d.24xlarge]",
    "audit: {trail: true, log_retention_days: 180}": "audit: {trail: true, log_retention_days: 30}",
    "cooldown: 300s": "cooldown: 60s",
    "expire_after_days: 30": "expire_after_days: 90",
    "noncurrent_expire_days: 7": "noncurrent_expire_days: 30",
}
FILE = "stacks/Pulumi.dev.yaml"


def _fix(field: str, value: str, why: str) -> str:
    return f"in {FILE} set {field}: {value} under gpufleet:fleet ({why})"


EXPECTED = {
    ("GF-COST-003", "gpufleet-dev-pool-experiments-asg"): (
        "pools.experiments.instance_types",
        _fix(
            "pools.experiments.instance_types",
            "[g4dn.xlarge]",
            "dev allows T4, A10G, A10, L4 GPUs; g4dn.xlarge has 1 T4",
        ),
    ),
    ("GF-COST-004", "gpufleet-dev-pool-experiments-asg"): (
        "pools.experiments.spot_percent",
        _fix("pools.experiments.spot_percent", "100", "dev pools run at least 100% on spot"),
    ),
    ("GF-COST-006", "gpufleet-dev-pool-experiments-asg"): (
        "pools.experiments.scaling.cooldown",
        _fix("pools.experiments.scaling.cooldown", "300s", "at least 300 s between scaling steps"),
    ),
    ("GF-OPS-003", "gpufleet-dev-pool-experiments-scale-in"): (
        "pools.experiments.scaling.cooldown",
        _fix("pools.experiments.scaling.cooldown", "300s", "at least 300 s between scaling steps"),
    ),
    ("GF-COST-007", ""): (
        "pools.experiments.size.max",
        _fix(
            "pools.experiments.size.max",
            "1",
            "1 x 32.77 an hour on demand stays under the cap of 50; or pick a smaller type",
        ),
    ),
    # dev's trail is the account stack's (baseline: separate): only its own log groups are judged here.
    ("GF-AUD-002", "gpufleet-dev-audit-agent-logs"): (
        "audit.log_retention_days",
        _fix("audit.log_retention_days", "180", "audit logs are kept at least 180 days"),
    ),
    ("GF-STOR-005", "gpufleet-dev-storage-bucket"): (
        "storage.checkpoints.expire_after_days",
        _fix("storage.checkpoints.expire_after_days", "30", "checkpoints expire within 30 days"),
    ),
    ("GF-STOR-007", "gpufleet-dev-storage-bucket"): (
        "storage.checkpoints.noncurrent_expire_days",
        _fix("storage.checkpoints.noncurrent_expire_days", "7", "old versions go within 7 days"),
    ),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], Path]:
    stack = DEV_STACK
    for old, new in BROKEN.items():
        stack = replace_once(stack, old, new)
    project = copy_project(tmp_path_factory.mktemp("p"), {"dev": stack})
    out = tmp_path_factory.mktemp("reports")
    run = invoke("check", str(project), "-s", "dev", "-f", "json,text,sarif", "-o", str(out))
    assert run.exit_code == 1, run.stderr
    return project, json.loads((out / "gpufleet.json").read_text()), out


def test_every_rule_our_components_break_is_fixed_by_a_spec_field(
    broken: tuple[Path, dict[str, Any], Path],
) -> None:
    _, document, _ = broken
    [stack] = document["stacks"]
    found = {
        (v["rule_id"], v["urn"].rsplit("::", 1)[-1] if v["urn"] else ""): (
            v.get("spec_field"),
            v["remediation"],
        )
        for v in stack["violations"]
    }
    for key, expected in EXPECTED.items():
        assert found.get(key) == expected, key
    # The budget follows the estimate of this very run, rounded up to the next hundred.
    budget_field, budget_fix = found[("GF-COST-002", "gpufleet-dev-budget-budget")]
    estimate = stack["cost"]["monthly_estimate"]
    assert budget_field == "budget.monthly"
    assert budget_fix.startswith(
        f"in {FILE} set budget.monthly: {int(-(-estimate // 100) * 100)} under gpufleet:fleet"
    )
    # Every finding of this stack is one the table knows.
    assert all(field is not None for field, _ in found.values())
    assert {rule for rule, _ in FIELDS} >= {rule for rule, _ in found}


def test_text_report_shows_each_fix_under_its_finding(broken: tuple[Path, dict[str, Any], Path]) -> None:
    _, _, out = broken
    lines = (out / "gpufleet.txt").read_text().splitlines()
    spot = next(i for i, line in enumerate(lines) if "runs 0% of its capacity on spot" in line)
    assert (
        lines[spot + 1] == "        fix: " + EXPECTED[("GF-COST-004", "gpufleet-dev-pool-experiments-asg")][1]
    )
    # No provider property in a gpufleet stack's fixes.
    assert "onDemandPercentageAboveBaseCapacity" not in "\n".join(lines)


def test_sarif_points_at_the_fields_line(broken: tuple[Path, dict[str, Any], Path]) -> None:
    project, _, out = broken
    lines = (project / FILE).read_text().splitlines()
    results = json.loads((out / "gpufleet.sarif").read_text())["runs"][0]["results"]
    at = {
        result["ruleId"]: lines[result["locations"][0]["physicalLocation"]["region"]["startLine"] - 1].strip()
        for result in results
    }
    assert at["GF-COST-004"] == "spot_percent: 0"
    assert (
        at["GF-COST-003"]
        == "instance_types: [p4d.24xlarge]   # one T4 or one A10G: enough to debug a training run"
    )
    assert at["GF-STOR-005"] == "expire_after_days: 90"
    assert at["GF-STOR-007"] == "noncurrent_expire_days: 30"
    assert at["GF-COST-002"].startswith("budget: {monthly: 3000")
    # A field inside a flow mapping points at the mapping's key: `scaling: {..., cooldown: 60s}`.
    assert at["GF-OPS-003"].startswith("scaling: {gpu_util_out: 70")


def test_field_line_falls_back_to_the_deepest_key_given() -> None:
    text = (
        "config:\n  gpufleet:fleet:\n    pools:\n      train:\n        cloud: aws\n        spot_percent: 5\n"
    )
    assert field_line(text, "pools.train.spot_percent") == 6
    # Left to its default: the pool's own line.
    assert field_line(text, "pools.train.scaling.cooldown") == 4
    assert field_line(text, "budget.monthly") is None
    assert field_line("config: [", "pools.train") is None


def test_pool_of_picks_the_longest_pool_name() -> None:
    urn = "urn:pulumi:dev::p::t::gpufleet-dev-pool-a100-west-asg"
    finding = Finding(
        "GF-COST-004", "p", "mandatory", "medium", "crossguard", urn, "aws:autoscaling/group:Group", "m", "r"
    )
    assert pool_of(finding, ["a100", "a100-west", "west"]) == "a100-west"
    assert pool_of(finding, ["h100"]) is None


def test_any_other_program_keeps_the_rules_own_remediation() -> None:
    run = invoke("check", str(ROOT / "tests" / "fixtures" / "photo_archive"), "-s", "dev")
    [stack] = json.loads(run.stdout)["stacks"]
    assert stack["violations"]
    for violation in stack["violations"]:
        assert "spec_field" not in violation
        assert "gpufleet:fleet" not in violation["remediation"]
