"""Alibaba Cloud pools: ESS scaling groups (scaling configurations, launch templates, the spot split
of a cost-optimised multi-AZ policy), ACK node pools, and standalone ECS instances and instance sets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.alicloud_scaling import attach
from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.builders import (
    _instance_type,
    _instance_type_list,
    _override_types,
    _pool,
    _Source,
    _spot_share,
    _standalone_pool,
)
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.reading import _Reader
from gpufleet.policies.cost.pools.tokens.alicloud import (
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    ALI_NODE_POOL,
    ALI_SCALING_GROUP,
)
from gpufleet.policies.props import get_ref, is_unknown, truthy


def _ali_spot(strategy: Any) -> bool:
    return isinstance(strategy, str) and strategy in ("SpotAsPriceGo", "SpotWithPriceLimit")


def _build_ali_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    max_size = r.integer("maxSize", "max_size")
    configs = attachments.ali_configs.get(resource.urn, [])
    templates = index.refs(resource, "launchTemplateId", ALI_LAUNCH_TEMPLATES)
    instance_types: list[str] = []
    sources_spot: list[bool] = []
    for source in (*configs, *templates):
        single = _instance_type(r, source.props, f"{source.name}.instanceType")
        if single:
            instance_types.append(single)
        instance_types.extend(
            _instance_type_list(r, source.props, "instanceTypes", f"{source.name}.instanceTypes")
        )
        instance_types.extend(
            _override_types(
                r, source.props, "instanceTypeOverrides", f"{source.name}.instanceTypeOverrides.instanceType"
            )
        )
        strategy = get_ref(source.props, "spotStrategy")
        if is_unknown(strategy):
            r.unknown.setdefault("spot_percent", (f"{source.name}.spotStrategy", strategy))
        sources_spot.append(_ali_spot(strategy))
    instance_types.extend(
        _override_types(r, resource.props, "launchTemplateOverrides", "launchTemplateOverrides.instanceType")
    )
    policy = (r.string("multiAzPolicy") or "PRIORITY").upper()
    base = 0
    if policy in ("COST_OPTIMIZED", "COMPOSABLE"):
        base = (
            r.integer("onDemandBaseCapacity", "spot_percent")
            or r.integer("capacityOptionsOnDemandBaseCapacity")
            or 0
        )
        pct = r.number("onDemandPercentageAboveBaseCapacity", "spot_percent")
        if pct is None:
            pct = r.number("capacityOptionsOnDemandPercentageAboveBaseCapacity", "spot_percent")
        spot = _spot_share(max_size, base, 100.0 if pct is None else pct)
        # The percentages split capacity only when the configuration asks for spot at all
        # (spotStrategy); a NoSpot configuration launches on-demand whatever the split says.
        if sources_spot and not any(sources_spot):
            spot = 0.0
    else:
        spot = 100.0 if sources_spot and all(sources_spot) else 0.0
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=r.integer("minSize", "min_size"),
        max_size=max_size,
        desired=r.integer("desiredCapacity", "desired"),
        spot_percent=spot,
        on_demand_base=base,
        default_cooldown_s=r.integer("defaultCooldown"),
        scalable=True,
        role_refs=tuple(source.urn for source in (*configs, *templates)),
    )


def _build_ali_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    count = 1
    if resource.resource_type == ALI_INSTANCE_SET:
        count = r.integer("amount", "max_size") or 1
    spot = _ali_spot(r.value("spotStrategy", "spot_percent"))
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=[t for t in [r.string("instanceType")] if t],
        count=count,
        spot=spot,
        role_refs=(resource.urn,),
    )


def _build_ali_node_pool(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    """An ACK node pool: `instanceTypes`; with a `scalingConfig` (whose `enable` is not false) the
    ACK node autoscaler sizes it between `scalingConfig.minSize` and `maxSize` and removes idle nodes,
    else it stays at `desiredSize` (or the older `nodeCount`). Spot: `spotStrategy` SpotAsPriceGo or
    SpotWithPriceLimit, split by `onDemandBaseCapacity`/`onDemandPercentageAboveBaseCapacity` under
    a COST_OPTIMIZED `multiAzPolicy`."""
    r = _Reader(resource.props)
    instance_types = _instance_type_list(r, resource.props, "instanceTypes", "instanceTypes")
    scaling = get_ref(resource.props, "scalingConfig")
    enable = get_ref(scaling, "enable") if isinstance(scaling, Mapping) else None
    if is_unknown(enable):
        r.unknown.setdefault("min_size", ("scalingConfig.enable", str(enable)))
    autoscaled = isinstance(scaling, Mapping) and (enable is None or truthy(enable))
    # A fixed pool's size is its desired size: unknown at preview, it leaves the pool's size unknown.
    size_attribute = "desired" if autoscaled else "max_size"
    fixed = r.integer("desiredSize", size_attribute)
    if fixed is None and size_attribute not in r.unknown:
        fixed = r.integer("nodeCount", size_attribute)
    if autoscaled:
        min_size = r.integer("scalingConfig.minSize", "min_size")
        max_size = r.integer("scalingConfig.maxSize", "max_size")
    else:
        min_size = max_size = fixed
        if "max_size" in r.unknown:
            r.unknown.setdefault("min_size", r.unknown["max_size"])
    spot: float | None = 100.0 if _ali_spot(r.value("spotStrategy", "spot_percent")) else 0.0
    base = 0
    if spot and (r.string("multiAzPolicy") or "").upper() == "COST_OPTIMIZED":
        base = r.integer("onDemandBaseCapacity", "spot_percent") or 0
        pct = r.number("onDemandPercentageAboveBaseCapacity", "spot_percent")
        if pct is not None or base:
            spot = _spot_share(max_size, base, pct or 0.0)
    return _Source(resource, r, attachments, stack_tags).sized(
        instance_types,
        (min_size, max_size, fixed),
        spot,
        on_demand_base=base,
        scalable=autoscaled,
        cluster_scaled=True,
        idle_scale_in=autoscaled,
        role_refs=(resource.urn,),
    )


# The pool builders by the type token of the pool resource they read, and the function that joins
# scaling and schedules to this cloud's pools (read by `discover_pools`).
BUILDERS = {
    ALI_SCALING_GROUP: _build_ali_group,
    ALI_INSTANCE: _build_ali_instance,
    ALI_INSTANCE_SET: _build_ali_instance,
    ALI_NODE_POOL: _build_ali_node_pool,
}
ATTACH = attach
