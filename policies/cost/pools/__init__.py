"""The GPU pool model: every GPU pool a program writes with the raw SDKs, described one way.

A *pool* is capacity that bills by the GPU hour: an AWS auto scaling group, EC2 fleet, spot fleet,
EKS node group, Batch compute environment (sized in vCPUs), standalone instance or spot request; an
Alibaba ESS scaling group, ACK node pool or standalone ECS instance (set); a Tencent AS scaling group,
TKE node pool or standalone CVM. `discover_pools` joins each pool to what
shapes its cost (launch template / launch configuration / scaling configuration, scaling policies and
the alarms that fire them, scheduled actions) and returns frozen `Pool` records. The cost rules
(GF-COST-003..008) and the cost estimate read pools, never raw resources.

Joins use, in order: the engine's property dependencies (a reference `group.name` in a policy's
`autoscalingGroupName` is an unknown string at preview, but the dependency names the group), then
literal names/ids matched against the target's own inputs and logical name. Every index is built
once per stack.

Values unknown at preview are kept as `None` and recorded in `Pool.unknown` (field -> wire path and
sentinel) so a rule that needs one can say it could not be judged instead of passing.

The parts, one a file: `tokens` (type tokens), `model` (`Pool`, `ScalingSignal`, `ScheduledAction`),
`reading` (props with unknowns), `index` (the resource index), `scaling` (policies and rules as
signals), `attachments` (what joins each pool), `builders` (shared by the clouds), `families` (bare
AWS families and vCPU budgets against the catalogue), `aws`, `alicloud` and `tencentcloud` (each
cloud's pools), `discovery` (`discover_pools`) and `pricing` (the hourly envelope).
"""

from __future__ import annotations

from gpufleet.policies.cost.pools.discovery import discover_pools
from gpufleet.policies.cost.pools.index import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.model import (
    POOL_KINDS,
    InstanceTypeLike,
    Pool,
    PriceLike,
    ScalingSignal,
    ScheduledAction,
)
from gpufleet.policies.cost.pools.pricing import (
    HOURS_PER_MONTH,
    Envelope,
    PriceLine,
    hourly_envelope,
    monthly_estimate,
    unknown_number,
)
from gpufleet.policies.cost.pools.tokens import (
    ALI_ESS_ALARM,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    ALI_NODE_POOL,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
    ALI_SCHEDULE,
    ALI_SCHEDULED_TASK,
    AWS_APPAS_POLICY,
    AWS_APPAS_SCHEDULED_ACTION,
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_ASG_SCHEDULE,
    AWS_BATCH_COMPUTE,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_METRIC_ALARM,
    AWS_SPOT_FLEET,
    AWS_SPOT_REQUEST,
    CLUSTER_SCALED_TYPES,
    POOL_TYPES,
    SCALABLE_TYPES,
    SPOT_FLEET_DIMENSION,
    TC_ALARM_POLICY,
    TC_INSTANCE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
    TC_SCALING_GROUP,
    TC_SCALING_POLICY,
    TC_SCHEDULE,
)

__all__ = [
    "ALI_ESS_ALARM",
    "ALI_INSTANCE",
    "ALI_INSTANCE_SET",
    "ALI_LAUNCH_TEMPLATES",
    "ALI_NODE_POOL",
    "ALI_SCALING_CONFIGURATION",
    "ALI_SCALING_GROUP",
    "ALI_SCALING_RULE",
    "ALI_SCHEDULE",
    "ALI_SCHEDULED_TASK",
    "AWS_APPAS_POLICY",
    "AWS_APPAS_SCHEDULED_ACTION",
    "AWS_APPAS_TARGET",
    "AWS_ASG",
    "AWS_ASG_POLICY",
    "AWS_ASG_SCHEDULE",
    "AWS_BATCH_COMPUTE",
    "AWS_EKS_NODE_GROUP",
    "AWS_FLEET",
    "AWS_INSTANCE",
    "AWS_LAUNCH_CONFIGURATION",
    "AWS_LAUNCH_TEMPLATE",
    "AWS_METRIC_ALARM",
    "AWS_SPOT_FLEET",
    "AWS_SPOT_REQUEST",
    "CLUSTER_SCALED_TYPES",
    "HOURS_PER_MONTH",
    "POOL_KINDS",
    "POOL_TYPES",
    "SCALABLE_TYPES",
    "SPOT_FLEET_DIMENSION",
    "TC_ALARM_POLICY",
    "TC_INSTANCE",
    "TC_NODE_POOL",
    "TC_SCALING_CONFIG",
    "TC_SCALING_GROUP",
    "TC_SCALING_POLICY",
    "TC_SCHEDULE",
    "Envelope",
    "InstanceTypeLike",
    "Pool",
    "PriceLike",
    "PriceLine",
    "ResourceIndex",
    "ResourceView",
    "ScalingSignal",
    "ScheduledAction",
    "discover_pools",
    "hourly_envelope",
    "monthly_estimate",
    "unknown_number",
]
