"""Alibaba Cloud compute resources as the access rules see them (`gpufleet.policies.access.compute`):
their type tokens, labels in messages, where each keeps its instance types and the launch templates and
scaling groups each takes its settings from.

ECS instances and instance sets, ECS launch templates (both resources), ESS scaling groups and their
scaling configurations (a configuration belongs to its group and takes nothing from a template), and
ACK node pools.
"""

from __future__ import annotations

from gpufleet.policies.access.links import Link

ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_LAUNCH_TEMPLATE = "alicloud:ecs/launchTemplate:LaunchTemplate"
ALI_ECS_LAUNCH_TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"

LABELS = {
    ALI_INSTANCE: "ECS instance",
    ALI_INSTANCE_SET: "ECS instance set",
    ALI_LAUNCH_TEMPLATE: "ECS launch template",
    ALI_ECS_LAUNCH_TEMPLATE: "ECS launch template",
    ALI_SCALING_CONFIGURATION: "ESS scaling configuration",
    ALI_SCALING_GROUP: "ESS scaling group",
    ALI_NODE_POOL: "ACK node pool",
}

# Where each kind keeps its own instance types ("*" walks a list).
TYPE_PATHS: dict[str, tuple[str, ...]] = {
    ALI_INSTANCE: ("instanceType",),
    ALI_INSTANCE_SET: ("instanceType",),
    ALI_LAUNCH_TEMPLATE: ("instanceType",),
    ALI_ECS_LAUNCH_TEMPLATE: ("instanceType",),
    ALI_SCALING_CONFIGURATION: ("instanceType", "instanceTypes.*", "instanceTypeOverrides.*.instanceType"),
    ALI_SCALING_GROUP: ("launchTemplateOverrides.*.instanceType",),
    ALI_NODE_POOL: ("instanceTypes.*",),
}

# kinds judged by their own instance types only (what they link to is where they belong, not a template)
OWN_TYPES_ONLY = (ALI_SCALING_CONFIGURATION,)

_TEMPLATES = (ALI_LAUNCH_TEMPLATE, ALI_ECS_LAUNCH_TEMPLATE)

# user -> the resources it takes its launch settings from
LINKS: dict[str, tuple[Link, ...]] = {
    ALI_INSTANCE: (
        Link(("launchTemplateId",), "launchTemplateId", _TEMPLATES),
        Link(("launchTemplateName",), "launchTemplateName", _TEMPLATES),
    ),
    ALI_INSTANCE_SET: (
        Link(("launchTemplateId",), "launchTemplateId", _TEMPLATES),
        Link(("launchTemplateName",), "launchTemplateName", _TEMPLATES),
    ),
    ALI_SCALING_GROUP: (Link(("launchTemplateId",), "launchTemplateId", _TEMPLATES),),
    # A scaling configuration belongs to its group: the group is where instances come from.
    ALI_SCALING_CONFIGURATION: (Link(("scalingGroupId",), "scalingGroupId", (ALI_SCALING_GROUP,)),),
}
