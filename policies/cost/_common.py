"""What the cost rules share: the stack's pools (built once per call), environments, messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import StackValidationArgs

from gpufleet.policies.context import STACK_ENV_KEYS, normalise_env, stack_from_urn
from gpufleet.policies.cost.pools import Pool, ResourceIndex
from gpufleet.policies.cost.pools.discovery import discover_all_pools
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.memo import per_stack

ENV_HINT = "tag it env=dev|staging|prod (or name the stack after its environment)"


# The offline evaluator hands every stack policy the same resource list; the engine builds a fresh
# one per policy. Keeping the list itself (not its id) makes reuse safe: a live list's identity
# cannot be taken by another object, and a different list simply misses.
_LAST: list[tuple[Any, Any, Any, tuple[list[Pool], list[Pool], ResourceIndex]]] = []


def stack_pools(args: StackValidationArgs, *, gpu_only: bool = True) -> tuple[list[Pool], ResourceIndex]:
    """The stack's (GPU) pools and its join index, built once per resource list: every pool and the GPU
    pools come from one discovery."""
    catalog = current_catalog()
    tags = args.stack_tags
    for resources, cached_catalog, cached_tags, (every, gpu, index) in _LAST:
        if resources is args.resources and cached_catalog is catalog and cached_tags is tags:
            return list(gpu if gpu_only else every), index
    index = per_stack(ResourceIndex, args.resources)
    every, gpu = discover_all_pools(args.resources, catalog, tags, index=index)
    if len(_LAST) >= 2:
        _LAST.pop(0)
    _LAST.append((args.resources, catalog, tags, (every, gpu, index)))
    return list(gpu if gpu_only else every), index


def stack_environment(args: StackValidationArgs) -> str | None:
    """The stack's own environment: stack tags, else the stack name in any URN."""
    for key in STACK_ENV_KEYS:
        env = normalise_env((args.stack_tags or {}).get(key))
        if env:
            return env
    for resource in args.resources:
        env = normalise_env(stack_from_urn(resource.urn))
        if env:
            return env
    return None


def describe(pool: Pool) -> str:
    return f"{pool.kind} '{pool.name}'"


def unknown_env_message(pool: Pool) -> str:
    return f"could not be judged: the environment of {describe(pool)} is unknown; {ENV_HINT}"


def per_env(value: Any, env: str) -> Any:
    """A per-environment config value ({dev: .., staging: ..}) for `env`, or None."""
    if isinstance(value, Mapping):
        return value.get(env)
    return None


def fmt(number: float) -> str:
    return f"{number:g}" if float(number).is_integer() else f"{number:.2f}"
