"""GF-ACC-005 on Tencent Cloud: `allocatePublicIp` on CVM instances and instance sets (bandwidth alone
assigns no address), `publicIpAssigned` on AS launch configurations,
`internetAccessible.publicIpAssigned` on CVM launch templates, `autoScalingConfig.publicIpAssigned` on
TKE node pools; and EIP associations bound to a GPU instance."""

from __future__ import annotations

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.gpu_no_public_ip.words import BOOL
from gpufleet.policies.access.tencentcloud import (
    TC_INSTANCE,
    TC_INSTANCE_SET,
    TC_LAUNCH_TEMPLATE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
)

TC_EIP_ASSOCIATION = "tencentcloud:Eip/association:Association"

# (path, kind): a truthy boolean, or a bandwidth above 0
PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    TC_INSTANCE: (("allocatePublicIp", BOOL),),
    TC_INSTANCE_SET: (("allocatePublicIp", BOOL),),
    TC_SCALING_CONFIG: (("publicIpAssigned", BOOL),),
    TC_LAUNCH_TEMPLATE: (("internetAccessible.publicIpAssigned", BOOL),),
}
POOL_PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    TC_NODE_POOL: (("autoScalingConfig.publicIpAssigned", BOOL),),
}
# (type, label, link to the instance): what binds a public IP to an instance
BINDINGS = ((TC_EIP_ASSOCIATION, "EIP association", c.Link(("instanceId",), "instanceId", (TC_INSTANCE,))),)
REMEDIATION = (
    "Tencent: set `allocatePublicIp: false` on the Instance, `publicIpAssigned: false` on the As "
    "ScalingConfig and the Cvm LaunchTemplate `internetAccessible` and the Kubernetes NodePool "
    "`autoScalingConfig`, and bind no EIP."
)
