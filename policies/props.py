"""A small typed accessor over resource properties as the engine presents them.

Properties use the engine's camelCase wire names. Under the real engine, `props` is wrapped in
pulumi_policy's unknown-checking proxy, which raises `UnknownValueError` on access to a value not
known at preview; plain dicts (tests, direct calls) carry the raw unknown sentinels instead. These
helpers treat both the same way: an unknown decisive value raises `UnknownValueError`, and
`is_unknown()` lets a rule accept an unknown *reference* (a key ARN of a key created in the same
program) as "set".

A value that is present but not of the shape a rule reads (`ingress: 5`, `inlinePolicies: true`, a
number where a name belongs, a JSON document that does not parse) raises `Malformed`. The typed
accessors (`get_objects`, `get_map`, `get_text`) raise it on the spot; the policy wrappers in
`policies.rule` turn it into a "cannot be parsed" finding of the rule for that resource.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _append_prop,
    _DictProxy,
    _is_unknown,
    _ListProxy,
)

_MISSING = object()
_MAPPINGS = frozenset({dict, _DictProxy})
_SEQUENCES = frozenset({list, _ListProxy})
# pulumi_policy's unknown sentinels, in the order `_is_unknown` tests them.
_UNKNOWNS = (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_OBJECT_VALUE,
)
EXCERPT_CHARS = 200
_EXCERPT_DEPTH = 12


class Malformed(ValueError):
    """A value present but not of the shape the rule reads: a finding, never a pass or a crash.

    `what` names the field and what is wrong with it; the message quotes at most `EXCERPT_CHARS`
    characters of the value."""

    def __init__(self, what: str, value: Any = _MISSING) -> None:
        self.what = what
        self.excerpt = None if value is _MISSING else excerpt(value)
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"cannot be parsed: {self.detail}"

    @property
    def detail(self) -> str:
        return self.what if self.excerpt is None else f"{self.what}, {self.excerpt}"

    def within(self, prefix: str) -> Malformed:
        """The same problem, its field placed under `prefix` (`.spec.template.spec` + `.containers`)."""
        placed = Malformed(f"{prefix}{self.what}")
        placed.excerpt = self.excerpt
        placed.args = (placed.message,)
        return placed

    def about(self, label: str) -> str:
        """The message for one named thing (`IAM policy 'ci'`)."""
        return f"cannot be parsed: {label}: {self.detail}"


def json_kind(value: Any) -> str:
    """What a value is, in the words of JSON: a string, a number, a boolean, a list, an object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str | bytes):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "a list"
    return f"a {type(value).__name__}"


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of a value, JSON-like; safe on huge, deep or proxied values."""
    parts: list[str] = []
    size = 0

    def emit(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)

    def walk(item: Any, depth: int) -> None:
        if size > limit:
            return
        item = _target(item)
        scalar = "..." if depth > _EXCERPT_DEPTH else _scalar_excerpt(item, limit)
        if scalar is not None:
            emit(scalar)
        elif isinstance(item, Mapping):
            emit("{")
            for position, key in enumerate(item):
                if size > limit:
                    break
                emit(
                    ("" if position == 0 else ", ")
                    + json.dumps(str(key)[: limit + 1], ensure_ascii=False)
                    + ": "
                )
                walk(item[key], depth + 1)
            emit("}")
        elif isinstance(item, Sequence) and not isinstance(item, bytes):
            emit("[")
            for position in range(len(item)):
                if size > limit:
                    break
                if position:
                    emit(", ")
                walk(item[position], depth + 1)
            emit("]")
        else:
            emit(f"<{type(item).__name__}>")

    walk(value, 0)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar_excerpt(item: Any, limit: int) -> str | None:
    """A string, number, boolean or null as JSON (a string cut after `limit` characters); None for
    anything else."""
    if isinstance(item, str):
        return json.dumps(item[: limit + 1], ensure_ascii=False)
    if isinstance(item, float) and item.is_integer() and abs(item) < 1e16:
        return str(int(item))  # numbers cross the wire as floats: 22.0 was written 22
    if item is None or isinstance(item, bool | float):
        return json.dumps(item)
    if isinstance(item, int):
        return str(item) if item.bit_length() < 256 else f"<a {item.bit_length()}-bit integer>"
    return None


def _target(value: Any) -> Any:
    """The plain value behind an unknown-checking proxy (reading it never raises)."""
    # Hot (every step of the deploy rules' walks): the two proxy classes by identity first.
    kind = type(value)
    if kind is _DictProxy:
        return value._DictProxy__target
    if kind is _ListProxy:
        return value._ListProxy__target
    if kind.__name__ in _PROXY_NAMES:
        return value["__target"]
    return value


def map_behind(value: Any) -> dict[str, Any] | None:
    """The dict behind a plain dict or the engine's map proxy (its entries as `get_ref` reads them, a
    nested container still proxied); None for anything else."""
    kind = type(value)
    if kind is dict:
        return value  # type: ignore[no-any-return]
    if kind is _DictProxy:
        return value._DictProxy__target  # type: ignore[no-any-return]
    return None


def is_unknown(value: Any) -> bool:
    # `pulumi_policy.proxy._is_unknown`, inline (called for every value a rule walks).
    return isinstance(value, str) and value in _UNKNOWNS


def _check(value: Any, path: list[str]) -> Any:
    if _is_unknown(value):
        raise UnknownValueError(value, path)
    return value


def raw(obj: Mapping[str, Any], key: str) -> Any:
    """The value at `key`, unknown sentinels returned rather than raised (None when missing)."""
    target = obj.get("__target") if _is_proxy(obj) else obj
    if isinstance(target, Mapping):
        return target.get(key)
    return None


_PROXY_NAMES = ("_DictProxy", "_ListProxy")


def _is_proxy(obj: Any) -> bool:
    return type(obj).__name__ in _PROXY_NAMES


def get(obj: Any, path: str, default: Any = None) -> Any:
    """Walk a dotted path (`metadataOptions.httpTokens`, `rules.0.expiration.days`).

    Missing keys and out-of-range indices give `default`; an unknown value on the way raises
    `UnknownValueError` naming the path.
    """
    # The hottest function of the pack: plain dicts and the engine's proxies are told apart by their
    # exact type first, before the (slower) abstract-base-class checks any other mapping needs. A
    # proxy's step reads the dict or list behind it and raises, for an unknown, the very error its
    # `__getitem__` raises (the path from the proxy's root), without `Mapping.get`'s call chain.
    if "." not in path:
        value = _one_key(obj, path)
        if value is not _MISSING:
            return default if value is None else value
    current: Any = obj
    parts = path.split(".")
    for index, part in enumerate(parts):
        if current is None:
            return default
        kind = type(current)
        if kind is dict:
            current = current.get(part, _MISSING)
        elif kind is _DictProxy and part != "__target":
            value = current._DictProxy__target.get(part, _MISSING)
            if isinstance(value, str) and value in _UNKNOWNS:
                raise UnknownValueError(value, _append_prop(current._DictProxy__props_acc, part))
            current = value
        elif kind is _ListProxy:
            value = _at(current._ListProxy__target, part)
            if isinstance(value, str) and value in _UNKNOWNS:
                raise UnknownValueError(value, _append_prop(current._ListProxy__props_acc, int(part)))
            current = value
        else:
            current = _step(current, kind, part, parts[: index + 1])
        if current is _MISSING:
            return default
        if isinstance(current, str) and current in _UNKNOWNS:
            raise UnknownValueError(current, parts[: index + 1])
    return default if current is None else current


def _one_key(obj: Any, key: str) -> Any:
    """`get` of a path of one key (most reads) in a plain dict or a proxy, with the same steps and
    errors as its loop; `_MISSING` when `obj` is neither (the loop then takes it)."""
    kind = type(obj)
    if kind is dict:
        value = obj.get(key)
    elif kind is _DictProxy and key != "__target":
        value = obj._DictProxy__target.get(key)
        if isinstance(value, str) and value in _UNKNOWNS:
            raise UnknownValueError(value, _append_prop(obj._DictProxy__props_acc, key))
    else:
        return _MISSING
    if isinstance(value, str) and value in _UNKNOWNS:
        raise UnknownValueError(value, [key])
    return value


def _at(items: Any, part: str) -> Any:
    """`items[int(part)]`, or `_MISSING` when `part` is not an index or is out of range."""
    if not part.lstrip("-").isdigit():
        return _MISSING
    position = int(part)
    if position >= len(items) or position < -len(items):
        return _MISSING
    return items[position]


def _step(current: Any, kind: type, part: str, path: list[str]) -> Any:
    """One step of `get` into a value other than a plain dict or a proxy (`_MISSING`: not there)."""
    if kind in _MAPPINGS or (kind not in _SEQUENCES and isinstance(current, Mapping)):
        return current.get(part, _MISSING)
    if kind in _SEQUENCES or (isinstance(current, Sequence) and not isinstance(current, str | bytes)):
        return _at(current, part)
    if _is_unknown(current):
        raise UnknownValueError(current, path)
    return _MISSING


def get_objects(obj: Any, path: str) -> list[Any]:
    """The objects at `path`: a list of objects (or one object, as providers accept), [] when absent.

    An unknown list raises `UnknownValueError`; anything else (a number, a string, a list holding
    one) raises `Malformed`. Unknown entries are kept as sentinels (a reference to judge later)."""
    value = get(obj, path)
    if isinstance(value, Mapping):
        return [value]
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        if value is None:
            return []
        raise Malformed(f".{path} is {json_kind(value)}, not a list of objects", value)
    items = as_list(value)
    for index, item in enumerate(items):
        if item is not None and not isinstance(item, Mapping) and not is_unknown(item):
            raise Malformed(f".{path}.{index} is {json_kind(item)}, not an object", item)
    return [item for item in items if item is not None]


def get_list(obj: Any, path: str) -> list[Any]:
    """The list at `path` ([] when absent, a single value as a one-item list); an unknown list raises
    `UnknownValueError`, an object is `Malformed`. Entries are returned as they are."""
    value = get(obj, path)
    if isinstance(value, Mapping):
        raise Malformed(f".{path} is an object, not a list", value)
    return as_list(value)


def get_map(obj: Any, path: str) -> Mapping[str, Any]:
    """The object at `path` ({} when absent); an unknown raises `UnknownValueError`, any other
    shape `Malformed`."""
    value = get(obj, path)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Malformed(f".{path} is {json_kind(value)}, not an object", value)
    return value


def get_text(obj: Any, path: str) -> str | None:
    """The string at `path` (None when absent); an unknown raises, a list or object is `Malformed`.

    Numbers and booleans read as their JSON text, since providers accept them where a string goes."""
    value = get(obj, path)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return excerpt(value)
    raise Malformed(f".{path} is {json_kind(value)}, not a string", value)


def get_ref(obj: Any, path: str) -> Any:
    """Like `get`, but an unknown value is returned as-is: use for references (ids, ARNs)."""
    if "." not in path:
        # One key of a plain dict or a map proxy (most reads): the value itself, unknown or not.
        kind = type(obj)
        if kind is dict:
            return obj.get(path)
        if kind is _DictProxy and path != "__target":
            return obj._DictProxy__target.get(path)
    try:
        return get(obj, path)
    except UnknownValueError as error:
        return error.unknown_type_sentinel


def is_set(obj: Any, path: str) -> bool:
    """True when a reference is given, known or not (an unknown key ARN is still a key)."""
    value = get_ref(obj, path)
    return value is not None and value not in ("", [], {})


def truthy(value: Any) -> bool:
    """Booleans as providers send them: True, "true", 1; unknowns raise in `get` before this."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on", "enabled")
    return bool(value)


