"""Tencent Cloud resources the cost estimate reads beside the pools (tokens of tencentcloud-iac-pulumi)."""

from __future__ import annotations

from gpufleet.cost.billed import BilledTypes

BILLED = BilledTypes(
    nat_gateways=("tencentcloud:Nat/gateway:Gateway",),
    vpn_connections=("tencentcloud:Vpn/gateway:Gateway",),
    dedicated_interfaces={"tencentcloud:Dcx/instance:Instance": "dcId"},
    volumes={"tencentcloud:Cbs/storage:Storage": "storageSize"},
    schedules=("tencentcloud:As/schedule:Schedule",),
)
