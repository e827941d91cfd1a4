"""Tencent Cloud facts of the resilience rules: burst pool types, how a scaling group's zones reveal
its region, GF-DR-001's remediation, and when a COS replication copies nothing."""

from __future__ import annotations

import re
from collections.abc import Callable

from gpufleet.policies.props import get_ref
from gpufleet.policies.storage._buckets import Bucket, is_versioned
from gpufleet.policies.storage._shared import Replication

# (input listing a pool's zones, zone name pattern whose group 1 is the region): `ap-guangzhou-3`.
ZONE_PATTERNS = (("zones", re.compile(r"^([a-z]{2}-[a-z]+)-\d+$")),)

# GF-DR-001.
REPLICATION_REMEDIATION = (
    "set the COS bucket's "
    "replicaRole and replicaRules to a versioned bucket in another region (versioning on both)."
)


def replication_copies_nothing(
    bucket: Bucket, replication: Replication, destination: Callable[[], Bucket | None]
) -> str | None:
    """COS replicates only between versioned buckets, as the identity `replicaRole` names."""
    if not is_versioned(bucket):
        return (
            f"{bucket.label} has replicaRules but versioningEnable is not true: COS replicates only "
            "from a versioned bucket"
        )
    target = destination()
    if target is not None and not is_versioned(target):
        return (
            f"{bucket.label} replicates into {target.label}, which is not versioned: COS replicates "
            "only into a versioned bucket (set its versioningEnable: true)"
        )
    if get_ref(bucket.props, "replicaRole") in (None, ""):
        return f"{bucket.label} has replicaRules but no replicaRole: COS needs the identity it replicates as"
    return None


# GF-DR-002.
POOL_TYPES = frozenset({"tencentcloud:As/scalingGroup:ScalingGroup"})
POOL_NAME = "tencentcloud.as.ScalingGroup"
