"""Tencent Cloud facts of the audit rules: CloudAudit tracks and instances (what a compliant one
sets, where a track delivers in COS, whose bucket names drop the `-<APPID>` suffix), CLS topics (their
retention; they use service keys, outside GF-AUD-003), and the Tencent words of each rule's
remediation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import as_int, get, get_ref, is_unknown, truthy
from gpufleet.policies.storage._buckets import Bucket, BucketIndex

TRACK = "tencentcloud:Audit/track:Track"
AUDIT = "tencentcloud:Audit/instance:Instance"
CLS_TOPIC = "tencentcloud:Cls/topic:Topic"


# --- GF-AUD-001 a trail per cloud ---
def _track_defect(props: Mapping[str, Any]) -> str | None:
    status = get(props, "status")
    if as_int(status) != 1:
        return f"has status {status!r} (expected 1, open)"
    action = get(props, "actionType")
    if action is not None and action != "*":
        return f"records only {action!r} calls (actionType should be *)"
    return None


def _audit_defect(props: Mapping[str, Any]) -> str | None:
    if not truthy(get(props, "auditSwitch", False)):
        return "has auditSwitch off"
    return None


# token -> (kind, what is wrong with one (None: compliant))
TRAILS = {
    TRACK: ("CloudAudit track", _track_defect),
    AUDIT: ("CloudAudit instance", _audit_defect),
}
TRAIL_KIND = "a CloudAudit track (tencentcloud.audit.Track, status 1, actionType *)"
TRAIL_SHORT = "CloudAudit"
TRAIL_REMEDIATION = (
    "Tencent Cloud: add tencentcloud.audit.Track with status=1, action_type='*', "
    "resource_type='*', event_names=['*']."
)

# --- GF-AUD-002 retention: trails that deliver to a bucket, and the stores that keep logs ---
DELIVERING_TRAILS = {TRACK: "CloudAudit track"}
TRAIL_BUCKET = "CloudAudit to COS"
_COS_APPID = re.compile(r"-\d+$")


def delivery_target(props: Mapping[str, Any]) -> tuple[Any, Any, str, str] | None:
    """(bucket name, key prefix, dependency key, service path) of a track with COS storage, or None:
    `storage.storageName` is the bucket name without its `-<APPID>`, `storage.storagePrefix` the prefix."""
    storage = get(props, "storage")
    if not isinstance(storage, Mapping) or str(get(storage, "storageType") or "").lower() != "cos":
        return None
    return get_ref(storage, "storageName"), get(storage, "storagePrefix"), "storage", ""


def bucket_by_short_name(name: str, buckets: BucketIndex) -> Bucket | None:
    """The stack's COS bucket whose full name is `name` plus a `-<APPID>` suffix."""
    for bucket in buckets.of_cloud("tencentcloud"):
        full = get_ref(bucket.props, "bucket")
        if isinstance(full, str) and not is_unknown(full) and _COS_APPID.sub("", full) == name:
            return bucket
    return None


# type -> (kind, retention property, meaning of "unset", days when unset (None = never expires))
RETAINED: dict[str, tuple[str, str, str, int | None]] = {
    CLS_TOPIC: ("CLS topic", "period", "the log set's period, 30 days by default", 30),
}
RETENTION_REMEDIATION = (
    "Tencent Cloud: set tencentcloud.cls.Topic period >= min_days (3640 keeps logs forever)."
)

# --- GF-AUD-003: CLS topics encrypt with service keys ---
SERVICE_KEY_LOGS = (CLS_TOPIC,)
SERVICE_KEY_LOGS_NAME = "CLS"
