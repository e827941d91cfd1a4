"""Tencent Cloud pools: AS scaling groups (all-spot or on-demand launch configurations), TKE node
pools and standalone CVM instances.

AS has no spot/on-demand mix in one group, so a pool with a spot share is two groups, all-spot and
on-demand, carrying the same ``gpufleet:pool`` tag (components/pools/tencentcloud.py):
:func:`gpufleet.policies.cost.pools.joined.joined_pools` joins them back into one pool (by this cloud's
``JOINED_BY_TAG`` and ``JOINED_LABEL`` in ``tokens/tencentcloud.py``) for the rules that judge a pool's
share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.builders import _instance_type, _instance_type_list, _pool, _standalone_pool
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.reading import _Reader
from gpufleet.policies.cost.pools.tencentcloud_scaling import attach
from gpufleet.policies.cost.pools.tokens.tencentcloud import (
    TC_INSTANCE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
    TC_SCALING_GROUP,
)
from gpufleet.policies.props import get_ref, is_unknown, truthy


def _build_tc_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    configs = index.refs(resource, "configurationId", (TC_SCALING_CONFIG,))
    instance_types: list[str] = []
    spots: list[bool] = []
    for config in configs:
        instance_types.extend(
            _instance_type_list(r, config.props, "instanceTypes", f"{config.name}.instanceTypes")
        )
        charge = get_ref(config.props, "instanceChargeType")
        if is_unknown(charge):
            r.unknown.setdefault("spot_percent", (f"{config.name}.instanceChargeType", charge))
        spots.append(str(charge or "").upper() == "SPOTPAID")
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=r.integer("minSize", "min_size"),
        max_size=r.integer("maxSize", "max_size"),
        desired=r.integer("desiredCapacity", "desired"),
        spot_percent=100.0 if spots and all(spots) else 0.0,
        default_cooldown_s=r.integer("defaultCooldown"),
        scalable=True,
        role_refs=tuple(c.urn for c in configs),
    )


def _build_tc_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    spot = str(r.value("instanceChargeType", "spot_percent") or "").upper() == "SPOTPAID"
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=[t for t in [r.string("instanceType")] if t],
        count=1,
        spot=spot,
        role_refs=(resource.urn,),
    )


def _build_tc_node_pool(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    """A TKE node pool: `autoScalingConfig.instanceType` and `backupInstanceTypes`, sized between
    `minSize` and `maxSize`; with `enableAutoScale` (the provider's default) the TKE cluster
    autoscaler removes idle nodes down to `minSize`. Spot: `autoScalingConfig.instanceChargeType`
    SPOTPAID (all-spot, as in AS launch configurations)."""
    r = _Reader(resource.props)
    config = get_ref(resource.props, "autoScalingConfig")
    instance_types = [t for t in [_instance_type(r, config, "autoScalingConfig.instanceType")] if t]
    instance_types.extend(
        _instance_type_list(r, config, "backupInstanceTypes", "autoScalingConfig.backupInstanceTypes")
    )
    charge = r.value("autoScalingConfig.instanceChargeType", "spot_percent")
    spot = (
        None if "spot_percent" in r.unknown else (100.0 if str(charge or "").upper() == "SPOTPAID" else 0.0)
    )
    enable = get_ref(resource.props, "enableAutoScale")
    if is_unknown(enable):
        r.unknown.setdefault("min_size", ("enableAutoScale", str(enable)))
    autoscaled = enable is None or (not is_unknown(enable) and truthy(enable))
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=r.integer("minSize", "min_size"),
        max_size=r.integer("maxSize", "max_size"),
        desired=r.integer("desiredCapacity", "desired"),
        spot_percent=spot,
        default_cooldown_s=r.integer("defaultCooldown"),
        scalable=True,
        cluster_scaled=True,
        idle_scale_in=autoscaled,
        role_refs=(resource.urn,),
    )


# The pool builders by the type token of the pool resource they read, and the function that joins
# scaling and schedules to this cloud's pools (read by `discover_pools`).
BUILDERS = {
    TC_SCALING_GROUP: _build_tc_group,
    TC_INSTANCE: _build_tc_instance,
    TC_NODE_POOL: _build_tc_node_pool,
}
ATTACH = attach
