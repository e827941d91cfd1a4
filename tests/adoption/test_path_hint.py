"""After `make plan`, a newcomer learns how to run `gpufleet`: it lives in .venv/, not on the PATH."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_plan_ends_with_the_path_hint(tmp_path: Path) -> None:
    # A ready environment (stamps newer than their inputs) whose gpufleet only echoes: the test runs the
    # Makefile's real `plan` recipe without installing anything.
    venv, checkov = tmp_path / "venv", tmp_path / "checkov"
    (venv / "bin").mkdir(parents=True)
    checkov.mkdir()
    for exe, body in (("python", "exit 0"), ("gpufleet", 'echo "gpufleet $*"')):
        path = venv / "bin" / exe
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (venv / ".installed").touch()
    (checkov / ".installed").touch()
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "plan", f"VENV={venv}", f"CHECKOV_VENV={checkov}", "STACK=prod"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[:2] == [
        "==> gpufleet plan -s prod (offline: no cloud account or credentials)",
        "gpufleet plan -s prod",
    ]
    assert f"  . {venv}/bin/activate      # then: gpufleet check -s prod --format text" in lines
    assert lines[-1] == f"or without activating:  {venv}/bin/gpufleet --help"


def test_readme_quick_start_says_how_to_put_gpufleet_on_the_path() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## The two commands")
    quick = readme[start : readme.index("\n## ", start + 1)]
    assert ". .venv/bin/activate" in quick
    assert ".venv/bin/gpufleet" in quick
    # The hint comes before the first bare `gpufleet` command a newcomer would type.
    assert quick.index(". .venv/bin/activate") < quick.index("gpufleet check")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_plan_says_what_it_installs_before_each_long_step(tmp_path: Path) -> None:
    """A first `make plan` takes minutes: every install announces itself and pip shows its progress."""
    venv, checkov = tmp_path / "venv", tmp_path / "checkov"
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "plan", f"VENV={venv}", f"CHECKOV_VENV={checkov}"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("make")]
    steps = [i for i, line in enumerate(lines) if line.startswith('echo "==> [')]
    assert [lines[i].split("]")[0] for i in steps] == ['echo "==> [1/3', 'echo "==> [2/3', 'echo "==> [3/3']
    installs = [i for i, line in enumerate(lines) if "pip install" in line and "--upgrade pip" not in line]
    assert len(installs) == 2
    for i in installs:
        assert "--quiet" not in lines[i] and "--progress-bar on" in lines[i]
        assert any(step < i for step in steps)
    assert steps[1] < installs[0] < steps[2] < installs[1]
