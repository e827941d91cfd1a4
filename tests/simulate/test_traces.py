"""CSV traces are read strictly: each bad row names the file, the line and the column."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from gpufleet.simulate.scenarios import SCENARIOS, scenario_trace
from gpufleet.simulate.traces import TraceError, parse_trace, read_trace

START = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)


def test_an_index_trace_starts_at_the_given_minute() -> None:
    text = "# exported from CloudWatch\nminute,queued_jobs,gpu_util\n0,3,95\n\n1,4,87.5\n"
    trace = parse_trace(text, "jobs.csv", START)
    assert trace.jobs == (3, 4)
    assert trace.gpu_util == (95.0, 87.5)
    assert trace.start == START


def test_a_timestamped_trace_starts_at_its_first_row() -> None:
    text = "Minute, Queued_Jobs, GPU_Util\n2026-01-09T17:00:00+08:00,1,50\n2026-01-09T09:01:00Z,2,60\n"
    trace = parse_trace(text, "jobs.csv", START)
    assert trace.start == dt.datetime(2026, 1, 9, 9, 0, tzinfo=dt.UTC)
    assert trace.jobs == (1, 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("minute,jobs,util\n0,1,1\n", "jobs.csv:1: the header must be 'minute,queued_jobs,gpu_util'"),
        ("minute,queued_jobs,gpu_util\n0,1\n", "jobs.csv:2: 2 columns, a row has 3"),
        ("minute,queued_jobs,gpu_util\n0,1,1\n2,1,1\n", "jobs.csv:3: column 1 (minute): expected minute 1"),
        (
            "minute,queued_jobs,gpu_util\n0,-1,1\n",
            "jobs.csv:2: column 2 (queued_jobs): must be a whole number",
        ),
        (
            "minute,queued_jobs,gpu_util\n0,1.5,1\n",
            "jobs.csv:2: column 2 (queued_jobs): must be a whole number",
        ),
        (
            "minute,queued_jobs,gpu_util\n0,²,1\n",
            "jobs.csv:2: column 2 (queued_jobs): must be a whole number",
        ),
        (
            "minute,queued_jobs,gpu_util\n0,1,101\n",
            "jobs.csv:2: column 3 (gpu_util): must be a percentage 0..100",
        ),
        ("minute,queued_jobs,gpu_util\n0,1,nan\n", "jobs.csv:2: column 3 (gpu_util): must be a percentage"),
        ("minute,queued_jobs,gpu_util\n0,1,\n", "jobs.csv:2: column 3 (gpu_util): must be a percentage"),
        (
            "minute,queued_jobs,gpu_util\n2026-01-05T00:00:00,1,1\n",
            "jobs.csv:2: column 1 (minute): '2026-01-05T00:00:00' has no UTC offset",
        ),
        (
            "minute,queued_jobs,gpu_util\n2026-01-05T00:00:00Z,1,1\n2026-01-05T00:02:00Z,1,1\n",
            "jobs.csv:3: column 1 (minute): expected 2026-01-05T00:01:00+00:00 (one row a minute",
        ),
        ("minute,queued_jobs,gpu_util\n2026-01-05T00:00:30Z,1,1\n", "is not at a whole minute"),
        (
            "minute,queued_jobs,gpu_util\nmonday,1,1\n",
            "jobs.csv:2: column 1 (minute): must be a minute index",
        ),
        (
            "minute,queued_jobs,gpu_util\n9999-12-31T23:59:00Z,1,1\n9999-12-31T23:59:00Z,1,1\n",
            "jobs.csv:2: column 1 (minute): '9999-12-31T23:59:00Z' is outside the years 1970 to 2199",
        ),
        ("", "jobs.csv: empty"),
        ("minute,queued_jobs,gpu_util\n", "jobs.csv: no rows after the header"),
    ],
)
def test_bad_rows_name_file_line_and_column(text: str, message: str) -> None:
    with pytest.raises(TraceError) as caught:
        parse_trace(text, "jobs.csv", START)
    assert message in str(caught.value)


def test_unreadable_files(tmp_path: Path) -> None:
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"minute,queued_jobs,gpu_util\n0,1,\xff\n")
    with pytest.raises(TraceError, match=r"bin.csv:2: byte 32 is not UTF-8"):
        read_trace(binary, START)
    with pytest.raises(TraceError, match=r"is a directory"):
        read_trace(tmp_path, START)
    with pytest.raises(TraceError, match=r"cannot read .*missing.csv: No such file"):
        read_trace(tmp_path / "missing.csv", START)
    with pytest.raises(TraceError, match=r"/dev/zero is not a regular file"):
        read_trace(Path("/dev/zero"), START)
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffminute,queued_jobs,gpu_util\n0,1,1\n".encode())
    assert read_trace(bom, START).jobs == (1,)


def test_scenarios_tell_their_stories() -> None:
    spike = scenario_trace("livestream-spike", "UTC")
    assert spike.jobs[29] == 20 and spike.jobs[90] == 200  # 20 -> 200 within the hour
    assert spike.start.weekday() == 5  # a Saturday evening
    weekend = scenario_trace("forgotten-weekend", "America/New_York")
    assert weekend.start.weekday() == 4 and weekend.start.hour == 16  # Friday 16:00 local
    assert weekend.jobs[0] == 8 and weekend.gpu_util[200] == 100.0  # a hung job spins its GPUs
    assert weekend.jobs[-1] == 0  # killed on Monday morning
    diurnal = scenario_trace("diurnal-training", "UTC")
    assert len(diurnal) == 7 * 1440
    assert diurnal.jobs[15 * 60] == 12 and diurnal.jobs[3 * 60] == 2 and diurnal.jobs[5 * 1440 + 15 * 60] == 5
    assert sorted(SCENARIOS) == ["diurnal-training", "forgotten-weekend", "livestream-spike"]
