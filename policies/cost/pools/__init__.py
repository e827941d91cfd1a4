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

The parts, one a file: `tokens` (type tokens, one module a cloud: a cloud's constants such as
`AWS_ASG` are imported from its module there), `model` (`Pool`, `ScalingSignal`, `ScheduledAction`),
`reading` (props with unknowns), `index` (the resource index), `scaling` (policies and rules as
signals), `attachments` (what joins each pool), `builders` (shared by the clouds), `families` (bare
AWS families and vCPU budgets against the catalogue), `aws`, `alicloud` and `tencentcloud` (each
cloud's pool builders, with its scaling joins in `<cloud>_scaling`), `discovery` (`discover_pools`)
and `pricing` (the hourly envelope).
"""

from __future__ import annotations

from gpufleet.policies.cost.pools.discovery import discover_pools
from gpufleet.policies.cost.pools.index import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.model import (
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
    CLUSTER_SCALED_TYPES,
    POOL_KINDS,
    POOL_TYPES,
    SCALABLE_TYPES,
)

__all__ = [
    "CLUSTER_SCALED_TYPES",
    "HOURS_PER_MONTH",
    "POOL_KINDS",
    "POOL_TYPES",
    "SCALABLE_TYPES",
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
