"""Which availability zones a region's pools use: those that offer the pools' instance types.

A region's first N zones are often the wrong ones for GPUs: p4d and p5 are offered in a few zones of
a region only, and a subnet in a zone without the pool's types leaves the Auto Scaling group failing
launches there forever. Zones are taken in the region's own order, keeping those where every pool of
the region has at least one of its instance types on offer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial

import pulumi
import pulumi_aws as aws


class ZoneError(Exception):
    """The region has fewer zones that offer the pools' instance types than the network asks for."""


def pick_zones(
    zone_names: Sequence[str],
    offered: Iterable[tuple[str, str]],
    pools: Sequence[Sequence[str]],
    count: int,
    region: str,
) -> list[str]:
    """The first ``count`` of ``zone_names`` where each pool (a list of instance types) has a type on
    offer; ``offered`` holds (instance type, zone) pairs. Raises ZoneError naming what is missing."""
    by_zone: dict[str, set[str]] = {}
    for instance_type, zone in offered:
        by_zone.setdefault(zone, set()).add(instance_type)
    fit = [zone for zone in zone_names if all(by_zone.get(zone, set()) & set(types) for types in pools)]
    if len(fit) < count:
        wanted = "; ".join(" or ".join(types) for types in pools)
        found = ", ".join(fit) or "none"
        raise ZoneError(
            f"{region}: {count} availability zones asked for, but only {len(fit)} offer the pools' instance "
            f"types ({wanted}): {found}. Lower the network's availability_zones or choose types offered "
            "in more zones"
        )
    return fit[:count]


def zones_for_pools(
    parent: pulumi.Resource, region: str, count: int, pools: Sequence[Sequence[str]]
) -> list[pulumi.Output[str]]:
    """``count`` zone names of ``region`` chosen by :func:`pick_zones`, from the region's available
    zones and its instance type offerings."""
    invoke = pulumi.InvokeOutputOptions(parent=parent)
    names = aws.get_availability_zones_output(state="available", region=region, opts=invoke).names
    types = sorted({t for pool in pools for t in pool})
    offerings = aws.ec2.get_instance_type_offerings_output(
        location_type="availability-zone",
        filters=[aws.ec2.GetInstanceTypeOfferingsFilterArgs(name="instance-type", values=types)],
        region=region,
        opts=invoke,
    )

    def choose(found: list[list[str]]) -> list[str]:
        return pick_zones(found[0], zip(found[1], found[2], strict=True), pools, count, region)

    chosen: pulumi.Output[list[str]] = pulumi.Output.all(
        names, offerings.instance_types, offerings.locations
    ).apply(choose)
    return [chosen.apply(partial(_nth, index)) for index in range(count)]


def _nth(index: int, zones: list[str]) -> str:
    return zones[index]
