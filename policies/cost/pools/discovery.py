"""`discover_pools`: every (GPU) pool in the stack, built by its cloud's builder with its scaling and
schedules joined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policies.cost.pools.alicloud import _build_ali_group, _build_ali_instance
from policies.cost.pools.attachments import _Attachments
from policies.cost.pools.aws import (
    _build_aws_asg,
    _build_aws_fleet,
    _build_aws_instance,
    _build_aws_node_group,
    _build_aws_spot_fleet,
)
from policies.cost.pools.index import ResourceIndex
from policies.cost.pools.model import Pool
from policies.cost.pools.tencentcloud import _build_tc_group, _build_tc_instance
from policies.cost.pools.tokens import (
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_SCALING_GROUP,
    AWS_ASG,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_SPOT_FLEET,
    AWS_SPOT_REQUEST,
    TC_INSTANCE,
    TC_SCALING_GROUP,
)
from policies.gpu import CatalogLike, gpu_class_of


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
        pools.append(pool)
    return pools


def _is_gpu_pool(pool: Pool, catalog: CatalogLike | None) -> bool:
    if pool.gpu_class_unknown:
        return True
    return any(gpu_class_of(pool.cloud, t, catalog)[0] for t in pool.instance_types)


_BUILDERS = {
    AWS_ASG: _build_aws_asg,
    AWS_INSTANCE: _build_aws_instance,
    AWS_SPOT_REQUEST: _build_aws_instance,
    AWS_SPOT_FLEET: _build_aws_spot_fleet,
    AWS_FLEET: _build_aws_fleet,
    AWS_EKS_NODE_GROUP: _build_aws_node_group,
    ALI_SCALING_GROUP: _build_ali_group,
    ALI_INSTANCE: _build_ali_instance,
    ALI_INSTANCE_SET: _build_ali_instance,
    TC_SCALING_GROUP: _build_tc_group,
    TC_INSTANCE: _build_tc_instance,
}
