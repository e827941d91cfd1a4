"""Running the command line in-process, with the checks every invocation must pass."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from gpufleet.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
DEV_STACK = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str


def invoke(*args: str) -> Run:
    """`gpufleet ARGS`; bad input must never surface as a traceback, on either stream."""
    result = runner.invoke(app, list(args), prog_name="gpufleet")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr, result.output
    return Run(result.exit_code, result.stdout, result.stderr)


def copy_project(target: Path, stacks: dict[str, str] | None = None) -> Path:
    """This repository's project (Pulumi.yaml, infra/, policy config) in `target`, with the given stack
    files (stack name -> text) or else a copy of its own."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Pulumi.yaml", target / "Pulumi.yaml")
    # The copy leaves out the GF-OPS rules the shipped stacks break until the fleet work lands.
    shutil.copy(ROOT / "policy-config.json", target / "policy-config.json")
    shutil.copy(ROOT / "checkov-config.json", target / "checkov-config.json")
    shutil.copytree(ROOT / "infra", target / "infra", ignore=shutil.ignore_patterns("__pycache__"))
    (target / "stacks").mkdir()
    if stacks is None:
        for path in (ROOT / "stacks").glob("Pulumi.*.yaml"):
            shutil.copy(path, target / "stacks" / path.name)
    else:
        for name, text in stacks.items():
            (target / "stacks" / f"Pulumi.{name}.yaml").write_text(text)
    return target


def replace_once(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced; `old` must occur exactly once, so a changed stack file fails loudly."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)
