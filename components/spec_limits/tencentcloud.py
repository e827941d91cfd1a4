"""Tencent Cloud's limits the fleet spec checks of its pools (``gpufleet.components.spec_limits``)."""

from __future__ import annotations


def image_route_problem(image: str, egress: str) -> str | None:
    """Why a private subnet of the fleet's network (``egress`` none or endpoints: no NAT gateway) cannot
    pull ``image``. The network reaches COS, CLS, CMQ, KMS and TAT on their private endpoints only
    (components/network/tencentcloud.py); no registry is among them, and the reference worker's Auto
    Scaling calls (as.<region>.tencentcloudapi.com) need a way out as well."""
    return (
        f"network.egress {egress} gives the private subnets no route to a registry (the network reaches "
        "COS, CLS, CMQ, KMS and TAT on private endpoints only): set network.egress: nat"
    )
