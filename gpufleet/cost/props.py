"""What the estimate reads off a program's resources and config: tags in either shape, the default
region of a cloud."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _default_region(config: Mapping[str, Any], cloud: str) -> str | None:
    value = config.get(f"{cloud}:region")
    return value if isinstance(value, str) and value else None


def _tags(props: Mapping[str, Any]) -> dict[str, str]:
    tags = props.get("tags")
    found: dict[str, str] = {}
    if isinstance(tags, Mapping):
        found.update({str(k): str(v) for k, v in tags.items()})
    elif isinstance(tags, list):  # AWS ASG tags: [{key, value, propagateAtLaunch}]
        for tag in tags:
            if isinstance(tag, Mapping) and "key" in tag:
                found[str(tag["key"])] = str(tag.get("value", ""))
    return found
