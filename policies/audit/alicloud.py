"""Alibaba Cloud facts of the audit rules: ActionTrail trails (what a compliant one sets, where one
delivers in OSS), SLS logstores (their retention; they use service keys, outside GF-AUD-003), and the
Alibaba words of each rule's remediation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import get, get_ref

TRAIL = "alicloud:actiontrail/trail:Trail"
TRAIL_DEPRECATED = "alicloud:actiontrail/trailDeprecated:TrailDeprecated"
LOG_STORE = "alicloud:log/store:Store"


# --- GF-AUD-001 a trail per cloud ---
def _trail_defect(props: Mapping[str, Any]) -> str | None:
    status = get(props, "status")
    if status is not None and str(status) != "Enable":
        return f"has status {status!r} (expected Enable)"
    event_rw = get(props, "eventRw")
    if event_rw is not None and str(event_rw) != "All":
        return f"records only {event_rw!r} events (eventRw should be All)"
    region = get(props, "trailRegion")
    if region is not None and str(region) != "All":
        return f"covers only region {region!r} (trailRegion should be All)"
    return None


# token -> (kind, what is wrong with one (None: compliant))
TRAILS = {
    TRAIL: ("ActionTrail trail", _trail_defect),
    TRAIL_DEPRECATED: ("ActionTrail trail", _trail_defect),
}
TRAIL_KIND = "an ActionTrail trail (alicloud.actiontrail.Trail, status Enable, eventRw All)"
TRAIL_SHORT = "ActionTrail"
TRAIL_REMEDIATION = (
    "Alibaba Cloud: add alicloud.actiontrail.Trail with status='Enable', event_rw='All', trail_region='All'."
)

# --- GF-AUD-002 retention: trails that deliver to a bucket, and the stores that keep logs ---
DELIVERING_TRAILS = {TRAIL: "ActionTrail trail", TRAIL_DEPRECATED: "ActionTrail trail"}
TRAIL_BUCKET = "ActionTrail to OSS"


def delivery_target(props: Mapping[str, Any]) -> tuple[Any, Any, str, str] | None:
    """(bucket name, key prefix, dependency key, service path): ActionTrail writes
    `<ossKeyPrefix>/AliyunLogs/Actiontrail/...`."""
    return (
        get_ref(props, "ossBucketName"),
        get(props, "ossKeyPrefix"),
        "ossBucketName",
        "AliyunLogs/Actiontrail/",
    )


# type -> (kind, retention property, meaning of "unset", days when unset (None = never expires))
RETAINED: dict[str, tuple[str, str, str, int | None]] = {
    LOG_STORE: ("SLS logstore", "retentionPeriod", "the provider default of 30 days", 30),
}
RETENTION_REMEDIATION = (
    "Alibaba Cloud: set alicloud.log.Store retention_period >= min_days (3650 keeps logs forever)."
)

# --- GF-AUD-003: logstores encrypt with service keys ---
SERVICE_KEY_LOGS = (LOG_STORE,)
SERVICE_KEY_LOGS_NAME = "SLS"
