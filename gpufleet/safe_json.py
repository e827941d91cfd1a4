"""JSON input files read with the limits the stack-file reader keeps (`gpufleet.safe_yaml`): no NaN or
Infinity, no integer a double cannot hold, bounded nesting, size and string length. Problems raise
`JsonLimitError` naming the value's path."""

from __future__ import annotations

import json
from typing import Any

from gpufleet.safe_yaml import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES, MAX_SAFE_INTEGER, MAX_VALUE_CHARS, clip

__all__ = ["MAX_DEPTH", "JsonLimitError", "loads_limited"]


class JsonLimitError(ValueError):
    """A JSON text outside the limits; the message names where (`$.a.b[3]`) and what is allowed."""


def _constant(name: str) -> Any:
    raise JsonLimitError(f"{name} is not a number JSON allows; write a finite number or a string")


def _integer(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > len(str(MAX_SAFE_INTEGER)) or abs(int(text)) > MAX_SAFE_INTEGER:
        raise JsonLimitError(
            f"the integer {clip(text, 40)} is beyond ±2**53 (9,007,199,254,740,992), what a JSON number "
            "holds exactly"
        )
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JsonLimitError(f"the number {clip(text, 40)} is beyond what a double holds (about 1.8e308)")
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise JsonLimitError(
                f"the key {clip(key, 40)!r} is given twice in one object; a reader would keep only one "
                "of them: give it once"
            )
        seen[key] = value
    return seen


def loads_limited(text: str, *, unique_keys: bool = False) -> Any:
    """`json.loads(text)` within the limits above; `json.JSONDecodeError` for invalid JSON. With
    `unique_keys`, a key given twice in one object is a JsonLimitError (not the last one silently)."""
    if len(text) > MAX_FILE_BYTES:
        raise JsonLimitError(f"the file is {len(text):,} characters; at most {MAX_FILE_BYTES:,} are read")
    hook = _unique if unique_keys else None
    try:
        data = json.loads(
            text, parse_constant=_constant, parse_int=_integer, parse_float=_number, object_pairs_hook=hook
        )
    except RecursionError:
        raise JsonLimitError(f"values are nested more than {MAX_DEPTH} levels deep") from None
    _check(data)
    return data


def _check(data: Any) -> None:
    nodes = 0
    stack: list[tuple[Any, str, int]] = [(data, "$", 1)]
    while stack:
        value, where, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise JsonLimitError(f"more than {MAX_NODES:,} values in one file")
        if depth > MAX_DEPTH:
            raise JsonLimitError(f"{clip(where)}: values are nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, str) and len(value) > MAX_VALUE_CHARS:
            raise JsonLimitError(
                f"{where}: a string of {len(value):,} characters; at most {MAX_VALUE_CHARS:,}"
            )
        if isinstance(value, dict):
            for key, item in value.items():
                if len(key) > MAX_VALUE_CHARS:
                    raise JsonLimitError(
                        f"{where}: a key of {len(key):,} characters; at most {MAX_VALUE_CHARS:,}"
                    )
                stack.append((item, f"{where}.{clip(key, 60)}", depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value))
