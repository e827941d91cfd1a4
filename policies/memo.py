"""Build a stack-wide index once per resource list, not once per policy.

The offline evaluator hands every stack policy the same list of resources, so the join indexes that
several rules need (buckets with their separate resources, compute with its templates, pools) can
be shared. The Pulumi engine builds a fresh list for each policy, where this simply misses. The cache
keeps the list itself, not its id(): a live list's identity cannot be reused by another object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_LAST: dict[Callable[..., Any], tuple[Sequence[Any], Any]] = {}


def per_stack(build: Callable[[Sequence[Any]], T], resources: Sequence[Any]) -> T:
    """`build(resources)`, reused while the same resource list is judged."""
    entry = _LAST.get(build)
    if entry is not None and entry[0] is resources:
        return entry[1]  # type: ignore[no-any-return]
    result = build(resources)
    _LAST[build] = (resources, result)
    return result
