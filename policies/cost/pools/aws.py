"""AWS pools: auto scaling groups (launch template, launch configuration or mixed-instances policy,
attribute-based selection), standalone instances and spot requests, spot fleets, EC2 fleets, EKS
node groups and Batch compute environments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.aws_scaling import attach
from gpufleet.policies.cost.pools.builders import (
    _instance_type,
    _instance_type_list,
    _override_types,
    _pool,
    _Source,
    _spot_share,
    _standalone_pool,
    _template_types,
)
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.reading import _int, _Reader, _str
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_ASG,
    AWS_BATCH_COMPUTE,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    AWS_SPOT_REQUEST,
)
from gpufleet.policies.props import as_list, get_ref, is_unknown

# Attribute-based selection (`instanceRequirements.acceleratorNames`) names GPUs, not instance types:
# each name stands for the smallest current AWS type carrying that GPU, so the rules that judge GPU
# classes, spot shares and prices see the pool as the GPU pool it is.
_AWS_ACCELERATOR_TYPES = {
    "t4": "g4dn.xlarge",
    "t4g": "g5g.xlarge",
    "a10g": "g5.xlarge",
    "l4": "g6.xlarge",
    "l40s": "g6e.xlarge",
    "v100": "p3.2xlarge",
    "a100": "p4d.24xlarge",
    "h100": "p5.48xlarge",
    "h200": "p5e.48xlarge",
    "k80": "p2.xlarge",
    "m60": "g3s.xlarge",
}


def _asks_for_gpus(requirements: Any) -> bool:
    """`instanceRequirements.acceleratorTypes` includes "gpu" (an unknown list is not read as GPUs)."""
    if not isinstance(requirements, Mapping):
        return False
    return any(
        _str(t) and str(t).lower() == "gpu" for t in as_list(get_ref(requirements, "acceleratorTypes"))
    )


def _types_by_attributes(requirements: Any) -> list[str]:
    if not isinstance(requirements, Mapping):
        return []
    names = [_str(n) for n in as_list(get_ref(requirements, "acceleratorNames"))]
    return [_AWS_ACCELERATOR_TYPES[n.lower()] for n in names if n and n.lower() in _AWS_ACCELERATOR_TYPES]


def _aws_launch_template(index: ResourceIndex, resource: Any, prop: str, spec: Any) -> list[Any]:
    if not isinstance(spec, Mapping):
        return index.refs(resource, prop, (AWS_LAUNCH_TEMPLATE,))
    values = [get_ref(spec, key) for key in ("id", "name", "launchTemplateId", "launchTemplateName")]
    found: dict[str, Any] = {}
    for value in values:
        for lt in index.refs(
            resource, prop, (AWS_LAUNCH_TEMPLATE,), value=value if value is not None else ""
        ):
            found[lt.urn] = lt
    return list(found.values())


def _lt_spot(lt: Any) -> bool:
    market = get_ref(lt.props, "instanceMarketOptions.marketType")
    return isinstance(market, str) and market.lower() == "spot"


def _build_aws_asg(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    min_size = r.integer("minSize", "min_size")
    max_size = r.integer("maxSize", "max_size")
    desired = r.integer("desiredCapacity", "desired")
    instance_types: list[str] = []
    spot: float | None = 0.0
    base = 0
    role_refs: list[str] = []
    gpus_by_attributes = False
    mip = get_ref(resource.props, "mixedInstancesPolicy")
    if isinstance(mip, Mapping):
        base = (
            r.integer("mixedInstancesPolicy.instancesDistribution.onDemandBaseCapacity", "spot_percent") or 0
        )
        pct = r.number(
            "mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity", "spot_percent"
        )
        on_demand_pct = 100.0 if pct is None else pct
        lts = _aws_launch_template(
            index,
            resource,
            "mixedInstancesPolicy",
            get_ref(mip, "launchTemplate.launchTemplateSpecification"),
        )
        for override in as_list(get_ref(mip, "launchTemplate.overrides")):
            t = _instance_type(r, override, "mixedInstancesPolicy.launchTemplate.overrides.instanceType")
            if t:
                instance_types.append(t)
            requirements = get_ref(override, "instanceRequirements")
            named = _types_by_attributes(requirements)
            instance_types.extend(named)
            gpus_by_attributes = gpus_by_attributes or (not named and _asks_for_gpus(requirements))
            spec = get_ref(override, "launchTemplateSpecification")
            if isinstance(spec, Mapping):
                lts.extend(_aws_launch_template(index, resource, "mixedInstancesPolicy", spec))
        if not instance_types:
            instance_types = _template_types(r, lts)
        spot = _spot_share(max_size, base, on_demand_pct)
        role_refs.extend(lt.urn for lt in lts)
    elif get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        instance_types = _template_types(r, lts)
        spot = 100.0 if lts and all(_lt_spot(lt) for lt in lts) else 0.0
        role_refs.extend(lt.urn for lt in lts)
    else:
        lcs = index.refs(resource, "launchConfiguration", (AWS_LAUNCH_CONFIGURATION,))
        for lc in lcs:
            t = _str(get_ref(lc.props, "instanceType"))
            if t:
                instance_types.append(t)
        spot = 100.0 if lcs and all(get_ref(lc.props, "spotPrice") not in (None, "") for lc in lcs) else 0.0
        role_refs.extend(lc.urn for lc in lcs)
    return _Source(resource, r, attachments, stack_tags).sized(
        instance_types,
        (min_size, max_size, desired),
        spot,
        on_demand_base=base,
        default_cooldown_s=r.integer("defaultCooldown"),
        default_instance_warmup_s=r.integer("defaultInstanceWarmup"),
        scalable=True,
        role_refs=tuple(role_refs),
        gpu_class_unknown=gpus_by_attributes,
    )


def _build_aws_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    instance_types = [t for t in [r.string("instanceType")] if t]
    lts = []
    if get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        if not instance_types:
            instance_types = _template_types(r, lts)
    market = r.string("instanceMarketOptions.marketType")
    spot = resource.resource_type == AWS_SPOT_REQUEST or (market or "").lower() == "spot"
    if not spot and lts and all(_lt_spot(lt) for lt in lts):
        spot = True
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=instance_types,
        count=1,
        spot=spot,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _fleet_templates(resource: Any, index: ResourceIndex, r: _Reader) -> tuple[list[Any], list[str]]:
    """The launch templates and override instance types of a fleet's `launchTemplateConfigs`."""
    lts: list[Any] = []
    instance_types: list[str] = []
    for config in as_list(get_ref(resource.props, "launchTemplateConfigs")):
        spec = get_ref(config, "launchTemplateSpecification")
        lts.extend(_aws_launch_template(index, resource, "launchTemplateConfigs", spec))
        instance_types.extend(
            _override_types(r, config, "overrides", "launchTemplateConfigs.overrides.instanceType")
        )
    return lts, instance_types


