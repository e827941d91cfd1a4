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
    assert lines[0] == "gpufleet plan -s prod"
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
