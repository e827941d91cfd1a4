"""Demand traces from CSV, read strictly: any bad row is a TraceError naming the file, the line and
the column, and what the column allows.

The file is a header and one row a minute::

    minute,queued_jobs,gpu_util
    2026-01-09T17:00:00Z,8,95
    2026-01-09T17:01:00Z,8,95

- ``minute``: either every row an index 0, 1, 2, ... (the trace then starts at ``--start``), or every
  row an ISO 8601 time at a whole minute with a UTC offset (``Z`` or ``+08:00``), one minute apart;
- ``queued_jobs``: jobs in the pool's queue that minute, waiting or running, a whole number >= 0
  (each running job holds one instance);
- ``gpu_util``: GPU utilisation of an instance running a job, a percentage 0..100.

Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

from gpufleet.simulate.model import Trace

HEADER = ("minute", "queued_jobs", "gpu_util")
MAX_MINUTES = 100_800  # ten weeks
MAX_JOBS = 1_000_000
MAX_BYTES = 16 * 1024 * 1024
_FORM = "minute,queued_jobs,gpu_util"
_WHOLE = re.compile(r"[0-9]{1,9}")
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(2200, 1, 1, tzinfo=dt.UTC)


def in_range(moment: dt.datetime) -> bool:
    """A trace starts between 1970 and 2200: its minutes and the week before it stay representable."""
    return EARLIEST <= moment < LATEST


class TraceError(ValueError):
    """A trace that cannot be read; the message names the file, line and column."""


def _where(path: str, line: int, column: int | None = None) -> str:
    if column is None:
        return f"{path}:{line}"
    return f"{path}:{line}: column {column + 1} ({HEADER[column]})"


def _clip(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _timestamp(text: str) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment


def read_trace(path: Path, start: dt.datetime) -> Trace:
    """The trace in ``path``; ``start`` is the first minute of an index trace."""
    shown = str(path)
    try:
        if path.is_dir():
            raise TraceError(f"{shown} is a directory; give a CSV file ({_FORM})")
        if path.exists() and not path.is_file():
            raise TraceError(f"{shown} is not a regular file; give a CSV file ({_FORM})")
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise TraceError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise TraceError(f"{shown}: more than {MAX_BYTES:,} bytes, more than a trace may hold")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TraceError(
            f"{shown}:{line}: byte {exc.start} is not UTF-8; a trace is a CSV text file"
        ) from None
    return parse_trace(text, shown, start)


def _rows(text: str, path: str) -> list[tuple[int, list[str]]]:
    """The data rows (line number, cells) after the header; comments and blank lines skipped."""
    rows: list[tuple[int, list[str]]] = []
    header_seen = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split(",")]
        if not header_seen:
            if tuple(c.lower() for c in cells) != HEADER:
                raise TraceError(
                    f"{_where(path, number)}: the header must be {_FORM!r}, got {_clip(line, 80)}"
                )
            header_seen = True
            continue
        if len(cells) != len(HEADER):
            raise TraceError(
                f"{_where(path, number)}: {len(cells)} columns, a row has 3 ({_FORM}), got {_clip(line, 80)}"
            )
        rows.append((number, cells))
        if len(rows) > MAX_MINUTES:
            raise TraceError(f"{_where(path, number)}: more than {MAX_MINUTES:,} minutes (ten weeks)")
    if not header_seen:
        raise TraceError(f"{path}: empty; a trace is a CSV with the header {_FORM!r} and a row a minute")
    if not rows:
        raise TraceError(f"{path}: no rows after the header; give one row a minute")
    return rows


def _moment(path: str, number: int, minute: str) -> dt.datetime:
    """A row's ISO 8601 minute, aware and whole."""
    moment = _timestamp(minute)
    if moment is None:
        raise TraceError(
            f"{_where(path, number, 0)}: must be a minute index (0, 1, ...) or an ISO 8601 time "
            f"like 2026-01-09T17:00:00Z, got {_clip(minute)}"
        )
    if moment.tzinfo is None:
        raise TraceError(
            f"{_where(path, number, 0)}: {_clip(minute)} has no UTC offset; add Z or one like +08:00"
        )
    if moment.second or moment.microsecond:
        raise TraceError(f"{_where(path, number, 0)}: {_clip(minute)} is not at a whole minute")
    return moment


def _check_minute(
    path: str, number: int, minute: str, position: int, *, origin: dt.datetime | None, first_number: int
) -> dt.datetime | None:
    """A row's minute is the next one: its index, or (``origin`` the first row's time) its time.
    Returns the first row's time when the rows are timed, else None."""
    if origin is None:
        if not _WHOLE.fullmatch(minute) or int(minute) != position:
            raise TraceError(
                f"{_where(path, number, 0)}: expected minute {position} (the rows count minutes "
                f"0, 1, 2, ... one a row, as line {first_number} began), got {_clip(minute)}"
            )
        return None
    moment = _moment(path, number, minute)
    if moment != origin + dt.timedelta(minutes=position):
        expected = (origin + dt.timedelta(minutes=position)).isoformat()
        raise TraceError(
            f"{_where(path, number, 0)}: expected {expected} (one row a minute, no gaps or repeats), "
            f"got {_clip(minute)}"
        )
    return origin


def _values(path: str, number: int, queued: str, util: str) -> tuple[int, float]:
    if not _WHOLE.fullmatch(queued) or int(queued) > MAX_JOBS:
        raise TraceError(
            f"{_where(path, number, 1)}: must be a whole number of jobs 0..{MAX_JOBS:,}, got {_clip(queued)}"
        )
    try:
        value = float(util)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 100:  # NaN fails too
        raise TraceError(f"{_where(path, number, 2)}: must be a percentage 0..100, got {_clip(util)}")
    return int(queued), value


def parse_trace(text: str, path: str, start: dt.datetime) -> Trace:
    rows = _rows(text, path)
    first_number, first = rows[0]
    origin: dt.datetime | None = None
    if _WHOLE.fullmatch(first[0]) is None:
        origin = _moment(path, first_number, first[0])
        if not in_range(origin):
            raise TraceError(
                f"{_where(path, first_number, 0)}: {_clip(first[0])} is outside the years 1970 to 2199"
            )
    jobs: list[int] = []
    utils: list[float] = []
    for position, (number, cells) in enumerate(rows):
        minute, queued, util = cells
        _check_minute(path, number, minute, position, origin=origin, first_number=first_number)
        count, value = _values(path, number, queued, util)
        jobs.append(count)
        utils.append(value)
    name = Path(path).name
    return Trace(name, origin or start, tuple(jobs), tuple(utils), source=path)
