"""Which availability zones a region's pools use: those that offer the pools' instance types and
the VPC endpoint services the network needs.

A region's first N zones are often the wrong ones for GPUs: p4d and p5 are offered in a few zones of
a region only, and a subnet in a zone without the pool's types leaves the Auto Scaling group failing
launches there forever. An interface endpoint cannot be placed in a subnet of a zone its service does
not support (some older zones lack some services), and the endpoint then fails to create. Zones are
taken in the region's own order, keeping those where every pool of the region has at least one of
its instance types on offer and every endpoint service is available.

The endpoint services' zones are looked up through the stack's default provider, so only in the home
region: pulumi-aws's ``get_vpc_endpoint_service`` takes no ``region`` (a second region would need an
explicit provider, which does not inherit the stack's ``aws:`` credentials config).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import pulumi
import pulumi_aws as aws

from gpufleet.components.network.zone_pick import pick_zones


def zones_for_pools(
    parent: pulumi.Resource,
    region: str,
    count: int,
    pools: Sequence[Sequence[str]],
    endpoint_services: Sequence[str] = (),
) -> list[pulumi.Output[str]]:
    """``count`` zone names of ``region`` chosen by :func:`pick_zones`, from the region's available
    zones, its instance type offerings and, for ``endpoint_services`` (short names like "ssm"; the
    home region only, see the module docstring), the zones each interface endpoint service supports."""
    invoke = pulumi.InvokeOutputOptions(parent=parent)
    names = aws.get_availability_zones_output(state="available", region=region, opts=invoke).names
    types = sorted({t for pool in pools for t in pool})
    offerings = aws.ec2.get_instance_type_offerings_output(
        location_type="availability-zone",
        filters=[aws.ec2.GetInstanceTypeOfferingsFilterArgs(name="instance-type", values=types)],
        region=region,
        opts=invoke,
    )

    service_zones = [
        aws.ec2.get_vpc_endpoint_service_output(
            service_name=f"com.amazonaws.{region}.{service}", service_type="Interface", opts=invoke
        ).availability_zones
        for service in endpoint_services
    ]

    def choose(found: list[list[str]]) -> list[str]:
        endpoint_zones = dict(zip(endpoint_services, found[3:], strict=True))
        offered = zip(found[1], found[2], strict=True)
        return pick_zones(found[0], offered, pools, count, region, endpoint_zones=endpoint_zones)

    chosen: pulumi.Output[list[str]] = pulumi.Output.all(
        names, offerings.instance_types, offerings.locations, *service_zones
    ).apply(choose)
    return [chosen.apply(partial(_nth, index)) for index in range(count)]


def _nth(index: int, zones: list[str]) -> str:
    return zones[index]
