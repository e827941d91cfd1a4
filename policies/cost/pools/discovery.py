"""`discover_pools`: every (GPU) pool in the stack, built by its cloud's builder with its scaling and
schedules joined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpufleet.policies.cost.pools.alicloud import _build_ali_group, _build_ali_instance, _build_ali_node_pool
from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.aws import (
    _build_aws_asg,
    _build_aws_batch,
    _build_aws_fleet,
    _build_aws_instance,
    _build_aws_node_group,
    _build_aws_spot_fleet,
)
from gpufleet.policies.cost.pools.families import expand, pool_gpu_class, vcpu_count
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.tencentcloud import _build_tc_group, _build_tc_instance, _build_tc_node_pool
from gpufleet.policies.cost.pools.tokens import (
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_NODE_POOL,
    ALI_SCALING_GROUP,
    AWS_ASG,
    AWS_BATCH_COMPUTE,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_SPOT_FLEET,
    AWS_SPOT_REQUEST,
    TC_INSTANCE,
    TC_NODE_POOL,
    TC_SCALING_GROUP,
)
from gpufleet.policies.gpu import CatalogLike


def discover_pools(
    resources: Sequence[Any],
    catalog: CatalogLike | None = None,
    stack_tags: Mapping[str, str] | None = None,
    *,
    gpu_only: bool = True,
    index: ResourceIndex | None = None,
) -> list[Pool]:
    """Every (GPU) pool in the stack, with its scaling and schedules joined."""
    index = index or ResourceIndex(resources)
    attachments = _Attachments(index)
    pools: list[Pool] = []
    for resource in index.resources:
        builder = _BUILDERS.get(resource.resource_type)
        if builder is None:
            continue
        pool = builder(resource, index, attachments, stack_tags or {})
        if pool is None:
            continue
        if gpu_only and not _is_gpu_pool(pool, catalog):
            continue
        if pool.max_vcpus is not None or pool.min_vcpus is not None:
            pool = _sized_by_vcpus(pool, catalog)
        pools.append(pool)
    return pools


def _is_gpu_pool(pool: Pool, catalog: CatalogLike | None) -> bool:
    if pool.gpu_class_unknown:
        return True
    return any(pool_gpu_class(pool.cloud, t, catalog)[0] for t in pool.instance_types)


def _sized_by_vcpus(pool: Pool, catalog: CatalogLike | None) -> Pool:
    """Instance counts of a pool sized in vCPUs: at most the most instances `maxVcpus` buys of any of
    its types, at least the fewest that hold `minVcpus` (0 for a minimum of 0). A count that needs a
    type's vCPUs the catalogue does not give stays unknown (None)."""
    entries = [entry for _, entry in expand(catalog, pool.cloud, pool.instance_types) if entry is not None]
    max_counts = [c for e in entries if pool.max_vcpus is not None and (c := vcpu_count(pool.max_vcpus, e))]
    min_counts = [
        c for e in entries if pool.min_vcpus is not None and (c := vcpu_count(pool.min_vcpus, e)) is not None
    ]
    min_size = 0 if pool.min_vcpus == 0 else (min(min_counts) if min_counts else None)
    max_size = max(max_counts) if max_counts else (0 if pool.max_vcpus == 0 else None)
    return replace(pool, min_size=min_size, max_size=max_size, desired=None)


_BUILDERS = {
    AWS_ASG: _build_aws_asg,
    AWS_INSTANCE: _build_aws_instance,
    AWS_SPOT_REQUEST: _build_aws_instance,
    AWS_SPOT_FLEET: _build_aws_spot_fleet,
    AWS_FLEET: _build_aws_fleet,
    AWS_EKS_NODE_GROUP: _build_aws_node_group,
    AWS_BATCH_COMPUTE: _build_aws_batch,
    ALI_SCALING_GROUP: _build_ali_group,
    ALI_INSTANCE: _build_ali_instance,
    ALI_INSTANCE_SET: _build_ali_instance,
    ALI_NODE_POOL: _build_ali_node_pool,
    TC_SCALING_GROUP: _build_tc_group,
    TC_INSTANCE: _build_tc_instance,
    TC_NODE_POOL: _build_tc_node_pool,
}
