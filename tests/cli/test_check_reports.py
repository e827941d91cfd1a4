"""`gpufleet check` on this repository's project: the five report files, a stack that breaks a rule, and
the policy-config switches (--enforce, --set, --rules, --policy-config)."""

from __future__ import annotations

import errno
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from gpufleet.policies.registry import default_registry
from tests.cli.helpers import DEV_STACK, ROOT, Run, copy_project, invoke, replace_once

SPOT_RULE = "GF-COST-004"
ASG_URN = (
    "urn:pulumi:dev::gpufleet::gpufleet:fleet:HybridGpuFleet$gpufleet:sites:AwsSite$gpufleet:pools:GpuPool"
    "$aws:autoscaling/group:Group::gpufleet-dev-pool-experiments-asg"
)
SPOT_MESSAGE = (
    "Auto Scaling group 'gpufleet-dev-pool-experiments-asg' (dev) runs 0% of its capacity on spot; "
    "dev pools need at least 100%"
)
CONTRACT_KEYS = {"stack", "project", "resources", "violations", "opaque", "checkov", "cost", "waived"}
VIOLATION_KEYS = {
    "rule_id", "policy", "enforcement", "severity", "engine", "urn", "resource_type", "message", "remediation"
}  # fmt: skip
COST_KEYS = {"currency", "hourly_min", "hourly_max", "monthly_estimate", "budget", "budget_used_percent"}


@pytest.fixture(scope="module")
def no_spot_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with a dev pool that runs no spot capacity (GF-COST-004 requires 100% in dev) and the
    repository's prod stack as it is."""
    stacks = {
        "dev": replace_once(DEV_STACK, "spot_percent: 100", "spot_percent: 0"),
        "prod": (ROOT / "stacks" / "Pulumi.prod.yaml").read_text(),
    }
    return copy_project(tmp_path_factory.mktemp("no-spot"), stacks)


@pytest.fixture(scope="module")
def no_spot(no_spot_project: Path) -> Run:
    return invoke("check", str(no_spot_project), "-s", "dev")


@pytest.fixture(scope="module")
def reports(no_spot_project: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    """One run over both stacks writing every format."""
    out = tmp_path_factory.mktemp("reports")
    formats = "sarif,junit,markdown,json,text"
    run = invoke("check", str(no_spot_project), "--all-stacks", "--format", formats, "-o", str(out))
    return run, out


def test_the_repository_stacks_pass_their_guardrails() -> None:
    run = invoke("check", str(ROOT), "--all-stacks")
    document = json.loads(run.stdout)
    mandatory = [v for s in document["stacks"] for v in s["violations"] if v["enforcement"] == "mandatory"]
    assert mandatory == []
    assert run.exit_code == 0


def test_all_stacks_writes_the_five_reports(reports: tuple[Run, Path]) -> None:
    run, out = reports
    document = json.loads((out / "gpufleet.json").read_text())
    violations = [v for s in document["stacks"] for v in s["violations"]]
    assert run.exit_code == 1, run.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "gpufleet.json",
        "gpufleet.junit.xml",
        "gpufleet.md",
        "gpufleet.sarif",
        "gpufleet.txt",
    ]
    assert run.stdout.splitlines() == [
        f"wrote {out / 'gpufleet.sarif'}",
        f"wrote {out / 'gpufleet.junit.xml'}",
        f"wrote {out / 'gpufleet.md'}",
        f"wrote {out / 'gpufleet.json'}",
        f"wrote {out / 'gpufleet.txt'}",
        f"2 stacks: 1 mandatory, {len(violations) - 1} advisory violations",
    ]