def as_list(value: Any) -> list[Any]:
    """None -> [], a single object -> [it], a list -> itself (as a plain list)."""
    if value is None:
        return []
    kind = type(value)
    if kind is list:
        return list(value)
    if kind is _ListProxy:
        # Each entry as the proxy's `__getitem__` gives it: the first unknown raises its error.
        target = value._ListProxy__target
        for index, item in enumerate(target):
            if isinstance(item, str) and item in _UNKNOWNS:
                raise UnknownValueError(item, _append_prop(value._ListProxy__props_acc, index))
        return list(target)
    if kind is dict or kind is _DictProxy or kind is str:
        return [value]
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [value[i] for i in range(len(value))]
    return [value]


def as_number(value: Any) -> float | None:
    """A finite number from a number or a numeric string; None when absent, not a number, NaN, infinite
    or too large for a float (no engine value can be: numbers cross the wire as doubles)."""
    if value is None or value == "":
        return None
    _check(value, [])
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def as_int(value: Any) -> int | None:
    """An integer from a number or a numeric string; None when absent or not a finite number."""
    number = as_number(value)
    return None if number is None else int(number)


def shared_plain(props: Any) -> Any:
    """`plain(props)` of a resource's properties, made once per evaluation for every index that reads
    them (`memo.per_object`): the result is shared, so callers must not change it."""
    from gpufleet.policies.memo import per_object

    return per_object(plain, props)


