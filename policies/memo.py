"""Build a stack-wide index once per resource list, not once per policy.

The offline evaluator hands every stack policy the same list of resources, so the join indexes that
several rules need (buckets with their separate resources, compute with its templates, pools) can
be shared. The Pulumi engine builds a fresh list for each policy, where this simply misses. The cache
keeps the list itself, not its id(): a live list's identity cannot be reused by another object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
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


_SCOPE: ContextVar[dict[tuple[Callable[..., Any], int], tuple[Any, Any]] | None] = ContextVar(
    "gpufleet_policy_memo", default=None
)


@contextmanager
def evaluation() -> Iterator[None]:
    """Within it, `per_object` keeps what it built; on leaving the outermost one all of it is dropped,
    so nothing built in one evaluation is seen by the next."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def per_object(build: Callable[[Any], T], obj: Any) -> T:
    """`build(obj)`, reused for the very same object (by identity: an equal but distinct object is built
    anew) inside one `evaluation()`; outside one, always built. For the few objects many resources
    share, such as their providers. A kept result is shared: callers must not change it."""
    memo = _SCOPE.get()
    if memo is None:
        return build(obj)
    key = (build, id(obj))
    entry = memo.get(key)
    if entry is not None and entry[0] is obj:
        return entry[1]  # type: ignore[no-any-return]
    result = build(obj)
    memo[key] = (obj, result)  # keeps `obj` alive, so its id is not reused while kept
    return result
