"""`gpufleet new` in a directory without a project makes the whole project, and it checks clean as made:
no GF-OPS-002 outside this repository, a budget that holds the estimate, a priced fleet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpufleet.new import list_templates
from gpufleet.templates.project import POLICY_CONFIG
from tests.cli.helpers import ROOT, copy_project, invoke

TEAM = ("--project", "vision", "--team", "ml-platform", "--cost-center", "cc-042")
AWS = ("--region", "us-east-1", "--replica-region", "us-west-2")
OPTIONS = {
    "account-baseline": (*TEAM, "--region", "us-east-1"),
    "alicloud-dev": (*TEAM, "--budget", "8000", "--region", "cn-hangzhou"),
    "dev-sandbox": (*TEAM, "--budget", "3000", "--region", "us-east-1"),
    "hybrid": (*TEAM, "--budget", "30000", "--region", "us-east-1"),
    "inference": (*TEAM, "--budget", "20000", *AWS),
    "tencent-dev": (*TEAM, "--budget", "8000", "--region", "ap-guangzhou"),
    "training": (*TEAM, "--budget", "30000", *AWS),
}
PROJECT_FILES = [
    ".github/workflows/gpufleet.yml",
    ".gitignore",
    "Pulumi.yaml",
    "gpufleet-pack/PulumiPolicy.yaml",
    "gpufleet-pack/__main__.py",
    "infra/__main__.py",
    "policy-config.json",
    "requirements.txt",
    "stacks/Pulumi.s1.yaml",
]
# Tencent's AS launch configuration has no system-disk encryption input: GF-STOR-008 says it could not
# judge the disk, never waived and cleared by no program (docs/tencentcloud.md, "Not done").
TENCENT_SYSTEM_DISK = "could not be judged: the encryption of its system disk (systemDiskType)"


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_options_cover_every_template() -> None:
    assert sorted(OPTIONS) == [t.name for t in list_templates()]


@pytest.mark.parametrize("template", sorted(OPTIONS))
def test_new_in_an_empty_directory_makes_a_project_that_checks_clean(tmp_path: Path, template: str) -> None:
    root = tmp_path / "vision-fleet"  # not there yet: new makes it
    made = invoke("new", "s1", "--from", template, str(root), *OPTIONS[template])
    assert made.exit_code == 0, made.stderr
    assert made.stdout.splitlines()[0] == f"wrote stacks/Pulumi.s1.yaml from template {template}"
    assert f"made a new project in {root} around it:" in made.stdout
    assert _files(root) == PROJECT_FILES

    checked = invoke("check", str(root), "-s", "s1", "--no-checkov")
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    [stack] = json.loads(checked.stdout)["stacks"]
    assert stack["project"] == "vision"
    violations = stack["violations"]
    if template in ("tencent-dev", "hybrid"):
        assert [(v["rule_id"], v["enforcement"]) for v in violations] == [("GF-STOR-008", "advisory")]
        assert TENCENT_SYSTEM_DISK in violations[0]["message"]
    else:
        assert violations == []
    if template == "account-baseline":
        # No pools: nothing the catalogue prices (keys, trail and logs are not in the estimate).
        assert stack["cost"]["monthly_estimate"] == 0
    else:
        estimate = stack["cost"]["monthly_estimate"]
        assert 0 < estimate <= stack["cost"]["budget"]
        assert f"  estimated {estimate:,.2f} {stack['cost']['currency']} a month" in made.stdout


def test_the_project_runs_the_packaged_program_and_pack(tmp_path: Path) -> None:
    root = tmp_path / "p"
    assert invoke("new", "dev", "--from", "dev-sandbox", str(root), *OPTIONS["dev-sandbox"]).exit_code == 0
    project = yaml.safe_load((root / "Pulumi.yaml").read_text())
    assert project["name"] == "vision"
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}
    assert (project["main"], project["stackConfigDir"]) == ("infra/", "stacks")
    program = (root / "infra" / "__main__.py").read_text()
    assert "from gpufleet.components.program import run_fleet_program\n\nrun_fleet_program()\n" in program
    # The repository's program is the same call: one program, carried by the wheel.
    assert "run_fleet_program()" in (ROOT / "infra" / "__main__.py").read_text()
    assert (root / "gpufleet-pack" / "__main__.py").read_text() == (
        'import runpy\n\nrunpy.run_module("gpufleet.policies", run_name="__main__")\n'
    )
    pack = yaml.safe_load((root / "gpufleet-pack" / "PulumiPolicy.yaml").read_text())
    assert pack["runtime"] == {"name": "python", "options": {"virtualenv": "../.venv"}}
    # The repository's own settings, among them the baseline's service-linked role (GF-OPS-002).
    assert json.loads((root / "policy-config.json").read_text()) == POLICY_CONFIG
    assert json.loads((ROOT / "policy-config.json").read_text()) == POLICY_CONFIG
    assert (root / "requirements.txt").read_text().splitlines()[-1].startswith("gpufleet @ git+https://")
    workflow = yaml.safe_load((root / ".github" / "workflows" / "gpufleet.yml").read_text())
    assert workflow["permissions"] == {}
    # The project calls gpufleet's reusable workflow at the release its requirements.txt installs.
    version = (root / "requirements.txt").read_text().splitlines()[-1].rsplit("@v", 1)[1]
    (caller,) = workflow["jobs"].values()
    assert caller["uses"] == f"gpufleet/gpufleet/.github/workflows/gpufleet-preview.yml@v{version}"
    assert caller["with"]["gpufleet-version"] == version
    assert caller["with"]["backend-url"] == "${{ vars.GPUFLEET_BACKEND_URL }}"
    # Every input it passes is one the reusable workflow declares; no secret is passed by default.
    reusable = yaml.safe_load((ROOT / ".github" / "workflows" / "gpufleet-preview.yml").read_text())
    assert set(caller["with"]) <= set(reusable[True]["workflow_call"]["inputs"])
    assert "secrets" not in caller
    # The caller grants what the reusable workflow's jobs ask for together, nothing more.
    asked: dict[str, str] = {}
    for job in reusable["jobs"].values():
        asked |= job["permissions"]
    assert caller["permissions"] == asked

    # What the workflow runs, on the project as made.
    reports = tmp_path / "reports"
    run = invoke("check", str(root), "--all-stacks", "--strict", "-f", "sarif,text", "-o", str(reports))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert (reports / "gpufleet.txt").read_text().splitlines()[-1] == (
        "total: 1 stack, 0 mandatory, 0 advisory violations"
    )


def test_a_second_stack_in_the_made_project_adds_only_its_stack_file(tmp_path: Path) -> None:
    root = tmp_path / "p"
    assert invoke("new", "dev", "--from", "dev-sandbox", str(root), *OPTIONS["dev-sandbox"]).exit_code == 0
    before = {name: (root / name).read_text() for name in _files(root)}
    second = invoke("new", "prod", "--from", "inference", str(root), *OPTIONS["inference"])
    assert second.exit_code == 0, second.stderr
    assert "made a new project" not in second.stdout
    after = _files(root)
    assert sorted({*before, "stacks/Pulumi.prod.yaml"}) == after
    assert all((root / name).read_text() == text for name, text in before.items())


def test_an_existing_project_keeps_its_files(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "fleet", stacks={})
    before = _files(project)
    made = invoke("new", "dev", "--from", "dev-sandbox", str(project), *OPTIONS["dev-sandbox"])
    assert made.exit_code == 0, made.stderr
    assert _files(project) == sorted([*before, "stacks/Pulumi.dev.yaml"])


def test_a_directory_with_a_file_new_would_write_is_refused_whole(tmp_path: Path) -> None:
    (tmp_path / "policy-config.json").write_text("{}\n")
    (tmp_path / "README.md").write_text("ours\n")
    made = invoke("new", "dev", "--from", "dev-sandbox", str(tmp_path), *OPTIONS["dev-sandbox"])
    assert made.exit_code == 2
    assert made.stderr.startswith(
        f"error: {tmp_path} holds no Pulumi.yaml, so `new` makes a project there, but it already has "
        "policy-config.json; nothing written."
    )
    assert _files(tmp_path) == ["README.md", "policy-config.json"]
    assert (tmp_path / "policy-config.json").read_text() == "{}\n"


def test_a_budget_below_the_estimate_writes_no_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    made = invoke("new", "dev", "--from", "training", str(root), *TEAM, "--budget", "5000", *AWS)
    assert made.exit_code == 2
    assert "is below the monthly estimate of template 'training', " in made.stderr
    assert not root.exists()
