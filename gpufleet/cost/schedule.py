"""Weekly schedules: when a pool may run, replayed from its stop and start recurrences (cron, read by
the policy pack's reader) or the spec's off-hours window."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpufleet.cost.units import HOURS_PER_MONTH, HOURS_PER_WEEK

_MINUTES_PER_DAY = 1440
_MINUTES_PER_WEEK = 7 * _MINUTES_PER_DAY
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _replayed_week(stops: tuple[str, ...], starts: tuple[str, ...]) -> tuple[int, ...]:
    """Minutes on per weekday of `WeeklySchedule.from_crons`: the pack's own replay
    (`gpufleet.policies.cost._weekly`), so the estimate reads every recurrence GF-COST-005 reads (Unix cron,
    Application Auto Scaling `cron(...)`, Alibaba ESS `Cron` tasks)."""
    from gpufleet.policies.cost._weekly import on_minutes_per_day

    return on_minutes_per_day(stops, starts)


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

        Raises ValueError for a recurrence this cannot replay (one that depends on the date, or that
        is not a cron expression).
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
