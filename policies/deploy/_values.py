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


def locate(props: Any, path: str) -> list[Found]:
    """Every known, present value at `path` (unknowns and absent values are skipped), in document order.

    A depth-first walk with a stack of its own (not nested generators: every constraint of every
    resource walks, and a generator a level costs more than the step itself)."""
    segments = _segments(path)
    last = len(segments)
    found: list[Found] = []
    # (value, index of the next segment, concrete path so far, inside a secret); popped in order.
    stack: list[tuple[Any, int, str, bool]] = [(props, 0, "", False)]
    while stack:
        current, at, where, secret = stack.pop()
        current, hidden = _plain(current)
        secret = secret or hidden
        if current is None or is_unknown(current):
            continue
        if at == last:
            found.append(Found(where, current, secret))
            continue
        if _is_list(current):
            # A block given as a list where the path names one object: judge each entry.
            stack.extend((current[i], at, f"{where}[{i}]", secret) for i in range(len(current) - 1, -1, -1))
            continue
        name, listed = segments[at]
        if not _is_map(current) or name not in current:
            continue
        child, hidden = _plain(current[name])
        child_secret = secret or hidden
        here = f"{where}.{name}" if where else name
        if child is None or is_unknown(child):
            continue
        if not listed:
            stack.append((child, at + 1, here, child_secret))
        elif _is_list(child):
            stack.extend(
                (child[i], at + 1, f"{here}[{i}]", child_secret) for i in range(len(child) - 1, -1, -1)
            )
        elif _is_map(child):
            stack.append((child, at + 1, here, child_secret))
        elif at + 1 == last:
            found.append(Found(here, child, child_secret))
    return found


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
