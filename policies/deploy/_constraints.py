"""The constraint table of GF-DEPLOY-001 and how one constraint judges one resource.

The table is data: `provider_schema.json` (generated from the pinned provider SDKs' docstrings by
`python -m gpufleet.policies.deploy.generate`) minus the generated entries `overrides.json` drops, plus the
entries it adds by hand. Every entry names its source. An entry is one of

- `enum` (`values`), `range` (`min`, `max`, either may be absent), `length` (`min`, `max`),
  `pattern` (`pattern`, `describe`): judged on every value at `path`;
- `required`: the last name of `path` must be set on every object its parent path reaches;
- `conflicts` / `exactlyOneOf` (`fields`): at most one / exactly one of `fields` is set on every object
  at `path` (`""`: the resource itself);
- `requiredWith` (`field`, `with`): where `field` is set on an object at `path`, every name of `with` is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import Any

from gpufleet.policies.deploy._values import (
    Found,
    _is_map,
    _segments,
    is_unknown_at,
    locate,
    number,
    plain,
    present,
    show,
)

HERE = Path(__file__).resolve().parent
KINDS = ("enum", "range", "length", "pattern", "required", "conflicts", "exactlyOneOf", "requiredWith")


def _read(name: str) -> Any:
    return json.loads((HERE / name).read_text(encoding="utf-8"))


@cache
def table() -> Mapping[str, tuple[Mapping[str, Any], ...]]:
    """Every constraint by type token: the generated ones the overrides keep, then the overrides'."""
    generated = _read("provider_schema.json")["constraints"]
    overrides = _read("overrides.json")
    dropped = {(d["type"], d["path"], d["kind"]) for d in overrides["drop"]}
    merged: dict[str, list[Mapping[str, Any]]] = {}
    for token, entries in generated.items():
        kept = [e for e in entries if (token, e["path"], e["kind"]) not in dropped]
        if kept:
            merged[token] = kept
    for token, entries in overrides["constraints"].items():
        merged.setdefault(token, []).extend(entries)
    return {token: tuple(entries) for token, entries in merged.items()}


def _first_field(entry: Mapping[str, Any]) -> str | None:
    """The top-level field every place an entry judges lies under, or None when it judges the resource
    itself (a `required` top-level name, a combination at `""`): an entry with a first field finds
    nothing when the resource does not set that field."""
    path = entry["path"]
    if path == "" or (entry["kind"] == "required" and "." not in path):
        return None
    return _segments(path)[0][0]


@cache
def grouped() -> Mapping[str, tuple[tuple[str | None, tuple[Mapping[str, Any], ...]], ...]]:
    """`table()` with each type's entries in runs that share their first field (`_first_field`), in the
    table's order: a resource that lacks a run's field skips the run, and its findings keep their order."""
    return {
        token: tuple((field, tuple(run)) for field, run in groupby(entries, key=_first_field))
        for token, entries in table().items()
    }


def top_fields(props: Any) -> Mapping[str, Any] | None:
    """The map of a resource's properties whose keys say which fields it sets; None when its properties
    are not a map (then no run is skipped)."""
    value, _ = plain(props)
    return value if _is_map(value) else None


def _split(path: str) -> tuple[str, str]:
    """(parent path, last name) of a property path; the parent of a top-level name is ""."""
    if "." not in path:
        return "", path
    parent, name = path.rsplit(".", 1)
    return parent, name


def _parents(props: Any, parent: str, walks: dict[str, list[Found]] | None = None) -> list[Found]:
    if parent == "":
        value, secret = plain(props)
        return [Found("", value, secret)]
    return _located(props, parent, walks)


def _located(props: Any, path: str, walks: dict[str, list[Found]] | None) -> list[Found]:
    """`locate(props, path)`; with `walks`, each level of each path is walked once for the resource
    (several constraints of a type name the same object, or objects under it: `rules[]` for each of
    its fields)."""
    return locate(props, path, walks)


def _at(found: Found, name: str) -> str:
    return f"{found.path}.{name}" if found.path else name


def _listed(values: list[Any]) -> str:
    return ", ".join(show(v) for v in values)


