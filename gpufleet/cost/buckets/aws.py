"""S3 buckets: lifecycles and versioning in their own resources, replication configurations naming the
destination bucket's ARN (tokens of pulumi-aws)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpufleet.cost.buckets import BucketReader
from gpufleet.cost.buckets.common import Lifecycle, bucket_refs, targets, whole_days

_LIFECYCLES = (
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2",
)
_VERSIONINGS = ("aws:s3/bucketVersioning:BucketVersioning", "aws:s3/bucketVersioningV2:BucketVersioningV2")
_REPLICATIONS = ("aws:s3/bucketReplicationConfig:BucketReplicationConfig",)


def lifecycle(graph: Any, bucket: Any, prefix: str) -> Lifecycle | None:
    """The enabled rule of a lifecycle configuration of the bucket whose prefix is ``prefix``."""
    refs = bucket_refs(bucket)
    versioned = any(
        targets(v, bucket, refs)
        and (v.inputs.get("versioningConfiguration") or {}).get("status") == "Enabled"
        for v in graph.of_type(*_VERSIONINGS)
    )
    for configuration in graph.of_type(*_LIFECYCLES):
        if not targets(configuration, bucket, refs):
            continue
        for rule in configuration.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            rule_prefix = (rule.get("filter") or {}).get("prefix", rule.get("prefix"))
            expire = whole_days((rule.get("expiration") or {}).get("days"))
            if rule_prefix != prefix or expire is None:
                continue
            transitions = tuple(
                (days, str(t["storageClass"]))
                for t in rule.get("transitions") or []
                if isinstance(t, Mapping) and (days := whole_days(t.get("days"))) is not None
            )
            noncurrent = whole_days((rule.get("noncurrentVersionExpiration") or {}).get("noncurrentDays"))
            return Lifecycle(transitions, expire, noncurrent or 0 if versioned else 0)
    return None


def replicas(graph: Any, source: Any, buckets: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Each enabled rule of a replication configuration of ``source``, with the bucket its destination
    ARN names."""
    refs = bucket_refs(source)
    found: list[tuple[Any, Any]] = []
    for config in graph.of_type(*_REPLICATIONS):
        if config.inputs.get("bucket") not in refs:
            continue
        for rule in config.inputs.get("rules") or []:
            if not isinstance(rule, Mapping) or rule.get("status") != "Enabled":
                continue
            arn = (rule.get("destination") or {}).get("bucket")
            for other in buckets:
                if other is not source and arn in bucket_refs(other):
                    found.append((config, other))
    return found


READER = BucketReader(
    buckets=("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2"),
    lifecycle=lifecycle,
    replicas=replicas,
)
