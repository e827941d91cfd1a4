"""GF-ACC-005 on Alibaba Cloud: `internetMaxBandwidthOut` > 0 (which allocates a public IP) or the
deprecated `allocatePublicIp` on ECS instances, instance sets, the launch templates and ESS scaling
configurations; on ACK node pools `internetMaxBandwidthOut` > 0 or `scalingConfig.isBondEip` (an EIP per
node); and EIP associations bound to a GPU instance."""

from __future__ import annotations

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.alicloud import (
    ALI_ECS_LAUNCH_TEMPLATE,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATE,
    ALI_NODE_POOL,
    ALI_SCALING_CONFIGURATION,
)
from gpufleet.policies.access.gpu_no_public_ip.words import BANDWIDTH, BOOL

ALI_EIP_ASSOCIATION = "alicloud:ecs/eipAssociation:EipAssociation"

# (path, kind): a truthy boolean, or a bandwidth above 0
PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    ALI_INSTANCE: (("internetMaxBandwidthOut", BANDWIDTH), ("allocatePublicIp", BOOL)),
    ALI_INSTANCE_SET: (("internetMaxBandwidthOut", BANDWIDTH),),
    ALI_LAUNCH_TEMPLATE: (("internetMaxBandwidthOut", BANDWIDTH),),
    ALI_ECS_LAUNCH_TEMPLATE: (("internetMaxBandwidthOut", BANDWIDTH),),
    ALI_SCALING_CONFIGURATION: (("internetMaxBandwidthOut", BANDWIDTH),),
}
POOL_PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    ALI_NODE_POOL: (("internetMaxBandwidthOut", BANDWIDTH), ("scalingConfig.isBondEip", BOOL)),
}
# (type, label, link to the instance): what binds a public IP to an instance
BINDINGS = ((ALI_EIP_ASSOCIATION, "EIP association", c.Link(("instanceId",), "instanceId", (ALI_INSTANCE,))),)
REMEDIATION = (
    "Alibaba: set `internetMaxBandwidthOut: 0` on the ecs Instance, launch template, ess "
    "ScalingConfiguration or cs NodePool (and no `scalingConfig.isBondEip`) and bind no EIP."
)
