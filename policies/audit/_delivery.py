"""Where an audit trail delivers to a bucket, and how long that bucket's lifecycle keeps the trail's files.

- AWS `aws:cloudtrail/trail:Trail`: `s3BucketName` (and `s3KeyPrefix`); CloudTrail writes
  `<s3KeyPrefix>/AWSLogs/<account>/CloudTrail/...`.
- Alibaba Cloud `alicloud:actiontrail/trail:Trail` (and `trailDeprecated`): `ossBucketName` (and
  `ossKeyPrefix`); ActionTrail writes `<ossKeyPrefix>/AliyunLogs/Actiontrail/...`.
- Tencent Cloud `tencentcloud:Audit/track:Track` with `storage.storageType` `cos`: `storage.storageName`
  is the COS bucket name without its `-<APPID>` suffix, `storage.storagePrefix` the key prefix.

The bucket is found in the stack by name (its `bucket` or `id`) or by the trail's property
dependency on it. Its lifecycle is its inline `lifecycleRules` plus the separate
`aws:s3/bucketLifecycleConfiguration[V2]` resources joined to it (`gpufleet.policies.storage._buckets`).
A rule applies to the trail's files when it is enabled, its prefix (`prefix`, `filter.prefix`,
`filter.and.prefix`, COS `filterPrefix`) and the trail's key path are compatible (one starts with the
other: a rule narrower than the trail's path still deletes part of it), and it has no tag filter (the
services write untagged objects). Only expiry of current objects deletes the logs; noncurrent-version
expiry and transitions do not. No applicable expiry means the files are kept for ever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.components.clouds import cloud_parts, part_merged, part_of
from gpufleet.policies.props import as_list, get, is_unknown
from gpufleet.policies.storage._buckets import Bucket, BucketIndex, lifecycle_rules_of, walk

# Each cloud's module gives `DELIVERING_TRAILS` (token -> kind), `delivery_target` (where one trail
# delivers), and may give `LIFECYCLE_RULES_KEYS` (lifecycle types whose rule list is not
# `lifecycleRules`) and `bucket_by_short_name` (a bucket the trail names without a suffix).
PARTS = cloud_parts("gpufleet.policies.audit")
# token -> (kind, cloud)
TRAILS: dict[str, tuple[str, str]] = {
    token: (kind, cloud)
    for cloud, part in PARTS.items()
    for token, kind in getattr(part, "DELIVERING_TRAILS", {}).items()
}
_RULES_KEYS: dict[str, str] = part_merged(PARTS, "LIFECYCLE_RULES_KEYS")


@dataclass(frozen=True)
class Expiry:
    """One lifecycle rule that deletes a trail's files: after `days`, or on a fixed `date`."""

    rule: str
    days: int | None
    date: str | None


@dataclass(frozen=True)
class Delivery:
    bucket: Bucket
    key_path: str  # where the service writes, as far as the program fixes it


def delivery(trail: PolicyResource, buckets: BucketIndex) -> Delivery | None:
    """The bucket in the stack a trail delivers to, or None (delivers elsewhere, or not to a bucket)."""
    part = part_of(PARTS, trail.resource_type)
    target = part.delivery_target(trail.props) if part is not None else None
    if target is None:
        return None
    name, prefix_prop, dep_key, service_path = target
    bucket = _find_bucket(trail, name, dep_key, buckets)
    if bucket is None:
        return None
    prefix = prefix_prop.strip("/") + "/" if isinstance(prefix_prop, str) and prefix_prop.strip("/") else ""
    return Delivery(bucket, prefix + service_path)


def _find_bucket(trail: PolicyResource, name: Any, dep_key: str, buckets: BucketIndex) -> Bucket | None:
    cloud = TRAILS[trail.resource_type][1]
    if isinstance(name, str) and name and not is_unknown(name):
        if (cloud, name) in buckets.by_name:
            return buckets.by_name[(cloud, name)]
        part = part_of(PARTS, trail.resource_type)
        by_short_name = getattr(part, "bucket_by_short_name", None)
        found: Bucket | None = by_short_name(name, buckets) if by_short_name is not None else None
        if found is not None:
            return found
    for dependency in (trail.property_dependencies or {}).get(dep_key, []) or []:
        found = buckets.by_urn.get(dependency.urn)
        if found is not None and found.cloud == cloud:
            return found
    return None


def expiries(target: Delivery) -> list[Expiry]:
    """The enabled lifecycle rules of the bucket that delete the trail's current files."""
    bucket = target.bucket
    sources = [(bucket.resource.resource_type, bucket.props)]
    sources += [(r.resource_type, r.props) for r in bucket.of("lifecycle")]
    found: list[Expiry] = []
    for resource_type, props in sources:
        key = _RULES_KEYS.get(resource_type, "lifecycleRules")
        for rule in as_list(get(props, key)):
            if not isinstance(rule, Mapping) or not _applies(rule, target.key_path):
                continue
            parsed = lifecycle_rules_of(resource_type, {key: [rule]})
            if not parsed or not parsed[0].enabled:
                continue
            dates = [get(e, "date") for e in walk(rule, ("expiration", "expirations"))]
            date = next((str(d) for d in dates if d not in (None, "")), None)
            if parsed[0].expiration_days is not None or date is not None:
                found.append(Expiry(parsed[0].label, parsed[0].expiration_days, date))
    return found


def _applies(rule: Mapping[str, Any], key_path: str) -> bool:
    prefixes = [
        value
        for path in ("prefix", "filterPrefix", "filter.prefix", "filter.and.prefix")
        for value in [get(rule, path)]
        if isinstance(value, str) and value
    ]
    for prefix in prefixes:
        if not (key_path.startswith(prefix) or prefix.startswith(key_path)):
            return False
    tag_filters = [get(rule, path) for path in ("tags", "filter.tag", "filter.and.tags")]
    return not any(value not in (None, {}, []) for value in tag_filters)