_LEAVES = frozenset({str, float, bool, int, type(None)})
"""Values `plain` returns as they are."""


def plain(value: Any) -> Any:
    """A plain copy (dicts and lists) of a possibly proxied value; unknowns stay sentinels."""
    kind = type(value)
    if kind is str or kind is float or kind is bool or kind is int or value is None:
        return value
    # The engine's proxies and plain containers by exact type first (no abstract-base-class check), and
    # their scalar entries taken as they are, without a call each.
    if kind is _DictProxy:
        target = value._DictProxy__target
        return {k: v if type(v) in _LEAVES else plain(v) for k, v in target.items()}
    if kind is dict:
        return {k: v if type(v) in _LEAVES else plain(v) for k, v in value.items()}
    if kind is _ListProxy:
        return [v if type(v) in _LEAVES else plain(v) for v in value._ListProxy__target]
    if kind is list:
        return [v if type(v) in _LEAVES else plain(v) for v in value]
    if kind in _MAPPINGS or isinstance(value, Mapping):
        target = value["__target"] if _is_proxy(value) else value
        return {k: plain(target[k]) for k in target}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        target = value["__target"] if _is_proxy(value) else value  # type: ignore[call-overload]
        return [plain(v) for v in target]
    return value


class DuplicateKey(ValueError):
    """A JSON object that names one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook` for `json.loads`: the object, refused when a key repeats (never last-wins)."""
    out: dict[str, Any] = {}
    for key, item in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = item
    return out


