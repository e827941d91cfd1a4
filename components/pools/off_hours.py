"""The off-hours window a non-production pool scales to zero in, on any cloud.

Each cloud's pool turns it into its own scheduled actions (AWS Auto Scaling scheduled actions, Alibaba
ESS scheduled tasks, Tencent AS schedules); the window itself is cloud-neutral.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class OffHours:
    """Scale to zero at ``stop_cron`` and restore at ``start_cron``, both in ``timezone`` (IANA)."""

    timezone: str
    stop_cron: str
    start_cron: str
