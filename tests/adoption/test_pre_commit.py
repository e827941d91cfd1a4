"""The pre-commit hook: its entry is the installed command, run on the project, and it fires on the
files that can change a check."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import yaml

from tests.cli.helpers import DEV_STACK, copy_project, invoke, replace_once

ROOT = Path(__file__).resolve().parents[2]


def _hook() -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "gpufleet-check"]
    return dict(hook)


def test_the_hook_runs_the_installed_gpufleet_check_on_the_whole_project() -> None:
    hook = _hook()
    assert hook["language"] == "python"  # pre-commit pip-installs this repository: the `gpufleet` script
    assert hook["pass_filenames"] is False
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    command = [*shlex.split(str(hook["entry"])), *hook["args"]]  # type: ignore[misc]
    assert command[0] in scripts
    assert command[1:] == ["check", "--format", "text", "--all-stacks"]


def test_the_hook_fires_on_stack_files_program_and_policy_config_only() -> None:
    files = re.compile(str(_hook()["files"]))
    for path in (
        "Pulumi.yaml",
        "stacks/Pulumi.dev.yaml",
        "infra/__main__.py",
        "policy-config.json",
        "a/Pulumi.prod.yml",
    ):
        assert files.search(path), path
    for path in ("README.md", "docs/rules.md", "stacks/notes.txt"):
        assert not files.search(path), path


def test_the_entry_fails_a_commit_that_breaks_a_guardrail(tmp_path: Path) -> None:
    hook = _hook()
    args = [*shlex.split(str(hook["entry"]))[1:], *hook["args"]]  # type: ignore[misc]
    good = copy_project(tmp_path / "good", {"dev": DEV_STACK})
    run = invoke(*args, str(good))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "total: 1 stack, 0 mandatory, 0 advisory violations"
    bad = copy_project(
        tmp_path / "bad", {"dev": replace_once(DEV_STACK, "spot_percent: 100", "spot_percent: 0")}
    )
    run = invoke(*args, str(bad))
    assert run.exit_code == 1
    # A project's `args: [-s, dev]` replaces --all-stacks.
    assert invoke(*shlex.split(str(hook["entry"]))[1:], "-s", "dev", str(bad)).exit_code == 1
    assert "fix: in stacks/Pulumi.dev.yaml set pools.experiments.spot_percent: 100" in run.stdout


def _venv_hook() -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "gpufleet-check-venv"]
    return dict(hook)


def _fake_gpufleet(path: Path) -> Path:
    """A `gpufleet` that writes the arguments it was given, to see which one the hook runs."""
    path.mkdir(parents=True)
    script = path / "gpufleet"
    script.write_text(f'#!/bin/sh\necho "$0 $*" > "{path}/called"\n')
    script.chmod(0o755)
    return path / "called"


def _run_venv_hook(cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    hook = _venv_hook()
    entry = ROOT / str(hook["entry"])
    return subprocess.run(
        [str(entry), *hook["args"]],  # type: ignore[misc]
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_venv_hook_runs_the_project_environments_gpufleet(tmp_path: Path) -> None:
    hook = _venv_hook()
    assert hook["language"] == "script"  # nothing installed: the project's environment runs
    assert hook["pass_filenames"] is False
    assert os.access(ROOT / str(hook["entry"]), os.X_OK)
    files = re.compile(str(hook["files"]))
    assert files.search("requirements.txt") and files.search("stacks/Pulumi.dev.yaml")
    called = _fake_gpufleet(tmp_path / ".venv" / "bin")
    path = {"PATH": "/usr/bin:/bin"}
    run = _run_venv_hook(tmp_path, path)
    assert run.returncode == 0, run.stderr
    assert called.read_text().split() == [
        str(tmp_path / ".venv" / "bin" / "gpufleet"),
        "check",
        "--format",
        "text",
        "--all-stacks",
    ]
    # GPUFLEET_VENV names another environment
    other = _fake_gpufleet(tmp_path / "env" / "bin")
    assert _run_venv_hook(tmp_path, {**path, "GPUFLEET_VENV": str(tmp_path / "env")}).returncode == 0
    assert other.read_text().split()[0] == str(tmp_path / "env" / "bin" / "gpufleet")


def test_the_venv_hook_without_an_environment_says_how_to_make_one(tmp_path: Path) -> None:
    run = _run_venv_hook(tmp_path, {"PATH": "/usr/bin:/bin"})
    assert run.returncode == 2
    assert "gpufleet-check-venv: no gpufleet in .venv/bin or on PATH" in run.stderr
    assert "pulumi install" in run.stderr


def test_the_venv_hook_falls_back_to_the_gpufleet_on_path(tmp_path: Path) -> None:
    called = _fake_gpufleet(tmp_path / "bin")
    run = _run_venv_hook(tmp_path, {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert called.read_text().split()[1:] == ["check", "--format", "text", "--all-stacks"]
