"""Bad input names the file or option and what is allowed, in one paragraph on stderr, exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, invoke

TEMPLATE_OPTIONS = (
    "--from", "dev-sandbox", "--project", "vision", "--team", "ml", "--cost-center", "cc-1",
    "--budget", "100", "--region", "us-east-1",
)  # fmt: skip

COMMANDS_TAKING_A_PROJECT = {
    "plan": ("plan",),
    "check": ("check",),
    "cost": ("cost",),
    "advise buy-vs-rent": ("advise", "buy-vs-rent"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS_TAKING_A_PROJECT))
def test_a_project_dir_that_is_a_file_is_called_a_file(command: str, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "Pulumi.yaml"
    not_a_dir.write_text("name: x\nruntime: python\n")
    run = invoke(*COMMANDS_TAKING_A_PROJECT[command], str(not_a_dir), "-s", "dev")
    assert run.exit_code == 2
    assert run.stdout == ""
    assert run.stderr == (
        f"error: project directory {not_a_dir} is a file; pass the directory of a Pulumi project "
        "(the one holding Pulumi.yaml)\n"
    )


def test_new_in_a_project_dir_that_is_a_file_writes_nothing(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "project"
    not_a_dir.write_text("")
    run = invoke("new", "ml-dev", str(not_a_dir), *TEMPLATE_OPTIONS)
    assert run.exit_code == 2
    assert run.stderr == (
        f"error: project directory {not_a_dir} is a file; pass a directory: a Pulumi project, or an "
        "empty or new one to make a project in\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_a_missing_project_dir_is_still_called_missing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    run = invoke("plan", str(missing), "-s", "dev")
    assert run.exit_code == 2
    assert run.stderr == f"error: project directory {missing} does not exist\n"


def test_an_output_dir_that_is_a_file_is_refused_before_any_stack_runs(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.write_text("kept\n")
    # An unknown stack would fail later with another message: seeing this one proves the order.
    run = invoke(
        "check", str(ROOT), "-s", "no-such-stack", "--format", "json,sarif", "--output-dir", str(reports)
    )
    assert run.exit_code == 2
    assert run.stdout == ""
    assert run.stderr == (
        f"error: --output-dir {reports} is a file; pass a directory (created if missing) "
        "to write the reports in\n"
    )
    assert reports.read_text() == "kept\n"
