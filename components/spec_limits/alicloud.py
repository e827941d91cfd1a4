"""Alibaba Cloud's limits the fleet spec checks of its pools (``gpufleet.components.spec_limits``)."""

from __future__ import annotations

import re

# Container Registry's VPC endpoints, which an ECS instance in a VPC of the same region pulls from without
# Internet access: the Personal Edition's ``registry-vpc.<region>.aliyuncs.com`` and an Enterprise
# Edition instance's ``<instance>-registry-vpc.<region>.cr.aliyuncs.com`` (reachable once the instance's
# VPC access names the pool's VPC). Source: Container Registry, "Configure access over VPCs"
# (https://www.alibabacloud.com/help/en/acr/user-guide/configure-access-over-vpcs).
ACR_VPC_IMAGE_RE = re.compile(
    r"^(?:[a-z0-9][a-z0-9-]*-)?registry-vpc\.(?P<region>[a-z0-9-]+)\.(?:cr\.)?aliyuncs\.com/"
)


HOME_REGISTRY = "Container Registry (ACR) in the pool's region"
"""Where a pool's images belong when they are private (named when a private ECR image is refused)."""


def image_route_problem(image: str, egress: str, region: str | None = None) -> str | None:
    """Why a private vSwitch of the fleet's network (``egress`` none or endpoints: no NAT gateway) in
    ``region`` cannot pull ``image``: only Container Registry's VPC endpoints of that region answer there."""
    match = ACR_VPC_IMAGE_RE.match(image)
    if match and region is not None and match["region"] != region:
        return (
            f"is on Container Registry's VPC endpoint in {match['region']}, and a VPC endpoint answers "
            f"only inside its own region ({region}), with network.egress {egress} giving no other way "
            f"out: pull from registry-vpc.{region}.aliyuncs.com (a replica of the repository in the "
            "pool's region), or set network.egress: nat"
        )
    if match:
        return None
    return (
        f"is not on a Container Registry VPC endpoint (registry-vpc.<region>.aliyuncs.com, or an "
        f"Enterprise instance's <instance>-registry-vpc.<region>.cr.aliyuncs.com), and network.egress "
        f"{egress} gives the private vSwitches no route to another registry: set network.egress: nat, or "
        "push the image to Container Registry in the pool's region and pull it through its VPC endpoint"
    )
