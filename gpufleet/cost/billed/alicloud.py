"""Alibaba Cloud resources the cost estimate reads beside the pools (tokens of pulumi-alicloud)."""

from __future__ import annotations

from gpufleet.cost.billed import BilledTypes

BILLED = BilledTypes(
    nat_gateways=("alicloud:vpc/natGateway:NatGateway",),
    vpn_connections=("alicloud:vpn/gateway:Gateway",),
    dedicated_interfaces={
        "alicloud:expressconnect/virtualBorderRouter:VirtualBorderRouter": "physicalConnectionId"
    },
    volumes={"alicloud:ecs/ecsDisk:EcsDisk": "size", "alicloud:ecs/disk:Disk": "size"},
)
