"""A small typed accessor over resource properties as the engine presents them.

Properties use the engine's camelCase wire names. Under the real engine, `props` is wrapped in
pulumi_policy's unknown-checking proxy, which raises `UnknownValueError` on access to a value not
known at preview; plain dicts (tests, direct calls) carry the raw unknown sentinels instead. These
helpers treat both the same way: an unknown decisive value raises `UnknownValueError`, and
`is_unknown()` lets a rule accept an unknown *reference* (a key ARN of a key created in the same
program) as "set".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import UnknownValueError, _is_unknown

_MISSING = object()


def is_unknown(value: Any) -> bool:
    return _is_unknown(value)


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


def _is_proxy(obj: Any) -> bool:
    return type(obj).__name__ in ("_DictProxy", "_ListProxy")


def get(obj: Any, path: str, default: Any = None) -> Any:
    """Walk a dotted path (`metadataOptions.httpTokens`, `rules.0.expiration.days`).

    Missing keys and out-of-range indices give `default`; an unknown value on the way raises
    `UnknownValueError` naming the path.
    """
    walked: list[str] = []
    current: Any = obj
    for part in path.split("."):
        walked.append(part)
        if current is None:
            return default
        if isinstance(current, Mapping):
            current = current.get(part, _MISSING)
            if current is _MISSING:
                return default
        elif isinstance(current, Sequence) and not isinstance(current, str | bytes):
            if not part.lstrip("-").isdigit():
                return default
            index = int(part)
            if index >= len(current) or index < -len(current):
                return default
            current = current[index]
        else:
            _check(current, walked)
            return default
        _check(current, walked)
    return default if current is None else current


def get_ref(obj: Any, path: str) -> Any:
    """Like `get`, but an unknown value is returned as-is: use for references (ids, ARNs)."""
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
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [value[i] for i in range(len(value))]
    return [value]


def as_int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    _check(value, [])
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def plain(value: Any) -> Any:
    """A plain copy (dicts and lists) of a possibly proxied value; unknowns stay sentinels."""
    if isinstance(value, Mapping):
        target = value["__target"] if _is_proxy(value) else value
        return {k: plain(target[k]) for k in target}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        target = value["__target"] if _is_proxy(value) else value  # type: ignore[call-overload]
        return [plain(v) for v in target]
    return value


def json_value(value: Any, path: str = "") -> Any:
    """A JSON document given as a string or as an object (IAM documents, bucket policies)."""
    if value is None:
        return None
    _check(value, [path] if path else [])
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return None
    return plain(value)
