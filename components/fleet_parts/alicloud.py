"""Alibaba Cloud's part of the fleet (see :mod:`gpufleet.components.fleet_parts`): with
``burst.publishers.alicloud``, the on-prem exporter also publishes the gated Alibaba pools' backlog, as
the home Alibaba site's publisher
(:class:`gpufleet.components.identity.alicloud_publisher.AlicloudBurstPublisher`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from gpufleet.components.baseline.exporter import AlicloudPublishing
    from gpufleet.components.identity.alicloud_publisher import AlicloudBurstPublisher
    from gpufleet.components.pools.burst import Gate
    from gpufleet.components.sites import Site
    from gpufleet.components.spec import FleetSpec

IMAGE_FIELDS = "image.id"


def exporter_publishing(
    name: str, spec: FleetSpec, gates: Mapping[str, Gate], home: Site | None
) -> AlicloudPublishing | None:
    """What the exporter publishes on Alibaba Cloud: every gated Alibaba pool's queue by site, with the
    home site's publisher role and OIDC provider; None without ``burst.publishers.alicloud``."""
    from gpufleet.components.baseline.exporter import (
        NAMESPACE,
        AlicloudGatedPool,
        AlicloudPublishing,
        AlicloudSignalSite,
    )
    from gpufleet.components.fleet import FleetError

    settings = spec.burst.publishers.alicloud if spec.burst is not None else None
    found = home.burst_publisher if home is not None else None
    if settings is None or found is None:
        return None
    publisher = cast("AlicloudBurstPublisher", found)
    runs_as = f"{NAMESPACE}/{name}-signal-exporter"
    if settings.service_account != runs_as:
        raise FleetError(
            f"burst.publishers.alicloud.service_account: {settings.service_account!r} is not the exporter's "
            f"service account {runs_as!r}: the RAM role would trust a token the exporter never holds; "
            f"set service_account: {runs_as}"
        )
    pools: dict[str, list[AlicloudGatedPool]] = {}
    for pool, gate in sorted(gates.items()):
        cloud, _, region = gate.site.partition(":")
        if cloud == "alicloud" and pool in spec.pools:
            pools.setdefault(gate.site, []).append(
                AlicloudGatedPool(pool=pool, queue=f"{name}-{region}-{pool}")
            )
    sites = [
        AlicloudSignalSite(
            site=site,
            region=site.partition(":")[2],
            ahead=next(g.ahead for g in gates.values() if g.site == site),
            pools=tuple(found),
        )
        for site, found in sorted(pools.items())
    ]
    return AlicloudPublishing(
        sites=sites,
        role_arn=publisher.role_arn,
        oidc_provider_arn=publisher.oidc_provider_arn,
        client_id=settings.client_id,
        service_account=settings.service_account,
    )
