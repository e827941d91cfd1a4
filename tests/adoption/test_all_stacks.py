"""`check --all-stacks`: one broken stack does not hide the others, in every report format and with --jobs."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpufleet import allstacks
from gpufleet.allstacks import Progress, parse_jobs, usable_cpus
from tests.cli.helpers import DEV_STACK, copy_project, invoke, replace_once

BROKEN_PROBLEM = (
    "stacks/Pulumi.broken.yaml: gpufleet:fleet.pools.experiments.spot_percent: must be <= 100, got 150"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    broken = replace_once(DEV_STACK, "spot_percent: 100", "spot_percent: 150")
    return copy_project(tmp_path_factory.mktemp("p"), {"broken": broken, "dev": DEV_STACK})


@pytest.fixture(scope="module")
def reports(project: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    out = tmp_path_factory.mktemp("reports")
    run = invoke(
        "check", str(project), "--all-stacks", "-f", "json,text,sarif,junit,markdown", "-o", str(out)
    )
    return run.exit_code, run.stderr, out


def test_the_broken_stack_is_an_error_entry_and_the_others_are_checked(
    reports: tuple[int, str, Path],
) -> None:
    exit_code, stderr, out = reports
    assert exit_code == 2
    # The error is also said on stderr, as for a single stack, after the reports are written.
    assert stderr.splitlines() == [
        "error: stacks/Pulumi.broken.yaml: invalid gpufleet:fleet (1 problem):",
        f"  {BROKEN_PROBLEM}",
    ]
    stacks = json.loads((out / "gpufleet.json").read_text())["stacks"]
    assert [s["stack"] for s in stacks] == ["broken", "dev"]
    broken, dev = stacks
    # Every entry carries its waiver block; a stack that could not be checked has no waiver applied.
    assert broken.pop("waived")["findings"] == []
    assert broken == {
        "stack": "broken",
        "project": "gpufleet",
        "resources": 0,
        "violations": [],
        "opaque": [],
        "checkov": {"passed": 0, "failed": 0, "findings": []},
        "cost": None,
        "error": {
            "message": "stacks/Pulumi.broken.yaml: invalid gpufleet:fleet (1 problem):",
            "details": [BROKEN_PROBLEM],
        },
    }
    # A checked stack keeps the contract exactly: no `error` key.
    assert "error" not in dev
    assert dev["resources"] > 50
    assert dev["cost"]["currency"] == "USD"


def test_text_sarif_junit_and_markdown_name_the_broken_stack(reports: tuple[int, str, Path]) -> None:
    _, _, out = reports
    paragraph = f"stacks/Pulumi.broken.yaml: invalid gpufleet:fleet (1 problem): {BROKEN_PROBLEM}"
    text = (out / "gpufleet.txt").read_text()
    assert text.startswith(
        f"stack broken (project gpufleet): error, not checked\n  {paragraph}\n\nstack dev "
    )
    assert text.endswith(", 1 stack could not be checked\n")
    assert text.splitlines()[-1].startswith("total: 2 stacks, ")

    sarif = json.loads((out / "gpufleet.sarif").read_text())
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [
        {"message": {"text": f"stack broken: not checked: {paragraph}"}, "level": "error"}
    ]

    junit = ET.fromstring((out / "gpufleet.junit.xml").read_text())
    assert junit.get("errors") == "1"
    suite = junit.find("testsuite[@name='gpufleet.gpufleet.broken']")
    assert suite is not None and suite.get("errors") == "1"
    error = suite.find("testcase/error")
    assert error is not None and error.get("message") == paragraph

    markdown = (out / "gpufleet.md").read_text()
    assert markdown.startswith("## gpufleet policy check: ⛔ not every stack could be checked\n")
    assert f"### Stack `broken` (gpufleet)\n\n⛔ Not checked: {paragraph}\n" in markdown
    assert "### Stack `dev` (gpufleet, " in markdown


def test_jobs_checks_in_parallel_processes_with_the_same_report(project: Path) -> None:
    one = invoke("check", str(project), "--all-stacks")
    two = invoke("check", str(project), "--all-stacks", "--jobs", "2")
    assert one.exit_code == two.exit_code == 2
    serial, parallel = json.loads(one.stdout), json.loads(two.stdout)
    for document in (serial, parallel):
        # The policy pack's timing differs run to run; everything else must not.
        assert document["stacks"][1]["checkov"].pop("seconds")["policy_pack"] > 0
    assert parallel == serial
    # Not a terminal: no progress line among the errors.
    assert "checked " not in two.stderr


def test_a_single_broken_stack_still_stops_at_once(project: Path) -> None:
    run = invoke("check", str(project), "-s", "broken")
    assert run.exit_code == 2
    assert run.stdout == ""


def test_jobs_out_of_range_is_bad_input(project: Path) -> None:
    run = invoke("check", str(project), "--all-stacks", "--jobs", "-1")
    assert run.exit_code == 2
    assert (
        run.stderr
        == "error: --jobs -1: give the number of stacks to check at once, 1 to 64 (0: one per CPU)\n"
    )
    assert parse_jobs(0) >= 1
    assert parse_jobs(3) == 3


def test_one_job_per_cpu_counts_the_cpus_the_process_may_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default `--jobs 0`: a container limited to 2 CPUs by its cgroup quota on a host of 8 runs 2
    # stacks at once, not 8; with no quota (`max`) or no cgroup file, the affinity decides.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("200000 100000\n", encoding="ascii")
    assert usable_cpus(str(cpu_max)) == 2
    cpu_max.write_text("150000 100000\n", encoding="ascii")
    assert usable_cpus(str(cpu_max)) == 2
    cpu_max.write_text("50000 100000\n", encoding="ascii")
    assert usable_cpus(str(cpu_max)) == 1
    cpu_max.write_text("max 100000\n", encoding="ascii")
    assert usable_cpus(str(cpu_max)) == 8
    assert usable_cpus(str(tmp_path / "absent")) == 8
    monkeypatch.setattr(allstacks, "CGROUP_CPU_MAX", str(cpu_max))
    cpu_max.write_text("300000 100000\n", encoding="ascii")
    assert parse_jobs(0) == 3


class _Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_line_only_on_a_terminal() -> None:
    terminal, pipe = _Terminal(True), _Terminal(False)
    for stream in (terminal, pipe):
        progress = Progress(2, stream)
        progress.step("dev")
        progress.step("prod")
        progress.close()
    assert terminal.getvalue() == (
        "\r\x1b[Kchecked 1/2 stacks (dev)\r\x1b[Kchecked 2/2 stacks (prod)\r\x1b[K"
    )
    assert pipe.getvalue() == ""
