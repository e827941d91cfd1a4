"""Alibaba Cloud pool facts: the type tokens of every ESS, ECS and ACK resource that is a pool or
shapes one, which of them are pools (and which scale, and which a cluster sizes) and how findings name
each kind. Plain data, read through :func:`gpufleet.components.clouds.cloud_parts` by the neutral pool
model."""

from __future__ import annotations

ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_SCALING_RULE = "alicloud:ess/scalingRule:ScalingRule"
ALI_ESS_ALARM = "alicloud:ess/alarm:Alarm"
ALI_SCHEDULED_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
ALI_SCHEDULE = "alicloud:ess/schedule:Schedule"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
ALI_LAUNCH_TEMPLATES = (
    "alicloud:ecs/launchTemplate:LaunchTemplate",
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
)

# How a finding names each kind of pool (`Pool.kind`).
POOL_KINDS = {
    ALI_SCALING_GROUP: "ESS scaling group",
    ALI_INSTANCE: "ECS instance",
    ALI_INSTANCE_SET: "ECS instance set",
    ALI_NODE_POOL: "ACK node pool",
}
POOL_TYPES = frozenset(POOL_KINDS)
SCALABLE_TYPES = frozenset({ALI_SCALING_GROUP, ALI_NODE_POOL})
CLUSTER_SCALED_TYPES = frozenset({ALI_NODE_POOL})
