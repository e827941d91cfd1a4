"""JSON without NaN or Infinity: non-finite numbers become null, and the places are named in a note.

Python's `json.dumps` writes `NaN` and `Infinity` by default, which strict JSON parsers (jq, Go, most
CI tooling) reject. Every JSON the CLI writes goes through `dumps`, which replaces them and dumps with
`allow_nan=False`, so a new non-finite number fails loudly in tests instead of writing invalid JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

_MAX_NAMED = 5


def finite(
    value: Any, where: str = "$", default: Callable[[Any], Any] | None = None
) -> tuple[Any, list[str]]:
    """`value` with each NaN or infinite float replaced by None, and the JSON paths replaced; `default`
    turns other objects into JSON values, as for `json.dumps`."""
    replaced: list[str] = []

    def walk(item: Any, path: str) -> Any:
        if isinstance(item, float):
            if math.isfinite(item):
                return item
            replaced.append(path)
            return None
        if isinstance(item, dict):
            return {key: walk(child, f"{path}.{key}") for key, child in item.items()}
        if isinstance(item, list | tuple):
            return [walk(child, f"{path}[{index}]") for index, child in enumerate(item)]
        if item is None or isinstance(item, str | int) or default is None:
            return item
        return walk(default(item), path)

    return walk(value, where), replaced


def note(replaced: list[str]) -> str:
    """One sentence naming (the first few of) the replaced places."""
    named = ", ".join(replaced[:_MAX_NAMED]) + (
        f" and {len(replaced) - _MAX_NAMED} more" if len(replaced) > _MAX_NAMED else ""
    )
    return (
        f"{named}: not a finite number (NaN or beyond a double, e.g. from a size of 10**307); written as null"
    )


def dumps(document: Any, *, indent: int | None = 2, default: Callable[[Any], Any] | None = None) -> str:
    """`document` as strict JSON plus a newline; non-finite numbers become null with a top-level note
    (`notes`, when the document is an object)."""
    cleaned, replaced = finite(document, default=default)
    if replaced and isinstance(cleaned, dict):
        notes = cleaned.get("notes")
        cleaned["notes"] = [*(notes if isinstance(notes, list) else []), note(replaced)]
    return json.dumps(cleaned, indent=indent, allow_nan=False) + "\n"
