"""What a program registers beside its GPU pools that bills by the hour or by size: NAT gateways, VPN
connections, VPC interface endpoints, standalone volumes. A dedicated line's ports bill on a connection
the stack does not create: its virtual interfaces get a note, not a line."""

from __future__ import annotations

from typing import Any

from gpufleet.components.catalog import Catalog
from gpufleet.cost.billed import BILLED
from gpufleet.cost.model import OtherLine
from gpufleet.cost.other_lines import fixed_hourly_line, standalone_volume_line

# Type tokens of what bills by the hour or by size beside the pools, with their cloud (gpufleet.cost.billed).
_NAT_GATEWAYS = {token: cloud for cloud, billed in BILLED.items() for token in billed.nat_gateways}
_VPN_CONNECTIONS = {token: cloud for cloud, billed in BILLED.items() for token in billed.vpn_connections}
# The virtual interfaces a dedicated link builds on an existing line, and the input naming that line:
# the line's port hours (and its data transfer) bill on the connection, outside the stack.
_DEDICATED_INTERFACES = {
    token: connection
    for billed in BILLED.values()
    for token, connection in billed.dedicated_interfaces.items()
}
_VOLUMES = {
    token: (cloud, size) for cloud, billed in BILLED.items() for token, size in billed.volumes.items()
}


def _other_lines(
    graph: Any, catalog: Catalog, currency: str, source: str, notes: list[str]
) -> list[OtherLine]:
    lines: list[OtherLine] = []
    hourly = [("nat", "nat_gateway_hour", _NAT_GATEWAYS), ("vpn", "vpn_connection_hour", _VPN_CONNECTIONS)]
    for kind, key, tokens in hourly:
        for token, cloud in tokens.items():
            for resource in graph.of_type(token):
                where = f"{source}: {resource.urn}"
                lines.append(
                    fixed_hourly_line(
                        kind,
                        resource.name,
                        cloud=cloud,
                        key=key,
                        count=1,
                        catalog=catalog,
                        currency=currency,
                        where=where,
                    )
                )
    lines.extend(_endpoint_lines(graph, catalog, currency, source, notes))
    for token, connection_input in _DEDICATED_INTERFACES.items():
        for resource in graph.of_type(token):
            connection = resource.inputs.get(connection_input)
            shown = connection if isinstance(connection, str) else "(unknown)"
            notes.append(
                f"dedicated line {resource.name}: the port hours and data transfer of connection {shown} "
                "bill on that connection, which this stack does not create: not priced"
            )
    for token, (cloud, size_prop) in _VOLUMES.items():
        for resource in graph.of_type(token):
            size = resource.inputs.get(size_prop)
            if isinstance(size, int | float) and not isinstance(size, bool) and size > 0:
                lines.append(
                    standalone_volume_line(
                        resource.name,
                        cloud=cloud,
                        gib=float(size),
                        catalog=catalog,
                        currency=currency,
                        where=f"{source}: {resource.urn}",
                    )
                )
            else:
                notes.append(f"volume {resource.name}: size unknown: not priced")
    return lines


_ENDPOINT_PRICE = "interface_endpoint_az_hour"


def _endpoint_lines(
    graph: Any, catalog: Catalog, currency: str, source: str, notes: list[str]
) -> list[OtherLine]:
    """VPC interface endpoints bill per availability zone (one network interface per subnet) and
    hour; gateway endpoints (S3, DynamoDB) are free. Data processed is not priced."""
    lines: list[OtherLine] = []
    for cloud, billed in BILLED.items():
        endpoints = [
            r
            for r in graph.of_type(*billed.vpc_endpoints)
            if str(r.inputs.get("vpcEndpointType", "")).lower() == "interface"
        ]
        if not endpoints:
            continue
        services = catalog.service(cloud)
        if services is None or services.price(_ENDPOINT_PRICE) is None:
            notes.append(
                f"VPC interface endpoints not priced: the catalogue has no {cloud} {_ENDPOINT_PRICE}"
            )
            continue
        for resource in endpoints:
            subnets = resource.inputs.get("subnetIds")
            zones = len(subnets) if isinstance(subnets, list) and subnets else 1
            lines.append(
                fixed_hourly_line(
                    "endpoint",
                    resource.name,
                    cloud=cloud,
                    key=_ENDPOINT_PRICE,
                    count=zones,
                    catalog=catalog,
                    currency=currency,
                    where=f"{source}: {resource.urn}",
                )
            )
    return lines
