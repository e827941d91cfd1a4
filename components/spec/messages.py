"""Pydantic's field errors rephrased to say what is allowed, each with its full field path."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel

from gpufleet.components import spec_limits as limits
from gpufleet.components.spec.pool import WORKLOAD_FORMS
from gpufleet.components.spec.specs import FleetSpec
from gpufleet.components.spec.values import CONFIG_KEY, NO_SSH_MESSAGE, _show


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        else:
            return annotation


def _model_at(loc: tuple[Any, ...], root: type[BaseModel] | None = None) -> type[BaseModel] | None:
    annotation: Any = root or FleetSpec
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if part not in annotation.model_fields:
                return None
            annotation = annotation.model_fields[part].annotation
        elif typing.get_origin(annotation) is dict:
            annotation = typing.get_args(annotation)[1]
        elif typing.get_origin(annotation) is list:
            annotation = typing.get_args(annotation)[0]
        else:
            return None
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _path(loc: tuple[Any, ...], key: str = CONFIG_KEY) -> str:
    path = key
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            path += f"[{part}]"
        else:
            path += f".{limits.clip(str(part), 60)}"
    return path


def _choices(expected: str) -> str:
    names = re.findall(r"'([^']*)'|(\w+)", expected)
    return ", ".join(a or b for a, b in names if (a or b) != "or")


_SIMPLE_MESSAGES = {
    "missing": "is required",
    "int_type": "must be a whole number, got {input}",
    "int_parsing": "must be a whole number, got {input}",
    "int_from_float": "must be a whole number, got {input}",
    "float_type": "must be a number, got {input}",
    "float_parsing": "must be a number, got {input}",
    "bool_type": "must be true or false, got {input}",
    "bool_parsing": "must be true or false, got {input}",
    "string_type": "must be a string, got {input}",
    "dict_type": "must be a mapping, got {input}",
    "list_type": "must be a list, got {input}",
    "none_required": "must be left out, got {input}",
    "finite_number": "must be a finite number, got {input}",
}


# A required field left out: what to give, where the bare "is required" would leave the reader guessing.
_MISSING_HINTS = {
    ("scheduler", "api_server"): (
        "is required: the on-prem API server burst nodes join, its IPv4 address and port inside "
        "onprem.node_cidrs, like 192.168.16.10:6443"
    ),
}


def _shape_message(kind: str, loc: tuple[Any, ...], shown: str) -> str:
    """A missing field, or a mapping given as something else: the forms the field takes."""
    if kind == "missing":
        return _MISSING_HINTS.get(loc[-2:], _SIMPLE_MESSAGES["missing"])
    if loc[-1:] == ("workload",):
        return f"must be a mapping with exactly one of {', '.join(WORKLOAD_FORMS)}, got {shown}"
    return f"must be a mapping of settings, got {shown}"


def _message(error: Mapping[str, Any], root: type[BaseModel] | None = None) -> tuple[tuple[Any, ...], str]:
    kind: str = error["type"]
    loc: tuple[Any, ...] = tuple(error["loc"])
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    shown = _show(error.get("input"))
    if loc and loc[-1] == "[key]":
        return loc[:-1], f"names must be strings, got {shown}"
    if kind == "extra_forbidden":
        model = _model_at(loc[:-1], root)
        allowed = ", ".join(model.model_fields) if model else "none"
        close = difflib.get_close_matches(
            str(loc[-1]).lower(), list(model.model_fields) if model else [], n=1
        )
        hint = f" did you mean {close[0]!r}?" if close else ""
        return loc[:-1], f"unknown field {limits.quote(str(loc[-1]), 60)};{hint} allowed: {allowed}"
    if kind == "literal_error":
        if loc[-2:] == ("access", "session_manager"):
            return loc, NO_SSH_MESSAGE
        choices = _choices(str(ctx.get("expected", "")))
        given = error.get("input")
        close = (
            difflib.get_close_matches(given.lower(), choices.split(", "), n=1)
            if isinstance(given, str)
            else []
        )
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return loc, f"must be one of {choices}, got {shown}{hint}"
    if kind in ("model_type", "model_attributes_type", "missing"):
        return loc, _shape_message(kind, loc, shown)
    if kind == "greater_than_equal":
        return loc, f"must be >= {_show(ctx['ge'])}, got {shown}"
    if kind == "less_than_equal":
        return loc, f"must be <= {_show(ctx['le'])}, got {shown}"
    if kind == "greater_than":
        return loc, f"must be > {_show(ctx['gt'])}, got {shown}"
    if kind == "less_than":
        return loc, f"must be < {_show(ctx['lt'])}, got {shown}"
    if kind == "too_short":
        return loc, f"must have at least {ctx['min_length']} entry, got none"
    if kind in ("value_error", "assertion_error"):
        message = str(ctx.get("error", error["msg"]))
        return loc, message.removeprefix("Value error, ")
    if kind in _SIMPLE_MESSAGES:
        return loc, _SIMPLE_MESSAGES[kind].format(input=shown)
    return loc, str(error["msg"])
