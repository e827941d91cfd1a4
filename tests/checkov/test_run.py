"""Finding and running checkov, with stand-in executables: its failures never become ours."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from gpufleet.checkov import reports as checkov_reports
from gpufleet.checkov.merge import judge
from gpufleet.checkov.run import (
    CheckovNotFound,
    checkov_command,
    find_checkov,
    parse_output,
    run_checkov,
)
from tests.checkov.fixtures import SG, fixture_graph, urn


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_explicit_path_wins_and_must_be_runnable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUFLEET_CHECKOV", raising=False)
    with pytest.raises(
        CheckovNotFound, match=r"--checkov-bin .*nope: no runnable file there; install it with `make checkov`"
    ):
        find_checkov(tmp_path / "nope", tmp_path)
    fake = _script(tmp_path / "ck", "exit 0\n")
    assert find_checkov(fake, tmp_path) == fake


def test_environment_variable_then_project_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("GPUFLEET_CHECKOV", str(tmp_path / "missing"))
    with pytest.raises(CheckovNotFound, match=r"\$GPUFLEET_CHECKOV .*missing"):
        find_checkov(None, tmp_path)
    monkeypatch.delenv("GPUFLEET_CHECKOV")
    assert find_checkov(None, tmp_path) is None
    (tmp_path / ".venv-checkov" / "bin").mkdir(parents=True)
    venv = _script(tmp_path / ".venv-checkov" / "bin" / "checkov", "exit 0\n")
    assert find_checkov(None, tmp_path) == venv


def test_command_is_offline_and_names_both_frameworks(tmp_path: Path) -> None:
    command = checkov_command(
        Path("/x/checkov"), [tmp_path / "a.json"], skip_checks=["CKV_AWS_1", "CKV_AWS_2"]
    )
    assert command[:3] == ["/x/checkov", "-f", str(tmp_path / "a.json")]
    assert "--skip-download" in command
    assert command[command.index("--framework") + 1 : command.index("--framework") + 3] == [
        "terraform_plan",
        "kubernetes",
    ]
    assert command[command.index("--skip-check") + 1] == "CKV_AWS_1,CKV_AWS_2"
    assert command[command.index("--output") + 1] == "json"


def test_output_of_one_framework_or_many() -> None:
    one = {"check_type": "terraform_plan", "results": {"failed_checks": []}, "summary": {}}
    assert parse_output(json.dumps(one)) == [one]
    assert parse_output(json.dumps([one, one])) == [one, one]
    # Nothing to scan: checkov prints a bare summary.
    assert parse_output(json.dumps({"passed": 0, "failed": 0})) == []


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("echo 'Traceback: boom' >&2; exit 2\n", "checkov exited with status 2: Traceback: boom"),
        ("echo 'not json'; exit 1\n", "checkov's output is not its JSON report"),
        ("sleep 5\n", "checkov did not finish in 0.5 s"),
    ],
)
def test_checkov_failures_are_notes(tmp_path: Path, body: str, error: str) -> None:
    fake = _script(tmp_path / "ck", body)
    run = run_checkov(fake, [tmp_path / "x.json"], timeout=0.5)
    assert run.error is not None
    assert run.error.startswith(error)


def test_a_crash_leaves_each_stack_an_error_block(tmp_path: Path) -> None:
    fake = _script(tmp_path / "ck", "exit 3\n")
    (block,) = judge([fixture_graph()], fake)
    assert block["status"] == "error"
    assert block["note"] == "checkov exited with status 3: "
    assert (block["passed"], block["failed"], block["findings"]) == (0, 0, [])


def test_findings_map_back_by_file_and_address(tmp_path: Path) -> None:
    # A stand-in that reports one failure on the first -f file's security group, as checkov does.
    report = {
        "check_type": "terraform_plan",
        "summary": {"checkov_version": "3.3.30"},
        "results": {
            "passed_checks": [
                {"check_id": "CKV_AWS_23", "file_path": "/FILE", "resource": "aws_security_group.ssh-open"}
            ],
            "failed_checks": [
                {
                    "check_id": "CKV_AWS_24",
                    "check_name": "no SSH from 0.0.0.0/0",
                    "file_path": "/FILE",
                    "resource": "aws_security_group.ssh-open",
                    "severity": None,
                    "guideline": "https://x",
                }
            ],
        },
    }
    body = f'f=$(basename "$2")\necho \'{json.dumps(report)}\' | sed "s|/FILE|/$f|g"\nexit 1\n'
    fake = _script(tmp_path / "ck", body)
    (block,) = judge([fixture_graph()], fake)
    assert block["status"] == "ran"
    assert block["version"] == "3.3.30"
    assert (block["passed"], block["failed"]) == (1, 1)
    assert block["findings"] == [
        {
            "check_id": "CKV_AWS_24",
            "check_name": "no SSH from 0.0.0.0/0",
            "severity": None,
            "guideline": "https://x",
            "framework": "terraform_plan",
            "resource": "aws_security_group.ssh-open",
            "urn": urn(SG, "ssh-open"),
            "name": "ssh-open",
            "resource_type": SG,
        }
    ]
    assert set(block["seconds"]) == {"export", "checkov_all_stacks"}


def test_checks_a_resource_skips_itself_are_reported_with_their_reason(tmp_path: Path) -> None:
    # checkov's skipped results (a `checkov.io/skip1` annotation, a `#checkov:skip` comment) are never
    # silent: counted, listed with the resource's URN and the reason the resource gives.
    report = {
        "check_type": "terraform_plan",
        "summary": {"checkov_version": "3.3.30"},
        "results": {
            "skipped_checks": [
                {
                    "check_id": "CKV_AWS_24",
                    "check_name": "no SSH from 0.0.0.0/0",
                    "file_path": "/FILE",
                    "resource": "aws_security_group.ssh-open",
                    "check_result": {"result": "SKIPPED", "suppress_comment": "bastion of last resort"},
                }
            ],
        },
    }
    body = f'f=$(basename "$2")\necho \'{json.dumps(report)}\' | sed "s|/FILE|/$f|g"\nexit 0\n'
    fake = _script(tmp_path / "ck", body)
    (block,) = judge([fixture_graph()], fake)
    assert (block["passed"], block["failed"], block["skipped"], block["findings"]) == (0, 0, 1, [])
    (skipped,) = block["skipped_on_resources"]
    assert (skipped["check_id"], skipped["urn"], skipped["reason"]) == (
        "CKV_AWS_24",
        urn(SG, "ssh-open"),
        "bastion of last resort",
    )
    lines = checkov_reports.text_lines(block)
    assert lines[0] == "checkov 3.3.30: 0 passed, 0 failed, 1 skipped on their resources"
    assert lines[-1] == "  ~ CKV_AWS_24 ssh-open: skipped: bastion of last resort"


def test_checkov_is_told_not_to_call_home(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    fake = _script(tmp_path / "ck", f'echo "$BC_SKIP_MAPPING $*" > {seen}; echo "[]"; exit 0\n')
    run = run_checkov(fake, [tmp_path / "a.json"])
    assert run.error is None
    mapping, _, args = seen.read_text(encoding="utf-8").strip().partition(" ")
    assert mapping == "TRUE"
    assert "--skip-download" in args.split()
