"""Reading props that may hold values unknown at preview: `_Reader` records which decisive ones were
unknown; the helpers read a value as a number, an integer, a string, a phrase or a JSON document."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import as_list, as_number, get_ref, is_unknown


# --- reading helpers -----------------------------------------------------------------------------
class _Reader:
    """Reads one resource's props, remembering which decisive values were unknown."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props
        self.unknown: dict[str, tuple[str, str]] = {}

    def value(self, path: str, attribute: str | None = None) -> Any:
        value = get_ref(self.props, path)
        if is_unknown(value):
            if attribute:
                self.unknown.setdefault(attribute, (path, value))
            return None
        return value

    def number(self, path: str, attribute: str | None = None) -> float | None:
        return _num(self.value(path, attribute))

    def integer(self, path: str, attribute: str | None = None) -> int | None:
        number = self.number(path, attribute)
        return None if number is None else int(number)

    def string(self, path: str) -> str | None:
        value = self.value(path)
        return value if isinstance(value, str) and value else None

    def strings(self, path: str, attribute: str | None = None) -> list[str]:
        value = self.value(path, attribute)
        out = []
        for item in as_list(value):
            if is_unknown(item):
                if attribute:
                    self.unknown.setdefault(attribute, (path, item))
                continue
            if isinstance(item, str) and item:
                out.append(item)
        return out


def _num(value: Any) -> float | None:
    if is_unknown(value):
        return None
    return as_number(value)


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


def _join(*parts: str | None) -> str | None:
    given = [p for p in parts if p]
    return " ".join(given) if given else None


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str) and not is_unknown(value):
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}
