"""What a stack's GPU pools need before they launch, from its offline graph: the vCPUs each quota must
allow at maximum size, and what each pool pays an hour per instance on spot and on demand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpufleet.analyzer_inputs import default_stack_tags
from gpufleet.components.clouds import as_cloud, cloud_parts
from gpufleet.evaluate import stack_policy_resources
from gpufleet.graph import ResourceGraph
from gpufleet.policies.cost.pools import Pool, ResourceIndex, discover_pools
from gpufleet.policies.fit._facts import declared_fit, entries
from gpufleet.policies.fit.quotas import Need, needs
from gpufleet.policies.gpu import current_catalog

# What a link from each cloud's sites carries (LINK_CARRIES), and whether a link may be named by the bare
# region (BARE_REGION_LINKS): gpufleet/preflight/<cloud>.py.
_PARTS = cloud_parts("gpufleet.preflight")
_GATEWAY_CARRIES = "its VPN gateway carries its bandwidth spec (at most 1 Gbps)"
DISTRIBUTED_GBPS = 10.0


def graph_pools(graph: ResourceGraph) -> tuple[list[Pool], ResourceIndex]:
    resources = stack_policy_resources(graph)
    index = ResourceIndex(resources)
    pools = discover_pools(resources, current_catalog(), default_stack_tags(graph), index=index)
    return pools, index


def quota_needs(graph: ResourceGraph) -> tuple[list[Need], list[str]]:
    pools, _ = graph_pools(graph)
    return needs(pools, current_catalog())


@dataclass(frozen=True)
class PriceRow:
    pool: str
    instance_type: str
    region: str
    spot: float | None
    on_demand: float | None
    currency: str
    buys: str  # spot | on-demand | mixed


def prices(graph: ResourceGraph, currency: str | None = None) -> list[PriceRow]:
    """Spot and on-demand hourly price per instance of each pool's types in its region (in `currency`,
    else the catalogue's currency of the price)."""
    catalog = current_catalog()
    pools, _ = graph_pools(graph)
    rows: list[PriceRow] = []
    for pool in pools:
        spot = pool.spot_percent or 0.0
        buys = "spot" if spot >= 100 and not pool.on_demand_base else "on-demand" if spot <= 0 else "mixed"
        for name, entry in entries(pool, catalog):
            if entry is None or pool.region is None or pool.region not in entry.on_demand:
                rows.append(PriceRow(pool.name, name, pool.region or "?", None, None, currency or "", buys))
                continue
            od, sp = entry.hourly(pool.region), entry.hourly(pool.region, spot=True)
            to = currency or od.currency
            rows.append(
                PriceRow(
                    pool.name,
                    name,
                    pool.region,
                    catalog.convert(sp.amount, sp.currency, to) if catalog else sp.amount,
                    catalog.convert(od.amount, od.currency, to) if catalog else od.amount,
                    to,
                    buys,
                )
            )
    return rows


def distributed_over_links(graph: ResourceGraph, fits: Mapping[str, Any], links: list[str]) -> list[str]:
    """Lines saying, for each distributed pool whose site has a private link, what the link carries
    beside the 10 Gbps distributed work needs."""
    if not links:
        return []
    pools, index = graph_pools(graph)
    lines: list[str] = []
    for pool in pools:
        fit = declared_fit(pool, index, fits)
        if fit is None or not fit.distributed:
            continue
        site = f"{pool.cloud}:{pool.region}"
        cloud = as_cloud(pool.cloud)
        part = _PARTS.get(cloud) if cloud is not None else None
        if site not in links and not (getattr(part, "BARE_REGION_LINKS", False) and pool.region in links):
            continue
        carries = str(getattr(part, "LINK_CARRIES", _GATEWAY_CARRIES))
        lines.append(
            f"{pool.name} is distributed and bursts from on-prem over the {site} link: {carries}, "
            f"against the {DISTRIBUTED_GBPS:g} Gbps distributed work needs; keep each job inside one site"
        )
    return lines
