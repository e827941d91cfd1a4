"""Which availability zones a region's pools use, decided from lookups any cloud can make: the zones
that offer every pool one of its instance types (and, where asked, every endpoint service).

Cloud-neutral and SDK-free: the AWS network looks zones up in :mod:`gpufleet.components.network.aws_zones`,
Alibaba and Tencent in their own network modules, and all choose through :func:`pick_zones`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


class ZoneError(Exception):
    """The region has fewer zones that offer the pools' instance types than the network asks for."""


def pick_zones(
    zone_names: Sequence[str],
    offered: Iterable[tuple[str, str]],
    pools: Sequence[Sequence[str]],
    count: int,
    region: str,
    *,
    endpoint_zones: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The first ``count`` of ``zone_names`` where each pool (a list of instance types) has a type on
    offer and each endpoint service (``endpoint_zones``: service -> its zones) is available;
    ``offered`` holds (instance type, zone) pairs. Raises ZoneError naming what is missing."""
    by_zone: dict[str, set[str]] = {}
    for instance_type, zone in offered:
        by_zone.setdefault(zone, set()).add(instance_type)
    services = endpoint_zones or {}
    typed = [zone for zone in zone_names if all(by_zone.get(zone, set()) & set(types) for types in pools)]
    fit = [zone for zone in typed if all(zone in zones for zones in services.values())]
    if len(fit) < count:
        wanted = "; ".join(" or ".join(types) for types in pools)
        found = ", ".join(fit) or "none"
        lacking = sorted({s for zone in typed for s, zones in services.items() if zone not in zones})
        endpoints = f" and the endpoint services ({', '.join(sorted(services))})" if services else ""
        missing = f"; {', '.join(lacking)} not in every zone" if lacking else ""
        raise ZoneError(
            f"{region}: {count} availability zones asked for, but only {len(fit)} offer the pools' instance "
            f"types ({wanted}){endpoints}: {found}{missing}. Lower the network's availability_zones or "
            "choose types offered in more zones"
        )
    return fit[:count]
