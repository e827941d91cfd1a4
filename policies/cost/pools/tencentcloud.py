"""Tencent Cloud pools: AS scaling groups (all-spot or on-demand launch configurations), TKE node
pools and standalone CVM instances.

AS has no spot/on-demand mix in one group, so a pool with a spot share is two groups, all-spot and
on-demand, carrying the same ``gpufleet:pool`` tag (components/pools/tencentcloud.py):
:func:`joined_tencent_groups` joins them back into one pool for the rules that judge a pool's share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
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


POOL_TAG = "gpufleet:pool"


@dataclasses.dataclass(frozen=True)
class JoinedPool:
    """A pool as the spec names it: ``pool`` stands for ``members`` (one pool, or a Tencent pool's
    all-spot and on-demand AS groups); ``tag`` is their ``gpufleet:pool`` tag when they were joined."""

    pool: Pool
    members: tuple[Pool, ...]
    tag: str | None = None

    def describe(self) -> str:
        if self.tag is None:
            return f"{self.pool.kind} '{self.pool.name}'"
        names = " and ".join(f"'{m.name}'" for m in self.members)
        return f"Tencent pool '{self.tag}' (AS scaling groups {names})"


def joined_tencent_groups(pools: Sequence[Pool], resources: Sequence[Any]) -> list[JoinedPool]:
    """``pools`` with the Tencent AS groups that share a ``gpufleet:pool`` tag, region and environment
    joined into one pool: its sizes are the groups' sums and its spot share the spot capacity's share of
    their summed maximum (a group's maximum times its own share). Every other pool stands alone, in
    order; a joined pool takes the place of its first group."""
    tags: dict[str, str] = {}
    for resource in resources:
        if resource.resource_type != TC_SCALING_GROUP:
            continue
        group_tags = get_ref(resource.props, "tags")
        tag = group_tags.get(POOL_TAG) if isinstance(group_tags, Mapping) else None
        if isinstance(tag, str) and tag and not is_unknown(tag):
            tags[resource.urn] = tag
    groups: dict[tuple[str, str | None, str | None], list[Pool]] = {}
    for pool in pools:
        if pool.resource_type == TC_SCALING_GROUP and pool.urn in tags:
            groups.setdefault((tags[pool.urn], pool.region, pool.env), []).append(pool)
    joined: list[JoinedPool] = []
    for pool in pools:
        key = (tags.get(pool.urn, ""), pool.region, pool.env)
        members = groups.get(key) if pool.urn in tags else None
        if not members or len(members) == 1:
            joined.append(JoinedPool(pool, (pool,)))
        elif pool is members[0]:
            joined.append(JoinedPool(_join(members), tuple(members), key[0]))
    return joined


def _join(members: Sequence[Pool]) -> Pool:
    unknown: dict[str, tuple[str, str]] = {}
    for member in members:
        for field in ("spot_percent", "max_size", "min_size"):
            if field in member.unknown:
                unknown.setdefault(field, member.unknown[field])
    maxima = [m.max_size for m in members]
    shares = [m.spot_percent for m in members]
    spot: float | None = None
    if all(x is not None for x in maxima) and all(s is not None for s in shares):
        total = sum(x for x in maxima if x is not None)
        spot_capacity = sum((x or 0) * (s or 0.0) for x, s in zip(maxima, shares, strict=True))
        # No capacity at all (every maximum 0): the groups' own shares, evenly.
        spot = spot_capacity / total if total else sum(s or 0.0 for s in shares) / len(shares)
    elif "spot_percent" not in unknown:
        unknown["spot_percent"] = next(
            (m.unknown["max_size"] for m in members if "max_size" in m.unknown),
            ("maxSize", "unknown"),
        )
    minima = [m.min_size for m in members]
    return dataclasses.replace(
        members[0],
        spot_percent=spot,
        min_size=sum(x for x in minima if x is not None) if None not in minima else None,
        max_size=sum(x for x in maxima if x is not None) if None not in maxima else None,
        unknown=unknown,
    )


# The pool builders by the type token of the pool resource they read, and the function that joins
# scaling and schedules to this cloud's pools (read by `discover_pools`).
BUILDERS = {
    TC_SCALING_GROUP: _build_tc_group,
    TC_INSTANCE: _build_tc_instance,
    TC_NODE_POOL: _build_tc_node_pool,
}
ATTACH = attach
