"""Reading the values a deploy-time constraint judges: wire paths, secrets, unknowns, and quoting.

A constraint names a property by its wire path: camelCase names joined by `.`, `[]` after a name whose
value is a list (`rules[].transitions[].days`). `locate` gives every concrete place a path reaches
(`rules[0].transitions[1].days`) with its value. A value unknown at preview is never judged (the
provider's own Check would not see it either); a value inside a secret is judged but quoted as
`[secret]`.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from gpufleet.policies.props import _target, is_unknown

SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
SECRET_TEXT = "[secret]"


_SCALARS = frozenset({bool, int, float, type(None)})
"""Types that are never a proxy, a secret or an unknown (the unknown sentinel is a string): taken as
they are without the checks `_plain` makes of anything else."""


def _is_list(value: Any) -> bool:
    """A sequence that is not text: plain lists and dicts by their exact type first (the abstract-base-
    class checks any other value needs are most of the time of a walk)."""
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    if kind is dict or kind is str:
        return False
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _is_map(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        return True
    if kind is list or kind is str:
        return False
    return isinstance(value, Mapping)


class Found(NamedTuple):
    """One value at one concrete path (a named tuple: a walk makes one for every value it reaches)."""

    path: str
    value: Any
    secret: bool

    def quoted(self) -> str:
        return SECRET_TEXT if self.secret else quote(self.value)


def _plain(value: Any) -> tuple[Any, bool]:
    """The value behind proxies and secret wrappers, and whether it was secret."""
    kind = type(value)
    if kind in _SCALARS or kind is str:
        return value, False
    value = _target(value)
    # Plain lists and dicts that are not secret wrappers (nearly every container) by exact type.
    kind = type(value)
    if kind is list or (kind is dict and value.get(SECRET_SIG_KEY) != SECRET_SIG):
        return value, False
    secret = False
    while isinstance(value, Mapping) and value.get(SECRET_SIG_KEY) == SECRET_SIG:
        secret = True
        value = _target(value.get("value"))
    return value, secret


def plain(value: Any) -> tuple[Any, bool]:
    return _plain(value)


@functools.lru_cache(maxsize=4096)
def _segments(path: str) -> tuple[tuple[str, bool], ...]:
    """`rules[].days` -> (("rules", True), ("days", False)); the paths are the constraints' own, few."""
    parts = []
    for part in path.split("."):
        listed = part.endswith("[]")
        parts.append((part[:-2] if listed else part, listed))
    return tuple(parts)


@functools.lru_cache(maxsize=4096)
def _prefixes(path: str) -> tuple[str, ...]:
    """`rules[].days` -> ("rules[]", "rules[].days"): the path of each level of a walk."""
    parts = path.split(".")
    return tuple(".".join(parts[: k + 1]) for k in range(len(parts)))


def _entries(items: Any, where: str, secret: bool, out: list[Found]) -> None:
    """The known entries of a list as `Found`s at `where[i]`, in order (None and unknowns skipped)."""
    for i, raw in enumerate(items):
        item, hidden = _plain(raw)
        if item is not None and not is_unknown(item):
            out.append(Found(f"{where}[{i}]", item, secret or hidden))


def _step(found: Found, name: str, listed: bool, out: list[Found]) -> None:
    """Add to `out` what one path segment (`name`, `[]` after it when `listed`) reaches from `found`.

    A list where the path names an object is a block given as a list: the segment applies to each of
    its entries (lists in lists too, with a stack of its own: no recursion on a value's depth)."""
    where, value, secret = found
    if _is_list(value):
        pending: list[Found] = []
        _entries(value, where, secret, pending)
        pending.reverse()
        while pending:
            entry = pending.pop()
            if _is_list(entry.value):
                inner: list[Found] = []
                _entries(entry.value, entry.path, entry.secret, inner)
                pending.extend(reversed(inner))
            else:
                _step(entry, name, listed, out)
        return
    if not _is_map(value) or name not in value:
        return
    child, hidden = _plain(value[name])
    if child is None or is_unknown(child):
        return
    secret = secret or hidden
    here = f"{where}.{name}" if where else name
    if listed and _is_list(child):
        _entries(child, here, secret, out)
    else:
        # Under a listed name a scalar counts only where the path ends; in the middle of a path the
        # next step finds nothing in it, so keeping it here changes no result.
        out.append(Found(here, child, secret))


def locate(props: Any, path: str, walks: dict[str, list[Found]] | None = None) -> list[Found]:
    """Every known, present value at `path` (unknowns and absent values are skipped), in document order.

    The walk goes a level (a name of the path) at a time over every value the level before reached,
    which keeps document order. With `walks`, one dict for the walks of one resource, the values each
    level reaches are kept under that level's own path (`rules[]`, `rules[].transitions[]`) and a walk
    starts from the deepest level already walked: the constraints of a type name many paths under one
    block. The lists in `walks` are shared: callers only read them."""
    segments = _segments(path)
    prefixes = _prefixes(path)
    start = 0
    frontier: list[Found] | None = None
    if walks:
        for k in range(len(segments), 0, -1):
            known = walks.get(prefixes[k - 1])
            if known is not None:
                if k == len(segments):
                    return known
                frontier, start = known, k
                break
    if frontier is None:
        value, secret = _plain(props)
        frontier = [] if value is None or is_unknown(value) else [Found("", value, secret)]
    for k in range(start, len(segments)):
        name, listed = segments[k]
        reached: list[Found] = []
        for found in frontier:
            _step(found, name, listed, reached)
        frontier = reached
        if walks is not None:
            walks[prefixes[k]] = frontier
    return frontier


def present(obj: Any, name: str) -> bool:
    """Whether `name` is set on `obj` (an unknown value counts as set: it will be)."""
    obj, _ = _plain(obj)
    if not isinstance(obj, Mapping) or name not in obj:
        return False
    value, _ = _plain(obj[name])
    if is_unknown(value):
        return True
    return value is not None and value not in ("", [], {})


def is_unknown_at(obj: Any, name: str) -> bool:
    obj, _ = _plain(obj)
    return isinstance(obj, Mapping) and is_unknown(_plain(obj.get(name))[0])


def number(value: Any) -> float | None:
    """A numeric value (numbers cross the wire as floats; numeric strings count), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, str):
        try:
            parsed = float(value.strip())
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return None


def quote(value: Any) -> str:
    """A value as a message shows it: strings in double quotes, whole floats as integers."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, str):
        text = value if len(value) <= 120 else value[:117] + "..."
        return json.dumps(text, ensure_ascii=False)
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def show(value: Any) -> str:
    """An allowed value or bound as a message lists it."""
    return quote(value)
