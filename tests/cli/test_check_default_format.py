"""`gpufleet check` without --format: text for a person at a terminal, JSON for a pipe, a file or CI;
an explicit --format wins either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.cli import judging
from tests.cli.helpers import DEV_STACK, copy_project, invoke


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("fmt") / "p", {"dev": DEV_STACK})


def _terminal(monkeypatch: pytest.MonkeyPatch, is_tty: bool) -> None:
    monkeypatch.setattr(judging, "stdout_is_terminal", lambda: is_tty)


def test_a_terminal_gets_text(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _terminal(monkeypatch, True)
    run = invoke("check", str(project), "-s", "dev", "--no-checkov")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "total: 1 stack, 0 mandatory, 0 advisory violations"


def test_a_pipe_gets_json(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _terminal(monkeypatch, False)
    run = invoke("check", str(project), "-s", "dev", "--no-checkov")
    assert run.exit_code == 0, run.stderr
    assert [s["stack"] for s in json.loads(run.stdout)["stacks"]] == ["dev"]


def test_an_explicit_format_wins_at_a_terminal(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _terminal(monkeypatch, True)
    run = invoke("check", str(project), "-s", "dev", "--no-checkov", "--format", "json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["stacks"][0]["stack"] == "dev"


def test_list_stacks_follows_the_same_default(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _terminal(monkeypatch, False)
    piped = invoke("check", str(project), "--list-stacks")
    assert [s["name"] for s in json.loads(piped.stdout)] == ["dev"]
    _terminal(monkeypatch, True)
    shown = invoke("check", str(project), "--list-stacks")
    assert shown.exit_code == 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(shown.stdout)
    assert "dev" in shown.stdout


def test_reports_written_to_a_directory_default_to_json(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _terminal(monkeypatch, True)
    run = invoke("check", str(project), "-s", "dev", "--no-checkov", "-o", str(tmp_path / "r"))
    assert run.exit_code == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["gpufleet.json"]