def json_value(value: Any, path: str = "") -> Any:
    """A JSON document given as a string or as an object (IAM documents, bucket policies).

    None (or "") when absent; `Malformed` when the string is not JSON, nests too deeply to read or
    repeats a key within one object (`{"Effect": "Deny", "Effect": "Allow"}`): clouds reject such a
    document or read one of the two, so no reading of it can be trusted and none is chosen."""
    if value is None or value == "":
        return None
    _check(value, [path] if path else [])
    where = f"the document at .{path}" if path else "the document"
    if isinstance(value, str):
        try:
            return json.loads(value, object_pairs_hook=_unique_keys)
        except DuplicateKey as duplicate:
            raise Malformed(f'{where} has duplicate key "{duplicate.key}"', value) from None
        except RecursionError:
            raise Malformed(f"{where} nests too deeply to read", value) from None
        except ValueError:  # not JSON, or an integer longer than Python reads
            raise Malformed(f"{where} is not valid JSON", value) from None
            raise Malformed(f"{where} nests too deeply to read", value) from None
    if isinstance(value, bytes) or not isinstance(value, Mapping | Sequence):
        raise Malformed(f"{where} is {json_kind(value)}, not a JSON document", value)
    try:
        return plain(value)
    except RecursionError:
        raise Malformed(f"{where} nests too deeply to read", value) from None
