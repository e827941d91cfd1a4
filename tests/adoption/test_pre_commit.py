"""The pre-commit hook: its entry is the installed command, run on the project, and it fires on the
files that can change a check."""

from __future__ import annotations

import re
import shlex
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
