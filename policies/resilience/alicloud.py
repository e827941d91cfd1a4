"""Alibaba Cloud facts of the resilience rules: burst pool types, GF-DR-001's remediation, and when
an OSS replication copies nothing."""

from __future__ import annotations

from collections.abc import Callable

from gpufleet.policies.props import get
from gpufleet.policies.storage._buckets import Bucket, encryptions, is_kms, walk
from gpufleet.policies.storage._shared import Replication

# GF-DR-001.
REPLICATION_REMEDIATION = (
    "add an oss.BucketReplication with a "
    "destination location in another region and, for a KMS-encrypted bucket, "
    "source_selection_criteria.sse_kms_encrypted_objects Enabled."
)


def replication_copies_nothing(
    bucket: Bucket, replication: Replication, destination: Callable[[], Bucket | None]
) -> str | None:
    """OSS skips KMS-encrypted objects unless the replication selects them."""
    if any(is_kms(bucket.cloud, e.algorithm) for e in encryptions(bucket)):
        statuses = [
            str(get(c, "status") or "")
            for c in walk(replication.source.props, "sourceSelectionCriteria", "sseKmsEncryptedObjects")
        ]
        if not any(status.lower() == "enabled" for status in statuses):
            return (
                f"{bucket.label} is KMS-encrypted, but its oss.BucketReplication "
                f"'{replication.source.name}' does not set sourceSelectionCriteria.sseKmsEncryptedObjects "
                "to Enabled: OSS skips KMS-encrypted objects, so nothing is replicated"
            )
    return None


# GF-DR-002.
POOL_TYPES = frozenset({"alicloud:ess/scalingGroup:ScalingGroup"})
POOL_NAME = "alicloud.ess.ScalingGroup"
