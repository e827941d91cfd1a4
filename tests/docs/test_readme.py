"""The README is a front page a newcomer reads in five minutes: at most 200 lines, every link leads
somewhere, and every `gpufleet` command it shows runs as shown."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, invoke

README = (ROOT / "README.md").read_text()
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _blocks() -> list[list[str]]:
    """The shell blocks, one list of command lines each (comments stripped)."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        lines = [line.split("  #")[0].strip() for line in block.splitlines()]
        found.append([line for line in lines if line and not line.startswith("#")])
    return found


def _gpufleet(line: str) -> list[str]:
    """The arguments of each `gpufleet ...` command on a line (commands joined by && included)."""
    return [
        shlex.split(part.strip())[1:] for part in line.split("&&") if part.strip().startswith("gpufleet ")
    ]


def test_the_front_page_is_short() -> None:
    assert len(README.splitlines()) <= 200


@pytest.mark.parametrize("page", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("*.md"))])
def test_every_relative_link_leads_to_a_file(page: str) -> None:
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    for target, _ in LINK.findall(path.read_text()):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (path.parent / target).exists(), f"{page}: {target}"


def test_the_check_after_make_plan_runs_as_shown() -> None:
    [_, after_plan, *_] = _blocks()
    commands = [args for line in after_plan for args in _gpufleet(line)]
    assert commands == [["check", "-s", "dev", "--format", "text"]]
    run = invoke(*commands[0], str(ROOT), "--no-checkov")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "total: 1 stack, 0 mandatory, 0 advisory violations"


def test_gpufleet_new_in_an_empty_directory_runs_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [block] = [b for b in _blocks() if any(line.startswith("mkdir ") for line in b)]
    assert block[0] == "mkdir vision-fleet && cd vision-fleet"
    (tmp_path / "vision-fleet").mkdir()
    monkeypatch.chdir(tmp_path / "vision-fleet")
    commands = [args for line in block[1:] for args in _gpufleet(line)]
    assert [c[0] for c in commands] == ["new", "check"]
    outputs = []
    for args in commands:
        extra = ["--no-checkov"] if args[0] == "check" else []
        run = invoke(*args, *extra)
        assert run.exit_code == 0, run.stdout + run.stderr
        outputs.append(run.stdout)
    assert (Path.cwd() / "Pulumi.yaml").is_file()
    # The sample output on the front page is this check's, line for line.
    sample = README[README.index("$ gpufleet check -s dev --format text\n") :].split("```")[0]
    for line in sample.splitlines()[1:]:
        assert line in outputs[1].splitlines(), line


def test_the_preflight_run_shown_is_what_the_command_prints() -> None:
    sample = README[README.index("$ gpufleet preflight -s prod --offline\n") :].split("```")[0]
    run = invoke("preflight", "-s", "prod", "--offline", str(ROOT))
    assert run.exit_code == 0, run.stdout + run.stderr
    assert sample.splitlines()[1:] == run.stdout.splitlines()
