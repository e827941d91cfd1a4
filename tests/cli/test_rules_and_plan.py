"""`gpufleet rules` (the catalogue as implemented) and `gpufleet plan`'s effective fleet spec and
stack references."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from gpufleet import cli
from gpufleet.policies.registry import default_registry
from tests.cli.helpers import copy_project, invoke
from tests.engine.projects import PHOTO_ARCHIVE, write_project

ROW_KEYS = {
    "id", "policy", "family", "kind", "clouds", "enforcement", "severity", "config", "description",
    "remediation", "url", "checkov",
}  # fmt: skip


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal wide enough that no line of the output wraps."""
    monkeypatch.setattr(cli, "out", Console(width=240, highlight=False))


# -- rules ---------------------------------------------------------------------------------------


def test_rules_json_lists_every_implemented_rule() -> None:
    run = invoke("rules", "--format", "json")
    assert run.exit_code == 0
    document = json.loads(run.stdout)
    assert document["version"] == 1
    rows = {row["id"]: row for row in document["rules"]}
    # the pack's rules and the engine's own check (GF-ENGINE-001), in id order
    assert list(rows) == sorted([*default_registry().ids(), "GF-ENGINE-001"])
    assert rows["GF-ENGINE-001"]["policy"] == "component-not-inspected"
    assert all(set(row) == ROW_KEYS for row in rows.values())
    assert rows["GF-AUD-002"]["policy"] == "log-retention-minimum"
    assert rows["GF-AUD-002"]["config"]["min_days"]["default"] == 180
    assert rows["GF-STOR-003"]["enforcement"] == "mandatory"
    assert rows["GF-STOR-003"]["severity"] == "critical"
    assert rows["GF-STOR-003"]["clouds"] == ["aws", "alicloud", "tencentcloud"]
    assert rows["GF-DR-001"]["enforcement"] == "advisory"
    assert rows["GF-COST-004"]["config"]["min_spot_percent"]["default"] == {"dev": 100, "staging": 50}
    assert all(row["description"] and row["remediation"] for row in rows.values())


@pytest.mark.parametrize(
    ("args", "family", "cloud"),
    [
        (["--family", "storage", "--cloud", "alicloud"], "storage", "alicloud"),
        (["--cloud", "kubernetes"], None, "kubernetes"),
        (["--family", "iam"], "iam", None),
    ],
)
def test_rules_filters_by_family_and_cloud(args: list[str], family: str | None, cloud: str | None) -> None:
    run = invoke("rules", "-f", "json", *args)
    assert run.exit_code == 0
    ids = [row["id"] for row in json.loads(run.stdout)["rules"]]
    expected = default_registry().select(
        families=[family] if family else None, clouds=[cloud] if cloud else None
    )
    engine = ["GF-ENGINE-001"] if family is None else []
    assert ids == sorted([*(policy.rule.id for policy in expected), *engine])
    assert ids, "the filter selects no rule"


def test_rules_kubernetes_filter_keeps_cross_cloud_rules() -> None:
    ids = [
        row["id"]
        for row in json.loads(invoke("rules", "-f", "json", "--cloud", "kubernetes").stdout)["rules"]
    ]
    assert "GF-COST-001" in ids and "GF-K8S-003" in ids
    assert "GF-STOR-001" not in ids


def test_rules_text_is_a_table_on_any_width(monkeypatch: pytest.MonkeyPatch) -> None:
    narrow = invoke("rules", "--family", "audit")
    assert narrow.exit_code == 0
    assert narrow.stdout.startswith("gpufleet guardrails: 3 rules")
    for rule_id in ("GF-AUD-001", "GF-AUD-002", "GF-AUD-003"):
        assert f"│ {rule_id} " in narrow.stdout
    assert "config: min_days = 180" in narrow.stdout

    monkeypatch.setattr(cli, "out", Console(width=200, highlight=False))
    wide = invoke("rules", "--family", "audit")
    header = next(line for line in wide.stdout.splitlines() if "rule" in line and "clouds" in line)
    assert [cell.strip() for cell in header.strip("┃").split("┃")] == [
        "rule",
        "clouds",
        "level",
        "config (default)",
        "checks, and the fix",
    ]
    row = next(line for line in wide.stdout.splitlines() if "GF-AUD-002" in line)
    assert [cell.strip() for cell in row.strip("│").split("│")][:4] == [
        "GF-AUD-002",
        "A L T",
        "mandatory",
        "min_days = 180",
    ]
    assert "log-retention-minimum" in wide.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--family", "gpu"],
            "error: --family 'gpu' is not a rule family; allowed: storage, kms, access, iam, audit, network, "
            "cost, k8s, resilience, ops, deploy, fit\n",
        ),
        (
            ["--cloud", "gcp"],
            "error: --cloud 'gcp' is not a cloud; allowed: aws, alicloud, tencentcloud, kubernetes\n",
        ),
        (
            ["--format", "yaml"],
            "error: --format 'yaml' is not a rules format; allowed: text, json, markdown\n",
        ),
    ],
)
def test_rules_bad_options_exit_2(args: list[str], message: str) -> None:
    run = invoke("rules", *args)
    assert (run.exit_code, run.stdout, run.stderr) == (2, "", message)


# -- plan: the effective fleet spec ----------------------------------------------------------------

MINIMAL_DEV = """\
config:
  aws:region: us-east-1
  gpufleet:fleet:
    environment: dev
    tags: {project: vision, team: ml-platform, cost-center: cc-042}
    budget: {monthly: 1500}
    pools:
      debug:
        instance_types: [g4dn.xlarge]
        workload: {image_reads_queue: true}
        size: {max: 2}
        spot_percent: 100
        scaling: {cooldown: 600s}
        off_hours: {timezone: Europe/Berlin, scale_to_zero: "19:00-07:00"}
"""


