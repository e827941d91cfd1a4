"""Weekly schedules: when a pool may run, replayed from its stop and start recurrences (cron) or the
spec's off-hours window."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpufleet.cost.units import HOURS_PER_MONTH, HOURS_PER_WEEK

_MINUTES_PER_DAY = 1440
_MINUTES_PER_WEEK = 7 * _MINUTES_PER_DAY
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


_CRON_DAY_NAMES = {"SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6}


def _cron_field(text: str, low: int, high: int, names: Mapping[str, int] | None = None) -> frozenset[int]:
    values: set[int] = set()
    for item in text.split(","):
        step = 1
        part = item
        if "/" in item:
            part, step_text = item.split("/", 1)
            step = int(step_text)
            if step < 1:
                raise ValueError(f"step must be >= 1 in {text!r}")
        if part == "*":
            start, end = low, high
        elif "-" in part:
            first, last = part.split("-", 1)
            start, end = _cron_value(first, names), _cron_value(last, names)
        else:
            start = _cron_value(part, names)
            end = high if step > 1 else start
        if not (low <= start <= high and low <= end <= high) or start > end:
            raise ValueError(f"{text!r} is outside {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)


def _cron_value(text: str, names: Mapping[str, int] | None) -> int:
    if names and text.upper() in names:
        return names[text.upper()]
    return int(text)


@dataclass(frozen=True)
class _Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    weekdays: frozenset[int]  # cron numbering: 0 = Sunday

    @classmethod
    def parse(cls, expression: str) -> _Cron:
        fields = expression.split()
        if len(fields) != 5:
            raise ValueError(f"{expression!r} is not a five-field cron expression")
        minute, hour, day_of_month, month, weekday = fields
        if day_of_month not in ("*", "?") or month != "*":
            raise ValueError(f"{expression!r} depends on the day of the month or the month")
        days = (
            frozenset(range(7))
            if weekday in ("*", "?")
            else frozenset(d % 7 for d in _cron_field(weekday, 0, 7, _CRON_DAY_NAMES))
        )
        return cls(_cron_field(minute, 0, 59), _cron_field(hour, 0, 23), days)

    def fires(self, day: int, minute_of_day: int) -> bool:
        """``day`` 0 = Monday."""
        return (
            (day + 1) % 7 in self.weekdays
            and minute_of_day // 60 in self.hours
            and minute_of_day % 60 in self.minutes
        )


@functools.lru_cache(maxsize=256)
def _replayed_week(stops: tuple[str, ...], starts: tuple[str, ...]) -> tuple[int, ...]:
    """Minutes on per weekday of `WeeklySchedule.from_crons`, replayed once per distinct set of
    recurrences: a fleet's pools mostly share one off-hours schedule, and a replay is 20,160 steps."""
    stop_crons = [_Cron.parse(s) for s in stops]
    start_crons = [_Cron.parse(s) for s in starts]
    running = True
    on = [0] * 7
    # The first week settles the state the schedule leaves at Monday 00:00; the second is counted.
    for minute in range(2 * _MINUTES_PER_WEEK):
        day, minute_of_day = (minute // _MINUTES_PER_DAY) % 7, minute % _MINUTES_PER_DAY
        if any(c.fires(day, minute_of_day) for c in stop_crons):
            running = False
        if any(c.fires(day, minute_of_day) for c in start_crons):
            running = True
        if running and minute >= _MINUTES_PER_WEEK:
            on[day] += 1
    return tuple(on)


@dataclass(frozen=True)
class WeeklySchedule:
    """When a pool may run: the minutes it runs on each day of the week, Monday first."""

    on_minutes: tuple[int, ...]
    description: str

    def __post_init__(self) -> None:
        if len(self.on_minutes) != 7 or not all(0 <= m <= _MINUTES_PER_DAY for m in self.on_minutes):
            raise ValueError(f"on_minutes must be 7 values in 0..1440, got {self.on_minutes}")

    @classmethod
    def always(cls) -> WeeklySchedule:
        return cls((_MINUTES_PER_DAY,) * 7, "around the clock")

    @classmethod
    def from_crons(cls, stops: Sequence[str], starts: Sequence[str], description: str) -> WeeklySchedule:
        """Replay a week of stop (scale to zero) and start (restore) recurrences, from a settled state.

        Raises ValueError for a recurrence this cannot replay (day-of-month or month fields).
        """
        return cls(_replayed_week(tuple(stops), tuple(starts)), description)

    @classmethod
    def from_off_hours(cls, scale_to_zero: str, weekends: bool, timezone: str = "") -> WeeklySchedule:
        """The spec's off-hours window ("20:00-08:00"), replayed with the same recurrences the pool gets."""
        match = re.fullmatch(r"(\d\d):(\d\d)-(\d\d):(\d\d)", scale_to_zero.strip())
        if match is None:
            raise ValueError(f'scale_to_zero must be "HH:MM-HH:MM", got {scale_to_zero!r}')
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        stop = f"{m1} {h1} * * *"
        start = f"{m2} {h2} * * {'1-5' if weekends else '*'}"
        where = f" {timezone}" if timezone else ""
        weekend = ", and weekends" if weekends else ""
        return cls.from_crons([stop], [start], f"off {scale_to_zero}{where}{weekend}")

    @property
    def on_hours_per_week(self) -> float:
        return sum(self.on_minutes) / 60.0

    @property
    def on_hours_per_month(self) -> float:
        return self.on_hours_per_week * HOURS_PER_MONTH / HOURS_PER_WEEK

    @property
    def longest_day_hours(self) -> float:
        return max(self.on_minutes) / 60.0

    @property
    def running_days_per_week(self) -> int:
        return sum(1 for m in self.on_minutes if m > 0)

    @property
    def always_on(self) -> bool:
        return all(m == _MINUTES_PER_DAY for m in self.on_minutes)
