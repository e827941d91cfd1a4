"""Off-hours schedules for Tencent AS, converted from the spec's time zone to the time AS reads.

AS scheduled actions take their times as ``YYYY-MM-DDThh:mm:ss+08:00`` and run a recurrence (cron)
at Beijing time (UTC+8), whatever the region: the spec's ``stop_cron``/``start_cron`` (minute, hour,
any day or a weekday list, in the spec's IANA time zone) are moved to UTC+8, shifting the weekdays
when the move crosses midnight.

A zone with daylight saving time has two offsets a year, and a cron line one. The conversion keeps the
pool available for at least the hours the spec asks: the stop is taken at the zone's smaller offset
and the start at its larger one, so for part of the year the pool stops an hour later or starts an
hour earlier than asked (never the reverse). A zone without DST converts exactly.
"""

from __future__ import annotations

import datetime
import zoneinfo

from gpufleet.components.pools.off_hours import OffHours

REGION_OFFSET_MIN = 8 * 60  # AS reads recurrences at UTC+8
_DAY_MIN = 24 * 60
# Offsets are sampled mid-winter and mid-summer of a fixed year (both hemispheres' DST covered).
_SAMPLES = (datetime.datetime(2025, 1, 15, 12), datetime.datetime(2025, 7, 15, 12))


def zone_offsets(timezone: str) -> tuple[int, int]:
    """The zone's smaller and larger UTC offsets over a year, in minutes."""
    zone = zoneinfo.ZoneInfo(timezone)
    found = []
    for moment in _SAMPLES:
        offset = moment.replace(tzinfo=zone).utcoffset()
        found.append(int(offset.total_seconds() // 60) if offset is not None else 0)
    return min(found), max(found)


def _days(field: str) -> set[int] | None:
    """The weekdays (0 = Sunday) of a cron day-of-week field; None for every day."""
    if field == "*":
        return None
    days: set[int] = set()
    for part in field.split(","):
        first, _, last = part.partition("-")
        low, high = int(first), int(last or first)
        if not (0 <= low <= 7 and 0 <= high <= 7 and low <= high):
            raise ValueError(f"unsupported day-of-week field {field!r}")
        days.update(d % 7 for d in range(low, high + 1))
    return days


def _day_field(days: set[int] | None) -> str:
    if days is None:
        return "*"
    ordered = sorted(days)
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 1:
        return f"{ordered[0]}-{ordered[-1]}"
    return ",".join(str(d) for d in ordered)


def shift_cron(cron: str, offset_min: int) -> str:
    """``cron`` (``M H * * D``, at UTC+offset) as the same moments at UTC+8."""
    parts = cron.split()
    if len(parts) != 5 or parts[2:4] != ["*", "*"]:
        raise ValueError(f"unsupported off-hours cron {cron!r}: expected 'M H * * D'")
    minute, hour = int(parts[0]), int(parts[1])
    local = hour * 60 + minute
    moved = local - offset_min + REGION_OFFSET_MIN
    day_shift, at = divmod(moved, _DAY_MIN)
    days = _days(parts[4])
    shifted = None if days is None else {(d + day_shift) % 7 for d in days}
    return f"{at % 60} {at // 60} * * {_day_field(shifted)}"


def region_schedule(hours: OffHours) -> tuple[str, str]:
    """(stop, start) recurrences at UTC+8 for AS; see the module docstring for DST."""
    smaller, larger = zone_offsets(hours.timezone)
    return shift_cron(hours.stop_cron, smaller), shift_cron(hours.start_cron, larger)
