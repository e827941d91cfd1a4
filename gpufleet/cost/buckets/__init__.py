"""How the cost estimate reads each cloud's buckets: which types are buckets, the lifecycle that expires
the checkpoints, and the replications copying a bucket elsewhere.

Each registered cloud (``components/clouds.py``) declares its :class:`BucketReader` as ``READER`` in
the module named by its key (``gpufleet/cost/buckets/<key>.py``); :data:`READERS` maps key to them, in
the registry's order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from gpufleet.components.clouds import CLOUDS, Cloud
from gpufleet.cost.buckets.common import Lifecycle

# (graph, bucket, checkpoint prefix) -> the enabled rule expiring the prefix, or None.
LifecycleReader = Callable[[Any, Any, str], Lifecycle | None]
# (graph, source bucket, the checkpoint buckets) -> (replication config, destination bucket) pairs.
ReplicaReader = Callable[[Any, Any, Sequence[Any]], list[tuple[Any, Any]]]


@dataclass(frozen=True)
class BucketReader:
    """One cloud's bucket types and readers of their lifecycle and replication."""

    buckets: tuple[str, ...]
    lifecycle: LifecycleReader
    replicas: ReplicaReader


def _declared(key: str) -> BucketReader:
    found: BucketReader = importlib.import_module(f"{__name__}.{key}").READER
    return found


READERS: Mapping[Cloud, BucketReader] = MappingProxyType({key: _declared(key) for key in CLOUDS})
# Every cloud's bucket types, and the cloud of each.
BUCKETS: tuple[str, ...] = tuple(token for reader in READERS.values() for token in reader.buckets)
CLOUD_OF_BUCKET: Mapping[str, Cloud] = MappingProxyType(
    {token: cloud for cloud, reader in READERS.items() for token in reader.buckets}
)

__all__ = ["BUCKETS", "CLOUD_OF_BUCKET", "READERS", "BucketReader", "Lifecycle"]
