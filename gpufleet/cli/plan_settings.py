"""The inputs `gpufleet plan` shows beside each resource, by type token."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_merged
from gpufleet.graph import Resource, is_secret

# Type token -> (label, camelCase input path) shown beside each resource. `*` walks every list item.
# Each cloud's entries come first, in registry order (KEY_SETTINGS in gpufleet/cli/<cloud>.py).
KEY_SETTINGS: dict[str, list[tuple[str, str]]] = {
    **part_merged(cloud_parts("gpufleet.cli"), "KEY_SETTINGS"),
    "kubernetes:core/v1:ResourceQuota": [("hard", "spec.hard")],
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": [("value", "value")],
}
_SETTINGS_TEXT_LIMIT = 90


def _walk(value: Any, parts: Sequence[str]) -> Iterator[Any]:
    if is_secret(value):
        yield "[secret]"
        return
    if not parts:
        if value is not None:
            yield value
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(value, list):
            for item in value:
                yield from _walk(item, rest)
        return
    if isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={_fmt(v)}" for k, v in value.items())
    return str(value)


def key_settings(resource: Resource) -> str:
    """`label=value` pairs for the inputs that matter for this type (see KEY_SETTINGS)."""
    shown: list[str] = []
    for label, path in KEY_SETTINGS.get(resource.type, ()):
        values = list(dict.fromkeys(_fmt(v) for v in _walk(resource.inputs, path.split("."))))
        if values:
            shown.append(f"{label}={'/'.join(values)}")
    text = "  ".join(shown)
    return text if len(text) <= _SETTINGS_TEXT_LIMIT else text[: _SETTINGS_TEXT_LIMIT - 1] + "…"