def test_json_report_keeps_the_output_contract(reports: tuple[Run, Path]) -> None:
    document = json.loads((reports[1] / "gpufleet.json").read_text())
    assert document["version"] == 1
    assert [s["stack"] for s in document["stacks"]] == ["dev", "prod"]
    for stack in document["stacks"]:
        assert set(stack) == CONTRACT_KEYS
        assert stack["project"] == "gpufleet"
        assert stack["resources"] > 40
        assert set(stack["cost"]) == COST_KEYS
        assert stack["cost"]["currency"] == "USD"
        for violation in stack["violations"]:
            # `spec_field` is added where the fix is a field of the gpufleet spec.
            assert set(violation) - {"spec_field"} == VIOLATION_KEYS
    dev, prod = document["stacks"]
    assert [(v["rule_id"], v["urn"]) for v in dev["violations"]] == [(SPOT_RULE, ASG_URN)]
    assert all(v["enforcement"] == "advisory" for v in prod["violations"])
    assert dev["cost"]["budget"] == 3000 and prod["cost"]["budget"] == 60000
    assert 0 < dev["cost"]["monthly_estimate"] < prod["cost"]["monthly_estimate"]
    assert dev["cost"]["budget_used_percent"] == pytest.approx(dev["cost"]["monthly_estimate"] / 30, abs=0.01)


