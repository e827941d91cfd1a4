"""Resilience policies: checkpoint replication and multi-location burst capacity."""

from gpufleet.policies.resilience import checkpoint_replication, multi_location_pools
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [checkpoint_replication.POLICY, multi_location_pools.POLICY]