def _bounds(entry: Mapping[str, Any], unit: str = "") -> str:
    low, high = entry.get("min"), entry.get("max")
    suffix = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"{show(low)} to {show(high)}{suffix}"
    if low is not None:
        return f"at least {show(low)}{suffix}"
    return f"at most {show(high)}{suffix}"


def _scalar_text(value: Any) -> str | None:
    """A value an enum or pattern compares: strings as they are, whole numbers as digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return show(value)
    return None


def problems(
    props: Any, entry: Mapping[str, Any], walks: dict[str, list[Found]] | None = None
) -> Iterator[str]:
    """What the provider would refuse of `props` under one constraint, one sentence each. `walks`, one
    dict for all the constraints judged on one resource, keeps each path's walk for the others."""
    kind = entry["kind"]
    path = entry["path"]
    if kind in ("enum", "range", "length", "pattern"):
        for found in _located(props, path, walks):
            problem = _value_problem(found, entry)
            if problem:
                yield problem
        return
    if kind == "required":
        parent, name = _split(path)
        for owner in _parents(props, parent, walks):
            if isinstance(owner.value, Mapping) and not present(owner.value, name):
                yield f"{_at(owner, name)} is required and not set"
        return
    for owner in _parents(props, path, walks):
        if isinstance(owner.value, Mapping):
            yield from _combination_problems(owner, kind, entry)


def _combination_problems(owner: Found, kind: str, entry: Mapping[str, Any]) -> Iterator[str]:
    """`requiredWith`, `conflicts` and `exactlyOneOf` under one object (`owner`)."""
    if kind == "requiredWith":
        field = entry["field"]
        if present(owner.value, field):
            missing = [n for n in entry["with"] if not present(owner.value, n)]
            if missing:
                others = ", ".join(_at(owner, n) for n in missing)
                yield f"{_at(owner, field)} is set, so {others} must be set too"
        return
    fields = list(entry["fields"])
    given = [n for n in fields if present(owner.value, n)]
    if kind == "conflicts" and len(given) > 1:
        yield f"{' and '.join(_at(owner, n) for n in given)} cannot be set together; set one of them"
    elif kind == "exactlyOneOf" and len(given) != 1:
        if not given and any(is_unknown_at(owner.value, n) for n in fields):
            return
        names = ", ".join(_at(owner, n) for n in fields)
        what = "none is set" if not given else f"{len(given)} are set ({', '.join(given)})"
        yield f"exactly one of {names} must be set; {what}"


def _value_problem(found: Found, entry: Mapping[str, Any]) -> str | None:
    kind = entry["kind"]
    value = found.value
    if kind == "enum":
        if _enum_allows(value, entry):
            return None
        return f"{found.path} is {found.quoted()}; allowed: {_listed(entry['values'])}"
    if kind == "range":
        given = number(value) if not isinstance(value, str) else None
        if given is None:
            return None
        low, high = entry.get("min"), entry.get("max")
        if (low is None or given >= low) and (high is None or given <= high):
            return None
        return f"{found.path} is {found.quoted()}; allowed: {_bounds(entry)}"
    if kind == "length":
        if not isinstance(value, str):
            return None
        size = len(value)
        low, high = entry.get("min"), entry.get("max")
        if (low is None or size >= low) and (high is None or size <= high):
            return None
        return f"{found.path} is {found.quoted()}, {size} characters; allowed: {_bounds(entry, 'characters')}"
    if kind == "pattern":
        text = _scalar_text(value)
        if text is None or re.fullmatch(entry["pattern"], text):
            return None
        return f"{found.path} is {found.quoted()}; allowed: {entry.get('describe') or entry['pattern']}"
    return None


def _enum_allows(value: Any, entry: Mapping[str, Any]) -> bool:
    """True when `value` is one of the enum's values (or cannot be compared: unknown, structured)."""
    values = entry["values"]
    if all(isinstance(v, str) for v in values):
        text = _scalar_text(value)
        if text is None or text in values:
            return True
        return bool(entry.get("caseInsensitive")) and text.lower() in {v.lower() for v in values}
    given = number(value)
    return given is None or any(float(v) == given for v in values)
