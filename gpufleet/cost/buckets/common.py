"""What the per-cloud bucket readers share: the lifecycle read, references to a bucket, and the inline
lifecycle rules some clouds keep on the bucket itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Lifecycle:
    """A lifecycle rule as priced: (day, storage class) transitions, the day objects expire, and how
    many days a noncurrent version stays (0 for an unversioned bucket)."""

    transitions: tuple[tuple[int, str], ...]
    expire_days: int
    noncurrent_days: int


def bucket_refs(bucket: Any) -> set[str]:
    """The values other resources use to point at a bucket: its name, id and ARN."""
    refs = {bucket.outputs.get("bucket"), bucket.outputs.get("id"), bucket.outputs.get("arn"), bucket.id}
    return {r for r in refs if isinstance(r, str) and r}


def targets(resource: Any, bucket: Any, refs: set[str]) -> bool:
    """True when a bucket's sub-resource (lifecycle, versioning) belongs to ``bucket``: by the bucket it
    names, else (a name unknown before deploy) by sharing the bucket's component parent."""
    named = resource.inputs.get("bucket")
    if isinstance(named, str) and named in refs:
        return True
    return not (isinstance(named, str) and named) and resource.parent == bucket.parent


def whole_days(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def first(value: Any) -> Mapping[str, Any]:
    """A nested block given as one object or as a list of them (OSS's ``expirations[]``)."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class InlineRules:
    """Where a cloud's inline ``lifecycleRules`` keep their parts: whether a rule must say
    ``enabled: true``, the prefix and expiration keys, and the noncurrent days of a rule."""

    needs_enabled: bool
    prefix_key: str
    expiration_key: str
    noncurrent_days: Callable[[Mapping[str, Any]], Any]


def inline_lifecycle(bucket: Any, prefix: str, rules: InlineRules, versioned: bool) -> Lifecycle | None:
    """The bucket's inline rule that expires objects under ``prefix`` (the rule's prefix covers it,
    ``""`` covers all)."""
    for rule in bucket.inputs.get("lifecycleRules") or []:
        if not isinstance(rule, Mapping) or (rules.needs_enabled and rule.get("enabled") is not True):
            continue
        rule_prefix = rule.get(rules.prefix_key) or ""
        expire = whole_days(first(rule.get(rules.expiration_key)).get("days"))
        if not isinstance(rule_prefix, str) or not prefix.startswith(rule_prefix) or expire is None:
            continue
        transitions = tuple(
            (days, str(t["storageClass"]))
            for t in rule.get("transitions") or []
            if isinstance(t, Mapping)
            and "storageClass" in t
            and (days := whole_days(t.get("days"))) is not None
        )
        noncurrent = rules.noncurrent_days(rule)
        return Lifecycle(transitions, expire, (whole_days(noncurrent) or 0) if versioned else 0)
    return None