def test_sarif_report_names_every_rule_and_points_at_the_stack_file(
    reports: tuple[Run, Path], no_spot_project: Path
) -> None:
    sarif = json.loads((reports[1] / "gpufleet.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    [run] = sarif["runs"]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rule_ids == default_registry().ids()
    [spot] = [r for r in run["results"] if r["ruleId"] == SPOT_RULE]
    assert spot["level"] == "error"
    location = spot["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "stacks/Pulumi.dev.yaml"}
    # The fix is a field of the pool configured under `experiments:`: SARIF points at that field's line.
    lines = (no_spot_project / "stacks" / "Pulumi.dev.yaml").read_text().splitlines()
    assert lines[location["region"]["startLine"] - 1].strip() == "spot_percent: 0"
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]


def test_junit_report_has_a_suite_per_stack(reports: tuple[Run, Path]) -> None:
    root = ET.parse(reports[1] / "gpufleet.junit.xml").getroot()
    assert root.tag == "testsuites"
    assert root.get("failures") == "1"
    assert [suite.get("name") for suite in root] == ["gpufleet.gpufleet.dev", "gpufleet.gpufleet.prod"]
    assert [suite.get("failures") for suite in root] == ["1", "0"]
    [failed] = [case for case in root.iter("testcase") if case.find("failure") is not None]
    assert failed.get("classname") == f"gpufleet.dev.{SPOT_RULE}"
    failure = failed.find("failure")
    assert failure is not None and failure.get("message") == SPOT_MESSAGE


def test_markdown_and_text_reports_name_the_stacks(reports: tuple[Run, Path]) -> None:
    markdown = (reports[1] / "gpufleet.md").read_text(encoding="utf-8")
    assert markdown.startswith("## gpufleet policy check: ❌ blocked")
    assert "### Stack `dev` (gpufleet, " in markdown
    assert "### Stack `prod` (gpufleet, " in markdown
    assert "Cost: USD " in markdown
    assert "`non-prod-gpu-pools-on-spot` | **mandatory** |" in markdown
    text = (reports[1] / "gpufleet.txt").read_text()
    assert text.startswith("stack dev (project gpufleet): ")
    assert "\nstack prod (project gpufleet): " in text
    assert f"    {SPOT_RULE} non-prod-gpu-pools-on-spot [mandatory] (1)" in text


def test_a_pool_without_spot_breaks_gf_cost_004(no_spot: Run) -> None:
    assert no_spot.exit_code == 1, no_spot.stderr
    [stack] = json.loads(no_spot.stdout)["stacks"]
    [violation] = stack["violations"]
    assert violation == {
        "rule_id": SPOT_RULE,
        "policy": "non-prod-gpu-pools-on-spot",
        "enforcement": "mandatory",
        "severity": "medium",
        "engine": "crossguard",
        "urn": ASG_URN,
        "resource_type": "aws:autoscaling/group:Group",
        "message": SPOT_MESSAGE,
        "remediation": "in stacks/Pulumi.dev.yaml set pools.experiments.spot_percent: 100 under "
        "gpufleet:fleet (dev pools run at least 100% on spot)",
        "spec_field": "pools.experiments.spot_percent",
    }
    # On demand costs more than spot: the estimate follows the stack file.
    assert stack["cost"]["monthly_estimate"] > 0


@pytest.mark.parametrize("target", ["GF-COST-004", "non-prod-gpu-pools-on-spot", "all"])
def test_enforce_advisory_lets_the_check_pass(no_spot_project: Path, target: str) -> None:
    run = invoke("check", str(no_spot_project), "-s", "dev", "--enforce", f"{target}=advisory")
    assert run.exit_code == 0, run.stderr
    [stack] = json.loads(run.stdout)["stacks"]
    assert [(v["rule_id"], v["enforcement"]) for v in stack["violations"]] == [(SPOT_RULE, "advisory")]


def test_set_changes_a_rule_config(no_spot_project: Path) -> None:
    run = invoke("check", str(no_spot_project), "-s", "dev", "--set", "GF-COST-004.min_spot_percent.dev=0")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["stacks"][0]["violations"] == []


def test_rules_selects_the_policies_that_run(no_spot_project: Path) -> None:
    run = invoke("check", str(no_spot_project), "-s", "dev", "--rules", "GF-STOR-*,gf-kms-001")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["stacks"][0]["violations"] == []
    run = invoke("check", str(no_spot_project), "-s", "dev", "--rules", "GF-COST-00?", "--format", "text")
    assert run.exit_code == 1
    assert f"    {SPOT_RULE} non-prod-gpu-pools-on-spot [mandatory] (1)" in run.stdout
    assert (
        f"      - gpufleet-dev-pool-experiments-asg (aws:autoscaling/group:Group): {SPOT_MESSAGE}"
        in run.stdout
    )


def test_policy_config_file_sets_enforcement(no_spot_project: Path, tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    # A config file given on the command line replaces the project's: it keeps the project's note that
    # the account-baseline stack creates the Auto Scaling service-linked role the keys name.
    config.write_text(
        "non-prod-gpu-pools-on-spot:\n  enforcementLevel: disabled\n"
        "policy-principals-exist:\n  existing_principals: [AWSServiceRoleForAutoScaling]\n"
    )
    run = invoke("check", str(no_spot_project), "-s", "dev", "--policy-config", str(config))
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["stacks"][0]["violations"] == []


def test_text_report_on_stdout(no_spot_project: Path) -> None:
    run = invoke("check", str(no_spot_project), "-s", "dev", "--format", "text")
    assert run.exit_code == 1
    lines = run.stdout.splitlines()
    assert re.fullmatch(
        r"stack dev \(project gpufleet\): \d+ resources, 1 mandatory, 0 advisory violations", lines[0]
    )
    assert lines[1].startswith("  cost: USD ") and "of the 3000.00 budget" in lines[1]
    assert lines[2:4] == ["  MEDIUM", f"    {SPOT_RULE} non-prod-gpu-pools-on-spot [mandatory] (1)"]
    assert lines[-1] == "total: 1 stack, 1 mandatory, 0 advisory violations"


def _stack_error(run: Run) -> str:
    assert run.exit_code == 2, run.stdout
    assert run.stdout == ""
    return run.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--enforce", "GF-COST-404=advisory"],
            "error: --enforce GF-COST-404=advisory: no such policy or rule id GF-COST-404; did you mean "
            "GF-COST-004, GF-COST-009, GF-COST-008?\n",
        ),
        (
            ["--enforce", "GF-COST-004=lenient"],
            'error: --enforce GF-COST-004=lenient: "lenient" is not an enforcement level; allowed: advisory, '
            "mandatory, remediate, disabled\n",
        ),
        (
            ["--set", "GF-COST-004.max_spot=3"],
            "error: --set GF-COST-004.max_spot=3: non-prod-gpu-pools-on-spot has no config key max_spot; "
            "allowed: min_spot_percent\n",
        ),
        (
            ["--rules", "GF-GPU-*"],
            "error: --rules GF-GPU-*: matches no rule id or policy name; rule ids look like GF-STOR-001 "
            "(wildcards allowed: GF-COST-*); run `gpufleet rules` for the list\n",
        ),
        (
            ["--format", "json,pdf"],
            "error: --format 'pdf' is not a report format; allowed: json, text, sarif, junit, markdown\n",
        ),
        (
            ["--format", "sarif,junit"],
            "error: --format sarif,junit names 2 reports and stdout takes one: pass --output-dir DIR to "
            "write each to its file there\n",
        ),
        (
            ["--all-stacks"],
            "error: pass exactly one of --stack/-s STACK or --all-stacks\n",
        ),
    ],
)
def test_bad_options_exit_2_with_one_message(args: list[str], message: str) -> None:
    assert _stack_error(invoke("check", str(ROOT), "-s", "dev", *args)) == message


