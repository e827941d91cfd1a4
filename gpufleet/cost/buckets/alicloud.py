"""OSS buckets: inline lifecycle rules (``enabled``, ``prefix``, ``expirations[]``, ``transitions[]``,
``noncurrentVersionExpirations[]``), versioning inline or in ``oss.BucketVersioning``, replication in
``oss.BucketReplication`` (``destination.bucket``). Tokens of pulumi-alicloud."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufleet.cost.buckets import BucketReader
from gpufleet.cost.buckets.common import InlineRules, Lifecycle, bucket_refs, first, inline_lifecycle, targets

_OSS_VERSIONING = "alicloud:oss/bucketVersioning:BucketVersioning"
_OSS_REPLICATION = "alicloud:oss/bucketReplication:BucketReplication"
_RULES = InlineRules(
    needs_enabled=True,
    prefix_key="prefix",
    expiration_key="expirations",
    noncurrent_days=lambda rule: first(rule.get("noncurrentVersionExpirations")).get("days"),
)


def lifecycle(graph: Any, bucket: Any, prefix: str) -> Lifecycle | None:
    refs = bucket_refs(bucket)
    inline = (bucket.inputs.get("versioning") or {}).get("status") == "Enabled"
    versioned = inline or any(
        targets(v, bucket, refs) and v.inputs.get("status") == "Enabled"
        for v in graph.of_type(_OSS_VERSIONING)
    )
    return inline_lifecycle(bucket, prefix, _RULES, versioned)


def replicas(graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Each replication of ``source``, with the bucket its ``destination.bucket`` names."""
    refs = bucket_refs(source)
    found: list[tuple[Any, Any]] = []
    for config in graph.of_type(_OSS_REPLICATION):
        if config.inputs.get("bucket") not in refs:
            continue
        named = (config.inputs.get("destination") or {}).get("bucket")
        found += [(config, other) for other in buckets if other is not source and named in bucket_refs(other)]
    return found


READER = BucketReader(buckets=("alicloud:oss/bucket:Bucket",), lifecycle=lifecycle, replicas=replicas)
