"""Tencent Cloud's part of the fleet (see :mod:`gpufleet.components.fleet_parts`)."""

from __future__ import annotations

IMAGE_FIELDS = "image.id"


def join_warnings() -> list[str]:
    """Joined Tencent pools need the TKE cluster-autoscaler provider's prerequisites
    (:data:`gpufleet.components.pools.tencentcloud_join.TKE_REQUIRED`)."""
    from gpufleet.components.pools.tencentcloud_join import TKE_REQUIRED

    return [TKE_REQUIRED]
