"""`gpufleet simulate` end to end on the shipped dev stack: reports, plots, compare, bad input exit 2."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.helpers import DEV_STACK, ROOT, copy_project, invoke

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_forgotten_weekend_on_the_dev_pool_as_json() -> None:
    run = invoke(
        "simulate",
        "experiments",
        str(ROOT),
        "-s",
        "dev",
        "--trace",
        "scenario:forgotten-weekend",
        "-f",
        "json",
    )
    assert run.exit_code == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["version"] == 1
    assert data["pool"]["off_hours"] == {
        "timezone": "America/New_York",
        "stop": "20:00",
        "start": "08:00",
        "weekends": True,
    }
    assert data["pool"]["scaling"]["cooldown_s"] == 300
    result = data["result"]
    # Stopped on Friday at 20:00, restarted on Monday at 08:00: the weekend bills nothing.
    kinds = [(e["time"][:16], e["kind"]) for e in data["events"] if e["kind"] in ("stop", "start")]
    assert kinds[0] == ("2026-01-09T20:00", "stop") and kinds[-1] == ("2026-01-12T08:00", "start")
    assert result["jobs_interrupted"] == 4  # the hung run's four instances stopped at 20:00
    assert result["scale_events"]["stop"] == 3
    # Fri 16:00-20:00 and Mon 08:00-10:00 only: 4 spot instances at most, about 23 instance-hours.
    assert result["instance_hours"]["on_demand"] == 0
    assert 20 < result["instance_hours"]["spot"] < 24
    assert result["cost"] == pytest.approx(
        result["instance_hours"]["spot"] * data["pool"]["spot_hourly"], abs=0.02
    )


def test_text_report_and_plots(tmp_path: Path) -> None:
    png, svg = tmp_path / "sim.png", tmp_path / "sim.svg"
    run = invoke(
        "simulate", "experiments", str(ROOT), "-s", "dev", "--trace", "scenario:livestream-spike",
        "--plot", str(png), "--plot", str(svg),
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert "gpufleet simulate: pool experiments of stack dev on scenario:livestream-spike" in run.stdout
    assert "queue wait" in run.stdout and "oscillations" in run.stdout
    assert png.read_bytes().startswith(PNG_MAGIC) and png.stat().st_size > 10_000
    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert f"wrote {png}" in run.stderr


def _dev_with(tmp_path: Path, old: str, new: str) -> Path:
    assert old in DEV_STACK
    return copy_project(tmp_path / "project", {"dev": DEV_STACK.replace(old, new)})


def test_compare_puts_the_base_spec_beside_the_head(tmp_path: Path) -> None:
    # The head doubles the pool's maximum: on the spike it reaches more instances and costs more.
    project = _dev_with(tmp_path, "size: {min: 0, max: 4}", "size: {min: 0, max: 8}")
    base = ROOT / "stacks" / "Pulumi.dev.yaml"
    args = ["simulate", "experiments", str(project), "-s", "dev", "--trace", "scenario:diurnal-training"]
    run = invoke(*args, "--compare", str(base), "-f", "markdown")
    assert run.exit_code == 0, run.stderr
    assert "Changes: `max_size: 4 -> 8`." in run.stdout
    assert "| | base | head | change |" in run.stdout
    data = json.loads(invoke(*args, "--compare", str(base), "-f", "json").stdout)
    assert data["version"] == 1
    assert data["base_result"]["peak_instances"] == 4
    assert data["head_result"]["peak_instances"] > 4
    assert data["head_result"]["cost"] > data["base_result"]["cost"]


def test_base_ref_reads_the_stack_file_from_git(tmp_path: Path) -> None:
    project = _dev_with(tmp_path, "cooldown: 300s}", "cooldown: 600s}")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (project / "stacks" / "Pulumi.dev.yaml").write_text(DEV_STACK)
    args = ["simulate", "experiments", str(project), "-s", "dev", "--trace", "scenario:diurnal-training"]
    run = invoke(*args, "--base-ref", "HEAD")
    assert run.exit_code == 0, run.stderr
    assert "changes: scaling.cooldown_s: 600 -> 300" in run.stdout
    missing = invoke(*args, "--base-ref", "no-such-branch")
    assert missing.exit_code == 2
    assert "--base-ref no-such-branch: cannot read stacks/Pulumi.dev.yaml there" in missing.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--trace", "scenario:nope"], "no such scenario; built in: scenario:livestream-spike"),
        (
            ["--trace", "scenario:diurnal-training", "--plot", "out.pdf"],
            "the file's suffix chooses the format",
        ),
        (["--trace", "scenario:diurnal-training", "--boot", "90s"], "--boot '90s': give the minutes"),
        (["--trace", "scenario:diurnal-training", "-f", "yaml"], "--format 'yaml' is not allowed here"),
        (["--trace", "scenario:diurnal-training", "--currency", "XYZ"], "--currency 'XYZ'"),
        (
            ["--trace", "scenario:diurnal-training", "--compare", "missing.yaml"],
            "cannot read --compare missing.yaml",
        ),
        (["--trace", "jobs.csv", "--start", "monday"], "--start 'monday'"),
        (["--trace", "jobs.csv", "--start", "0001-01-01T00:00Z"], "between the years 1970 and 2199"),
    ],
)
def test_bad_options_exit_2(extra: list[str], message: str) -> None:
    run = invoke("simulate", "experiments", str(ROOT), "-s", "dev", *extra)
    assert run.exit_code == 2
    assert message in " ".join(run.stderr.split())


def test_bad_csv_and_unknown_pool_exit_2(tmp_path: Path) -> None:
    trace = tmp_path / "jobs.csv"
    trace.write_text("minute,queued_jobs,gpu_util\n0,2,90\n1,two,90\n")
    run = invoke("simulate", "experiments", str(ROOT), "-s", "dev", "--trace", str(trace))
    assert run.exit_code == 2
    assert f"{trace}:3: column 2 (queued_jobs): must be a whole number of jobs" in " ".join(
        run.stderr.split()
    )
    unknown = invoke("simulate", "training", str(ROOT), "-s", "dev", "--trace", str(trace))
    assert unknown.exit_code == 2
    assert "has no pool 'training'; its pools: experiments" in " ".join(unknown.stderr.split())


def test_a_csv_trace_replays(tmp_path: Path) -> None:
    # Index trace from Monday 09:00 New York: the pool starts at the first minute's demand (none); a
    # job from minute 1 wakes it through the queue alarm (period 0..4), booted at 5 + 4: waited 8.
    trace = tmp_path / "jobs.csv"
    trace.write_text("minute,queued_jobs,gpu_util\n0,0,0\n" + "".join(f"{m},1,90\n" for m in range(1, 15)))
    run = invoke(
        "simulate", "experiments", str(ROOT), "-s", "dev", "--trace", str(trace),
        "--start", "2026-01-05T09:00-05:00", "-f", "json",
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["trace"]["start"] == "2026-01-05T09:00:00-05:00"
    assert data["events"][0]["kind"] == "out" and data["events"][0]["minute"] == 4
    assert data["result"]["queue_wait_minutes"] == {"p50": 8, "p95": 8, "max": 8}


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_the_same_replay_draws_the_same_bytes(suffix: str) -> None:
    from gpufleet.simulate.model import simulate
    from gpufleet.simulate.plot import render
    from tests.simulate.test_model import pool, trace

    result = simulate(pool(), trace([1] * 30, 90, initial=0))
    first = render([("", result)], suffix)
    assert first == render([("", result)], suffix)
    assert first.startswith(PNG_MAGIC) if suffix == ".png" else b"<svg" in first[:1000]
    with pytest.raises(ValueError, match=r"a plot is written as \.png or \.svg, not '\.pdf'"):
        render([("", result)], ".pdf")
