"""Tencent Cloud compute resources as the access rules see them (`gpufleet.policies.access.compute`):
their type tokens, labels in messages, where each keeps its instance types and the launch templates and
launch configurations each takes its settings from.

CVM instances and instance sets, CVM launch templates, AS scaling groups and their launch
configurations (`As/scalingConfig`), and TKE node pools.
"""

from __future__ import annotations

from gpufleet.policies.access.links import Link

TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_INSTANCE_SET = "tencentcloud:Instance/set:Set"
TC_LAUNCH_TEMPLATE = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

LABELS = {
    TC_INSTANCE: "CVM instance",
    TC_INSTANCE_SET: "CVM instance set",
    TC_LAUNCH_TEMPLATE: "CVM launch template",
    TC_SCALING_CONFIG: "AS launch configuration",
    TC_SCALING_GROUP: "AS scaling group",
    TC_NODE_POOL: "TKE node pool",
}

# Where each kind keeps its own instance types ("*" walks a list).
TYPE_PATHS: dict[str, tuple[str, ...]] = {
    TC_INSTANCE: ("instanceType",),
    TC_INSTANCE_SET: ("instanceType",),
    TC_LAUNCH_TEMPLATE: ("instanceType",),
    TC_SCALING_CONFIG: ("instanceTypes.*",),
    TC_SCALING_GROUP: (),
    TC_NODE_POOL: ("autoScalingConfig.instanceType", "autoScalingConfig.backupInstanceTypes.*"),
}

# user -> the resources it takes its launch settings from
LINKS: dict[str, tuple[Link, ...]] = {
    TC_INSTANCE: (Link(("launchTemplateId",), "launchTemplateId", (TC_LAUNCH_TEMPLATE,)),),
    TC_SCALING_GROUP: (Link(("configurationId",), "configurationId", (TC_SCALING_CONFIG,)),),
}
