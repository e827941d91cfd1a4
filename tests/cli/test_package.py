"""The command line as a package: every command registered in order, and the names the commands look up
on `gpufleet.cli` when they run (the consoles, the engine) reach every one of them."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console

from gpufleet import __version__, cli, report
from gpufleet.engine import EngineError
from tests.cli.helpers import ROOT, invoke


def test_help_lists_the_commands_in_their_order() -> None:
    group = typer.main.get_command(cli.app)
    assert isinstance(group, typer.core.TyperGroup)
    commands = group.list_commands(typer.Context(group))
    assert commands == ["plan", "check", "preflight", "waivers", "rules", "cost", "new", "simulate", "advise"]
    advise = group.get_command(typer.Context(group), "advise")
    assert isinstance(advise, typer.core.TyperGroup)
    assert advise.list_commands(typer.Context(advise)) == ["buy-vs-rent"]


@pytest.mark.parametrize(("package", "names"), [(cli, cli.__all__), (report, report.__all__)])
def test_every_exported_name_resolves(package: Any, names: list[str]) -> None:
    missing = [name for name in names if not hasattr(package, name)]
    assert missing == []


def test_output_goes_to_the_console_set_on_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(cli, "out", Console(file=buffer, width=300, highlight=False))
    run = invoke("new", "--list")
    assert run.exit_code == 0
    assert run.stdout == ""
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("account-baseline  the account's once-only resources")
    assert lines[1].strip() == "needs --project, --team, --cost-center, --region"


def test_errors_go_to_the_error_console_set_on_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=buffer, width=300, highlight=False))
    run = invoke("rules", "--format", "bogus")
    assert run.exit_code == 2
    assert run.stderr == ""
    expected = "error: --format 'bogus' is not a rules format; allowed: text, json, markdown\n"
    assert buffer.getvalue() == expected


@pytest.mark.parametrize(
    "command",
    [
        ["plan"],
        ["check", "--no-checkov"],
        ["cost"],
        ["advise", "buy-vs-rent"],
        ["waivers"],
    ],
    ids=" ".join,
)
def test_every_command_runs_programs_through_the_package(
    monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    calls: list[tuple[Path, str]] = []

    def refuse(project_dir: Path, stack: str, **_: Any) -> Any:
        calls.append((Path(project_dir), stack))
        raise EngineError(f"program refused for stack {stack}")

    monkeypatch.setattr(cli, "run_program", refuse)
    run = invoke(*command, str(ROOT), "-s", "dev")
    assert run.exit_code == 2
    assert run.stderr == "error: program refused for stack dev\n"
    assert calls == [(ROOT, "dev")]


def test_python_m_gpufleet_cli_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpufleet.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"gpufleet {__version__}\n", "")