def test_several_config_problems_are_listed_one_per_line(tmp_path: Path) -> None:
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"GF-AUD-002": {"min_days": "long"}, "no-such-policy": "advisory"}))
    stderr = _stack_error(
        invoke("check", str(ROOT), "-s", "dev", "--policy-config", str(config), "--enforce", "all=off")
    )
    assert stderr.splitlines() == [
        "error: invalid policy configuration (3 problems):",
        f'  {config}: GF-AUD-002.min_days: "long" is not allowed; expected integer (>= 1)',
        f"  {config}: no-such-policy: no such policy or rule id; did you mean no-ssh-rdp-ingress, "
        "gpu-no-public-ip, no-broad-managed-policies?",
        '  --enforce all=off: "off" is not an enforcement level; '
        "allowed: advisory, mandatory, remediate, disabled",
    ]


def test_a_stack_without_a_file_and_unreadable_config_exit_2(tmp_path: Path) -> None:
    # No stack file: the fleet program runs with empty config and asks for its spec.
    stderr = _stack_error(invoke("check", str(ROOT), "-s", "staging"))
    assert stderr.startswith("error: the program infra/__main__.py requires config 'gpufleet:fleet' ")
    assert str(ROOT / "stacks" / "Pulumi.staging.yaml") in stderr
    missing = tmp_path / "missing.json"
    stderr = _stack_error(invoke("check", str(ROOT), "-s", "dev", "--policy-config", str(missing)))
    assert stderr == f"error: {missing}: cannot read the policy config (No such file or directory)\n"


def test_invalid_fleet_spec_lists_every_problem(tmp_path: Path) -> None:
    stack = replace_once(DEV_STACK, "spot_percent: 100", "spot_percent: 150")
    stack = replace_once(stack, "gpu_util_in: 30", "gpu_util_in: 80")
    project = copy_project(tmp_path / "p", {"dev": stack})
    stderr = _stack_error(invoke("check", str(project), "-s", "dev"))
    assert stderr.splitlines() == [
        "error: stacks/Pulumi.dev.yaml: invalid gpufleet:fleet (2 problems):",
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.experiments.spot_percent: must be <= 100, got 150",
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.experiments.scaling.gpu_util_out: must be > "
        "scaling.gpu_util_in (80), got 70",
    ]


def test_reports_are_not_half_written(
    no_spot_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    (out / "gpufleet.json").write_text("previous run\n")
    real_open = os.open

    def disk_full_for_markdown(path: Any, flags: int, mode: int = 0o777) -> int:
        if ".gpufleet.md." in str(path):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, flags, mode)

    # The Markdown report's staging file cannot be written: no report may change.
    monkeypatch.setattr("gpufleet.atomic.os.open", disk_full_for_markdown)
    run = invoke("check", str(no_spot_project), "-s", "dev", "-f", "json,sarif,markdown", "-o", str(out))
    assert run.exit_code == 2
    assert run.stderr == f"error: cannot write the reports to {out}: No space left on device\n"
    assert (out / "gpufleet.json").read_text() == "previous run\n"
    assert sorted(p.name for p in out.iterdir()) == ["gpufleet.json"]


def test_a_usage_profile_the_schedule_cannot_hold_exits_2(tmp_path: Path) -> None:
    stack = replace_once(DEV_STACK, "hours_per_day: 8,", "hours_per_day: 20,")
    project = copy_project(tmp_path / "p", {"dev": stack})
    stderr = _stack_error(invoke("check", str(project), "-s", "dev"))
    # The off-hours window 20:00-08:00 leaves at most 12 running hours a day.
    # The spec refuses it before the program runs, with the spec's own error listing.
    assert stderr.startswith("error: stacks/Pulumi.dev.yaml: invalid gpufleet:fleet (1 problem):")
    assert (
        "stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.experiments.usage.hours_per_day: 20 h a day in use, "
        "but the off-hours schedule (scale_to_zero 20:00-08:00) leaves the pool running at most 12 h a day"
    ) in stderr
