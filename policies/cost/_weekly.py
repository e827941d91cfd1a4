"""A week of scheduled actions replayed minute by minute: is a pool at zero over the weekend?

Recurrences read: Unix cron (`m h dom mon dow`, Sunday 0 or 7, names SUN-SAT; AWS Auto Scaling and
Tencent AS schedules, Alibaba ESS tasks of recurrence type `Cron`) and AWS Application Auto Scaling
`cron(m h dom mon dow year)` (Sunday 1, names SUN-SAT). Day-of-month and month must be `*` or `?`: a
schedule that depends on the date cannot be replayed as a week. Alibaba ESS `Daily`/`Weekly` tasks
(their time of day is in their launch time) are not replayed. Each recurrence is read in its own
time zone, so the weekend is the schedule's.

This is the one cron reader: GF-COST-005 replays a pool's week here, and so does the cost estimate
(`gpufleet.cost.schedule`), so what the rule reads the estimate prices.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from gpufleet.components.clouds import part_values
from gpufleet.policies.cost._clouds import PARTS

# Each cloud's bracketed cron dialect (`CRON_WRAPPED` of its cost module: AWS Application Auto
# Scaling's `cron(m h dom mon dow year)`, days 1-7 from Sunday) and how messages name it.
_WRAPPED: dict[str, re.Pattern[str]] = dict(part_values(PARTS, "CRON_WRAPPED").items())
_WRAPPED_NAMES = " or ".join(part_values(PARTS, "CRON_WRAPPED_NAME").values())

_DAY = 1440
_WEEK = 7 * _DAY
_NAMES = {"SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6}
WEEKEND = range(5 * _DAY, _WEEK)  # Saturday 00:00 to Monday 00:00, the week starting on Monday


class NotReplayable(ValueError):
    """The recurrence is not a weekly cron this module can replay."""


def _values(text: str, low: int, high: int, names: dict[str, int] | None = None) -> set[int]:
    found: set[int] = set()
    for item in text.split(","):
        part, _, step_text = item.partition("/")
        step = int(step_text) if step_text.isdigit() else 1
        if step_text and (not step_text.isdigit() or step < 1):
            raise NotReplayable(f"step {step_text!r} in {text!r}")
        if part in ("*", "?"):
            start, end = low, high
        elif "-" in part:
            first, last = part.split("-", 1)
            start, end = _value(first, names), _value(last, names)
        else:
            start = _value(part, names)
            end = high if step_text else start
        if start > end or not (low <= start <= high and low <= end <= high):
            raise NotReplayable(f"{text!r} is outside {low}-{high}")
        found.update(range(start, end + 1, step))
    return found


def _value(text: str, names: dict[str, int] | None) -> int:
    if names and text.upper()[:3] in names and not text.isdigit():
        return names[text.upper()[:3]]
    if not text.isdigit():
        raise NotReplayable(f"value {text!r}")
    return int(text)


def fire_minutes(recurrence: str) -> set[int]:
    """Minutes of the Monday-first week at which the recurrence fires."""
    text = recurrence.strip()
    if text.startswith("Cron "):
        text = text.removeprefix("Cron ")  # an Alibaba ESS task's recurrence type and value
    wrapped = next((m for pattern in _WRAPPED.values() if (m := pattern.fullmatch(text))), None)
    fields = (wrapped.group(1) if wrapped else text).split()
    if wrapped and len(fields) == 6:
        fields = fields[:5]
    if len(fields) != 5:
        raise NotReplayable(f"{recurrence!r} is not a five-field cron expression (or {_WRAPPED_NAMES})")
    minute, hour, dom, month, dow = fields
    if dom not in ("*", "?") or month not in ("*", "?"):
        raise NotReplayable(f"{recurrence!r} depends on the day of the month or the month")
    minutes = _values(minute, 0, 59)
    hours = _values(hour, 0, 23)
    if wrapped:
        # Application Auto Scaling numbers the days 1 (Sunday) to 7 (Saturday).
        days = {d - 1 for d in _values(dow, 1, 7, {k: v + 1 for k, v in _NAMES.items()})}
    else:
        days = {d % 7 for d in _values(dow, 0, 7, _NAMES)}
    return {((d + 6) % 7) * _DAY + h * 60 + m for d in days for h in hours for m in minutes}


@functools.lru_cache(maxsize=256)
def _replayed(stops: tuple[str, ...], starts: tuple[str, ...]) -> tuple[int, ...]:
    stop_at = set().union(*(fire_minutes(s) for s in stops)) if stops else set()
    start_at = set().union(*(fire_minutes(s) for s in starts)) if starts else set()
    running = True
    on = [0] * 7
    # The first week settles the state the schedule leaves at Monday 00:00; the second is counted.
    for minute in range(2 * _WEEK):
        of_week = minute % _WEEK
        if of_week in stop_at:
            running = False
        if of_week in start_at:
            running = True
        if running and minute >= _WEEK:
            on[of_week // _DAY] += 1
    return tuple(on)


def on_minutes_per_day(stops: Sequence[str], starts: Sequence[str]) -> tuple[int, ...]:
    """Minutes the pool runs on each day of the week, Monday first: stop (scale to zero) and start
    recurrences replayed over two weeks from running, the second counted. Replayed once per distinct
    set of recurrences (a fleet's pools mostly share one). Raises NotReplayable for a recurrence that
    cannot be replayed."""
    return _replayed(tuple(stops), tuple(starts))


def weekend_running_minutes(stops: Sequence[str], starts: Sequence[str]) -> int:
    """Minutes of the weekend (Saturday and Sunday) the pool runs."""
    return sum(on_minutes_per_day(stops, starts)[5:])