def _build_aws_spot_fleet(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    target = r.integer("targetCapacity", "max_size")
    on_demand = r.integer("onDemandTargetCapacity", "spot_percent") or 0
    # Application Auto Scaling may grow the fleet up to its scalable target's maxCapacity.
    maximum = target
    for target_name, capacity in attachments.fleet_max_capacity.get(resource.urn, ()):
        if is_unknown(capacity):
            r.unknown.setdefault("max_size", (f"{target_name}.maxCapacity", capacity))
        elif (number := _int(capacity)) is not None and (maximum is None or number > maximum):
            maximum = number
    instance_types = _override_types(
        r, resource.props, "launchSpecifications", "launchSpecifications.instanceType"
    )
    lts, override_types = _fleet_templates(resource, index, r)
    instance_types = [*instance_types, *override_types] or _template_types(r, lts)
    spot = (
        None
        if target is None
        else (0.0 if target == 0 else round((target - min(on_demand, target)) * 100.0 / target, 2))
    )
    return _Source(resource, r, attachments, stack_tags).sized(
        instance_types,
        (target, maximum, target),
        spot,
        on_demand_base=on_demand,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _build_aws_fleet(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    total = r.integer("targetCapacitySpecification.totalTargetCapacity", "max_size")
    on_demand = r.integer("targetCapacitySpecification.onDemandTargetCapacity", "spot_percent")
    spot_count = r.integer("targetCapacitySpecification.spotTargetCapacity", "spot_percent")
    default_type = (r.string("targetCapacitySpecification.defaultTargetCapacityType") or "on-demand").lower()
    lts, instance_types = _fleet_templates(resource, index, r)
    instance_types = instance_types or _template_types(r, lts)
    spot: float | None = None
    if total:
        if spot_count is not None:
            spot_n = spot_count
        elif on_demand is not None:
            spot_n = total - on_demand
        else:
            spot_n = total if default_type == "spot" else 0
        spot = round(max(0, min(spot_n, total)) * 100.0 / total, 2)
    elif total == 0:
        spot = 0.0
    return _Source(resource, r, attachments, stack_tags).sized(
        instance_types,
        (total, total, total),
        spot,
        on_demand_base=on_demand or 0,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _build_aws_node_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    instance_types = r.strings("instanceTypes", "instance_types")
    lts: list[Any] = []
    if get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        if not instance_types:
            instance_types = _template_types(r, lts)
    if not instance_types and get_ref(resource.props, "launchTemplate") is None:
        instance_types = ["t3.medium"]  # EKS's default node type
    capacity = (r.string("capacityType") or "ON_DEMAND").upper()
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(instance_types),
        min_size=r.integer("scalingConfig.minSize", "min_size"),
        max_size=r.integer("scalingConfig.maxSize", "max_size"),
        desired=r.integer("scalingConfig.desiredSize", "desired"),
        spot_percent=100.0 if capacity == "SPOT" else 0.0,
        scalable=True,
        cluster_scaled=True,
        role_refs=(resource.urn,),
    )


def _build_aws_batch(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool | None:
    """A managed EC2 or SPOT compute environment: `computeResources.instanceTypes` (types or bare
    families; "optimal" and `default_*` pick general-purpose families), sized in vCPUs. Batch scales it
    itself between `minVcpus` (default 0) and `maxVcpus` as jobs arrive and end. Unmanaged
    environments (the instances are the user's own, judged where they are defined) and Fargate ones
    (no GPUs) are not pools."""
    r = _Reader(resource.props)
    if (r.string("type") or "MANAGED").upper() == "UNMANAGED":
        return None
    capacity = r.value("computeResources.type", "spot_percent")
    capacity_type = str(capacity or "").upper()
    if capacity_type.startswith("FARGATE"):
        return None
    # "optimal" and `default_*` let Batch pick general-purpose families: cheaper per vCPU than any GPU
    # type beside them, so the worst case is the GPU types'.
    instance_types = [
        t
        for t in _instance_type_list(
            r, resource.props, "computeResources.instanceTypes", "computeResources.instanceTypes"
        )
        if t != "optimal" and not t.startswith("default_")
    ]
    lts: list[Any] = []
    spec = get_ref(resource.props, "computeResources.launchTemplate")
    if spec is not None:
        lts = _aws_launch_template(index, resource, "computeResources", spec)
    min_vcpus = r.integer("computeResources.minVcpus", "min_size")
    if min_vcpus is None and "min_size" not in r.unknown:
        min_vcpus = 0
    spot = None if "spot_percent" in r.unknown else (100.0 if capacity_type == "SPOT" else 0.0)
    return _Source(resource, r, attachments, stack_tags).sized(
        instance_types,
        (None, None, None),
        spot,
        min_vcpus=min_vcpus,
        max_vcpus=r.integer("computeResources.maxVcpus", "max_size"),
        idle_scale_in=True,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


# The pool builders by the type token of the pool resource they read, and the function that joins
# scaling and schedules to this cloud's pools (read by `discover_pools`).
BUILDERS = {
    AWS_ASG: _build_aws_asg,
    AWS_INSTANCE: _build_aws_instance,
    AWS_SPOT_REQUEST: _build_aws_instance,
    AWS_SPOT_FLEET: _build_aws_spot_fleet,
    AWS_FLEET: _build_aws_fleet,
    AWS_EKS_NODE_GROUP: _build_aws_node_group,
    AWS_BATCH_COMPUTE: _build_aws_batch,
}
ATTACH = attach
