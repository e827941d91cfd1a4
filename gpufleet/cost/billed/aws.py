"""AWS resources the cost estimate reads beside the pools (tokens of pulumi-aws)."""

from __future__ import annotations

from gpufleet.cost.billed import BilledTypes

BILLED = BilledTypes(
    nat_gateways=("aws:ec2/natGateway:NatGateway",),
    vpn_connections=("aws:ec2/vpnConnection:VpnConnection",),
    dedicated_interfaces={
        "aws:directconnect/privateVirtualInterface:PrivateVirtualInterface": "connectionId"
    },
    volumes={"aws:ebs/volume:Volume": "size"},
    schedules=("aws:autoscaling/schedule:Schedule",),
    vpc_endpoints=("aws:ec2/vpcEndpoint:VpcEndpoint",),
)