def _spec_lines(stdout: str) -> list[str]:
    """The effective-spec tree below its heading, each line without the tree's drawing characters."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("effective gpufleet:fleet"))
    return [line.lstrip("│├└─ ") for line in lines[start + 1 :] if line.strip()]


@pytest.fixture(scope="module")
def minimal_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("minimal"), {"dev": MINIMAL_DEV})


@pytest.mark.usefixtures("wide")
def test_plan_shows_every_default_of_the_fleet_spec(minimal_project: Path) -> None:
    run = invoke("plan", str(minimal_project), "-s", "dev")
    assert run.exit_code == 0, run.stderr
    heading = "effective gpufleet:fleet of stacks/Pulumi.dev.yaml: values marked (default) are not in the "
    assert heading + "stack file" in run.stdout
    lines = _spec_lines(run.stdout)
    # Written in the stack file: no mark.
    for line in ("environment: dev", "spot_percent: 100", "cooldown: 600s", "instance_types: [g4dn.xlarge]"):
        assert line in lines
    assert any(line.startswith("monthly: 1500 ") or line == "monthly: 1500" for line in lines)
    # Left out: the seeds' defaults, marked.
    for prefix in (
        "currency: USD  (default)",
        "alert_percent: 80  (default)",
        "ia_after_days: 7  (default)",
        "expire_after_days: 30  (default)",
        "session_manager: true  (default)",
        "log_retention_days: 180  (default)",
        "gpu_util_out: 70  (default)",
        "out_for: 5m  (default)",
        "queue_out: 10  (default)",
        "gpu_util_in: 30  (default)",
        "in_for: 30m  (default)",
        "weekends: true  (default)",
        "min: 0  (default)",
        "cloud: aws  (default)",
        "usage: none  (default)",
    ):
        assert any(line.startswith(prefix) for line in lines), prefix
    # A whole section the file leaves out is marked once, on its heading.
    assert "audit  (default)" in lines
    assert "scaling" in lines and "scaling  (default)" not in lines


def test_plan_of_the_repository_dev_stack_lists_its_pool() -> None:
    run = invoke("plan", str(cli_root()), "-s", "dev")
    assert run.exit_code == 0, run.stderr
    assert "effective gpufleet:fleet of stacks/Pulumi.dev.yaml" in run.stdout
    assert "experiments" in _spec_lines(run.stdout)


def cli_root() -> Path:
    return Path(__file__).resolve().parents[2]


def test_plan_spec_errors_are_listed_one_per_line(tmp_path: Path) -> None:
    stack = MINIMAL_DEV.replace("size: {max: 2}", "size: {max: 0}").replace(
        "cooldown: 600s", "cooldown: soon"
    )
    stack = stack.replace("environment: dev", "environment: test")
    project = copy_project(tmp_path / "p", {"dev": stack})
    run = invoke("plan", str(project), "-s", "dev")
    assert run.exit_code == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        "error: stacks/Pulumi.dev.yaml: invalid gpufleet:fleet (3 problems):",
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.environment: must be one of dev, staging, prod, got 'test'",
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.debug.size.max: must be >= 1, got 0",
        "  stacks/Pulumi.dev.yaml: gpufleet:fleet.pools.debug.scaling.cooldown: must be a duration like 90s, "
        "5m or 1h (or a whole number of seconds), got 'soon'",
    ]


def test_plan_of_another_program_has_no_fleet_section() -> None:
    run = invoke("plan", str(PHOTO_ARCHIVE), "-s", "dev")
    assert run.exit_code == 0
    assert "effective gpufleet:fleet" not in run.stdout


# -- plan: stack references --------------------------------------------------------------------------

REFERENCING = """\
import pulumi

network = pulumi.StackReference("acme/network/prod")
pulumi.export("vpc", network.get_output("vpc_id"))
"""


@pytest.mark.usefixtures("wide")
def test_stack_refs_feed_stack_references(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", REFERENCING)
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({"acme/network/prod": {"vpc_id": "vpc-0abc1234"}}))
    run = invoke("plan", str(project), "-s", "dev", "--stack-refs", str(refs))
    assert run.exit_code == 0, run.stderr
    assert re.search(r"│ vpc\s+│ vpc-0abc1234\s+│", run.stdout)
    assert "has no outputs offline" not in run.stdout

    without = invoke("plan", str(project), "-s", "dev")
    assert without.exit_code == 0
    assert (
        "note: stack reference 'acme/network/prod' has no outputs offline "
        "(give them with --stack-refs FILE): every output read from it is a synthetic placeholder"
    ) in " ".join(without.stdout.split())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"acme/network/prod": ',
            "--stack-refs {refs}:1: invalid JSON (Expecting value); expected an object of stack name -> "
            'outputs, e.g. {{"acme/network/prod": {{"vpc_id": "vpc-0abc"}}}}',
        ),
        (
            '["acme/network/prod"]',
            "--stack-refs {refs}: the top level is a list; expected an object of stack name -> outputs, "
            'e.g. {{"acme/network/prod": {{"vpc_id": "vpc-0abc"}}}}',
        ),
        (
            '{"acme/network/prod": "vpc-1"}',
            "--stack-refs {refs}: acme/network/prod: expected an object of output name -> value, got str",
        ),
    ],
)
def test_bad_stack_refs_exit_2(tmp_path: Path, text: str, message: str) -> None:
    project = write_project(tmp_path / "p", REFERENCING)
    refs = tmp_path / "refs.json"
    refs.write_text(text)
    for command in ("plan", "check"):
        run = invoke(command, str(project), "-s", "dev", "--stack-refs", str(refs))
        assert (run.exit_code, run.stdout) == (2, "")
        assert run.stderr == "error: " + message.format(refs=refs) + "\n"
