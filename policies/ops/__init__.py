"""Operability policies: the program deploys on a fresh account and its scaling can fire."""

from gpufleet.policies.ops import (
    account_singletons,
    pending_key_material,
    principals_exist,
    scale_in_cooldown,
    scaling_metric_published,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    scaling_metric_published.POLICY,
    principals_exist.POLICY,
    scale_in_cooldown.POLICY,
    account_singletons.POLICY,
    pending_key_material.POLICY,
]
