"""Tencent Cloud pool facts: the type tokens of every AS, CVM, TKE and Monitor resource that is a pool
or shapes one, which of them are pools (and which scale, and which a cluster sizes) and how findings
name each kind. Plain data, read through :func:`gpufleet.components.clouds.cloud_parts` by the neutral
pool model."""

from __future__ import annotations

TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_POLICY = "tencentcloud:As/scalingPolicy:ScalingPolicy"
TC_SCHEDULE = "tencentcloud:As/schedule:Schedule"
TC_ALARM_POLICY = "tencentcloud:Monitor/alarmPolicy:AlarmPolicy"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

# How a finding names each kind of pool (`Pool.kind`).
POOL_KINDS = {
    TC_SCALING_GROUP: "AS scaling group",
    TC_INSTANCE: "CVM instance",
    TC_NODE_POOL: "TKE node pool",
}
POOL_TYPES = frozenset(POOL_KINDS)
SCALABLE_TYPES = frozenset({TC_SCALING_GROUP, TC_NODE_POOL})
CLUSTER_SCALED_TYPES = frozenset({TC_NODE_POOL})
# AS has no spot/on-demand mix in one group: a pool with a spot share is two groups, all-spot and
# on-demand, carrying one `gpufleet:pool` tag, which the spot-share rule judges as one pool
# (`pools.joined`), named as (pool noun, member noun).
JOINED_BY_TAG = frozenset({TC_SCALING_GROUP})
JOINED_LABEL = ("Tencent pool", "AS scaling groups")
