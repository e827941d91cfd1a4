"""Helpers for reading checkov's resource configuration, where every attribute value is wrapped in a
list (`{"internet_max_bandwidth_out": [10]}`) and blocks are lists of dicts."""

from __future__ import annotations

import json
from typing import Any


def first(conf: dict[str, Any], key: str) -> Any:
    """The attribute's value, unwrapped from checkov's one-item list; None when unset."""
    value = conf.get(key)
    if isinstance(value, list):
        return value[0] if value else None
    return value


def blocks(conf: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = conf.get(key)
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        out: list[dict[str, Any]] = []
        for item in value:
            if isinstance(item, dict):
                out.append(item)
            elif isinstance(item, list):
                out += [i for i in item if isinstance(i, dict)]
        return out
    return []


def document(value: Any) -> dict[str, Any] | None:
    """A policy document given as JSON text or already parsed."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
