"""`discover_pools`: every (GPU) pool in the stack, built by its cloud's builder with its scaling and
schedules joined. Each cloud's builders and scaling joins come from its module `pools/<cloud>.py`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_merged, part_values
from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.families import expand, pool_gpu_class, vcpu_count
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import Pool
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
    every, gpu = discover_all_pools(resources, catalog, stack_tags, index=index)
    return gpu if gpu_only else every


def discover_all_pools(
    resources: Sequence[Any],
    catalog: CatalogLike | None = None,
    stack_tags: Mapping[str, str] | None = None,
    *,
    index: ResourceIndex | None = None,
) -> tuple[list[Pool], list[Pool]]:
    """(every pool, the GPU pools among them) in one pass: the builders run for every pool either way
    (a pool that is not a GPU pool is built, then left out), so the GPU pools are a filter of the rest."""
    index = index or ResourceIndex(resources)
    attachments = _Attachments(index, _ATTACHERS)
    every: list[Pool] = []
    gpu: list[Pool] = []
    for resource in index.resources:
        builder = _BUILDERS.get(resource.resource_type)
        if builder is None:
            continue
        pool = builder(resource, index, attachments, stack_tags or {})
        if pool is None:
            continue
        is_gpu = _is_gpu_pool(pool, catalog)
        if pool.max_vcpus is not None or pool.min_vcpus is not None:
            pool = _sized_by_vcpus(pool, catalog)
        every.append(pool)
        if is_gpu:
            gpu.append(pool)
    return every, gpu


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


# Each cloud's pool module (`pools/<cloud>.py`): its `BUILDERS` (pool builder by type token) and its
# `ATTACH` (joins scaling and schedules to its pools).
PARTS = cloud_parts("gpufleet.policies.cost.pools")
_BUILDERS = part_merged(PARTS, "BUILDERS")
_ATTACHERS = tuple(part_values(PARTS, "ATTACH").values())
