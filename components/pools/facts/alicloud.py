"""Alibaba Cloud's pool facts (see :mod:`gpufleet.components.pools.facts`).

The alarm itself cannot AND the signal (one CloudMonitor project per alarm): with
``burst.publishers.alicloud`` the exporter publishes ``GatedBacklog`` and the queue alarms watch it
(:mod:`gpufleet.components.pools.burst_custom`). A joined node's provider id is the form
alicloud_cloud_provider.go ``ecsInstanceIdFromProviderId`` reads: "must be in format REGION.INSTANCE_ID"
(split on "."; the second part is the instance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.spec.burst import Burst

ENFORCEMENT = "not-enforced"
PROVIDER_ID = "{region}.{instance}"


def describe_gate(burst: Burst) -> str:
    """How an Alibaba site's pools are held back, for ``gpufleet plan``'s burst-order lines."""
    from gpufleet.components.pools.burst_custom import GATED_METRIC

    settings = burst.publishers.alicloud
    if settings is None:
        return (
            "not gated: scale-out on the pools' own queue (set burst.publishers.alicloud to gate it on "
            "the exporter's GatedBacklog); see docs/burst-order.md"
        )
    return (
        f"queue scale-out gated on the exporter's {GATED_METRIC} (acs_customMetric); if it is silent, "
        f"the raw queue alarm bursts after {settings.fallback_after_s}s; GPU alarms not gated"
    )
