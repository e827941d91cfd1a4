"""COS buckets: inline lifecycle rules (always enabled, ``filterPrefix``, ``expiration``,
``transitions[]``, ``nonCurrentExpiration``), ``versioningEnable``, and the bucket's own
``replicaRules`` (``destinationBucket`` ``qcs::cos:<region>::<bucket>``; the bucket itself stands for
the configuration). Tokens of tencentcloud-iac-pulumi."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpufleet.cost.buckets import BucketReader
from gpufleet.cost.buckets.common import InlineRules, Lifecycle, bucket_refs, first, inline_lifecycle

_COS_BUCKET = "tencentcloud:Cos/bucket:Bucket"
_RULES = InlineRules(
    needs_enabled=False,
    prefix_key="filterPrefix",
    expiration_key="expiration",
    noncurrent_days=lambda rule: first(rule.get("nonCurrentExpiration")).get("nonCurrentDays"),
)


def lifecycle(_graph: Any, bucket: Any, prefix: str) -> Lifecycle | None:
    return inline_lifecycle(bucket, prefix, _RULES, bucket.inputs.get("versioningEnable") is True)


def replicas(_graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Each enabled replica rule of ``source``, with the bucket its ``destinationBucket`` names."""
    found: list[tuple[Any, Any]] = []
    if source.type != _COS_BUCKET:
        return found
    for rule in source.inputs.get("replicaRules") or []:
        if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
            continue
        named = str(rule.get("destinationBucket") or "").rsplit(":", 1)[-1]
        found += [(source, other) for other in buckets if other is not source and named in bucket_refs(other)]
    return found


READER = BucketReader(buckets=(_COS_BUCKET,), lifecycle=lifecycle, replicas=replicas)
