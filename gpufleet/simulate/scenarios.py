"""Built-in demand traces from our users' own stories (``--trace scenario:NAME``).

Each is deterministic (no random numbers): the same scenario gives the same report on every machine.
Times are local to the pool's off-hours time zone (UTC for a pool without one), so a Friday evening
is the team's Friday evening.
"""

from __future__ import annotations

import datetime as dt
import math
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass

from gpufleet.simulate.model import Trace


@dataclass(frozen=True)
class Scenario:
    name: str
    story: str
    build: Callable[[dt.tzinfo], Trace]


def _livestream(zone: dt.tzinfo) -> Trace:
    """Saturday 18:00, four hours: 20 streams, ramping to 200 within the hour from 18:30, held for
    90 minutes, back to 20 over the last hour; transcoding keeps a busy GPU at 80 %."""
    jobs: list[int] = []
    for minute in range(240):
        if minute < 30:
            level = 20.0
        elif minute < 90:
            level = 20 + 180 * (minute - 30) / 60
        elif minute < 180:
            level = 200.0
        else:
            level = 200 - 180 * (minute - 180) / 60
        jobs.append(round(level))
    start = dt.datetime(2026, 1, 10, 18, 0, tzinfo=zone)
    return Trace("scenario:livestream-spike", start, tuple(jobs), (80.0,) * len(jobs), "built in", 20)


def _forgotten_weekend(zone: dt.tzinfo) -> Trace:
    """Friday 16:00 to Monday 10:00: an eight-instance training run works until 19:00, then hangs in a
    collective (a hung NCCL all-reduce spins its GPUs at 100 %) until someone kills it on Monday at
    09:30. Autoscaling sees busy GPUs all weekend."""
    start = dt.datetime(2026, 1, 9, 16, 0, tzinfo=zone)
    minutes = 66 * 60
    killed = (2 * 24 + 17) * 60 + 30  # Monday 09:30
    jobs = tuple(8 if minute < killed else 0 for minute in range(minutes))
    util = tuple(95.0 if minute < 180 else 100.0 for minute in range(minutes))
    return Trace("scenario:forgotten-weekend", start, jobs, util, "built in", 8)


def _diurnal(zone: dt.tzinfo) -> Trace:
    """A week from Monday 00:00 of a training queue: two jobs overnight, rising from 08:00 to twelve
    at 15:00 and back by 22:00 on weekdays, to five on weekends; a training job keeps its GPU at 92 %."""
    jobs: list[int] = []
    for minute in range(7 * 1440):
        day, of_day = divmod(minute, 1440)
        hour = of_day / 60
        peak = 10.0 if day < 5 else 3.0
        level = 2 + peak * math.sin(math.pi * (hour - 8) / 14) if 8 <= hour < 22 else 2.0
        jobs.append(round(level))
    start = dt.datetime(2026, 1, 5, 0, 0, tzinfo=zone)
    return Trace("scenario:diurnal-training", start, tuple(jobs), (92.0,) * len(jobs), "built in", 2)


SCENARIOS: dict[str, Scenario] = {
    "livestream-spike": Scenario(
        "livestream-spike",
        "a live stream that needs 20 -> 200 instances within the hour",
        _livestream,
    ),
    "forgotten-weekend": Scenario(
        "forgotten-weekend",
        "a dev pool left running over a weekend by a hung job (the $12,000 Monday bill)",
        _forgotten_weekend,
    ),
    "diurnal-training": Scenario("diurnal-training", "a week of a diurnal training queue", _diurnal),
}


def scenario_trace(name: str, timezone: str) -> Trace:
    """The scenario's trace in ``timezone``; KeyError for an unknown name."""
    return SCENARIOS[name].build(zoneinfo.ZoneInfo(timezone))
