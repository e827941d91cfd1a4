"""The zone choice under its former name, for modules not yet moved to :mod:`.zone_pick` (cloud-neutral
``pick_zones``) and :mod:`.aws_zones` (AWS lookups, ``zones_for_pools``)."""

from __future__ import annotations

from gpufleet.components.network.aws_zones import zones_for_pools
from gpufleet.components.network.zone_pick import ZoneError, pick_zones

__all__ = ["ZoneError", "pick_zones", "zones_for_pools"]
