"""The JSON-schema subset a policy's config is checked against (type, enum, items, properties,
additionalProperties, minimum, maximum), with the messages `gpufleet.policy_config` reports."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

from gpufleet.safe_yaml import MAX_SAFE_INTEGER, quote

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict, Mapping),
    "null": (type(None),),
}


def _is_type(value: Any, json_type: str) -> bool:
    if json_type in ("integer", "number") and isinstance(value, bool):
        return False
    if json_type == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(json_type, (object,)))


def describe(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    json_type = schema.get("type")
    if isinstance(json_type, list):
        text = " or ".join(json_type)
    elif json_type == "array" and isinstance(schema.get("items"), Mapping):
        text = f"an array of {describe(schema['items'])}"
    else:
        text = str(json_type or "any value")
    bounds = []
    if "minimum" in schema:
        bounds.append(f">= {schema['minimum']}")
    if "maximum" in schema:
        bounds.append(f"<= {schema['maximum']}")
    return text + (f" ({', '.join(bounds)})" if bounds else "")


def _finite(value: float) -> bool:
    """A number the engine carries exactly as a double: not NaN or infinite, not beyond ±2**53."""
    if isinstance(value, int):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return math.isfinite(value) and abs(value) <= sys.float_info.max


def schema_problems(value: Any, schema: Mapping[str, Any], path: str) -> list[str]:
    """Type problems of `value` against the JSON-schema subset policy configs use (type, enum, items,
    properties, additionalProperties, minimum, maximum)."""
    json_type = schema.get("type")
    if json_type is not None:
        types = json_type if isinstance(json_type, list) else [json_type]
        if not any(_is_type(value, t) for t in types):
            return [f"{path}: {json.dumps(value, default=str)} is not allowed; expected {describe(schema)}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {json.dumps(value, default=str)} is not allowed; expected {describe(schema)}"]
    problems: list[str] = []
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not _finite(value):
            return [
                f"{path}: {quote(value, 60)} is not allowed; expected a finite number within ±2**53 "
                f"({describe(schema)})"
            ]
        problems.extend(_bound_problems(value, schema, path))
    if isinstance(value, list | tuple) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            problems.extend(schema_problems(item, schema["items"], f"{path}[{index}]"))
    if isinstance(value, Mapping):
        problems.extend(_mapping_problems(value, schema, path))
    return problems


def _bound_problems(value: float, schema: Mapping[str, Any], path: str) -> list[str]:
    """The number `value` against the schema's `minimum` and `maximum`."""
    problems: list[str] = []
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{path}: {value} is below the minimum {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        problems.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    return problems


def _mapping_problems(value: Mapping[Any, Any], schema: Mapping[str, Any], path: str) -> list[str]:
    """Each key of `value` against the schema's `properties` and `additionalProperties`."""
    problems: list[str] = []
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            problems.extend(schema_problems(item, properties[key], f"{path}.{key}"))
        elif isinstance(extra, Mapping):
            problems.extend(schema_problems(item, extra, f"{path}.{key}"))
        elif extra is False:
            allowed = ", ".join(sorted(properties)) or "none"
            problems.append(f"{path}.{key}: unknown key; allowed keys: {allowed}")
    return problems
