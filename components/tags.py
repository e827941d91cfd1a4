"""Cost-tag helpers shared by the cloud components."""

from __future__ import annotations

from collections.abc import Mapping

REQUIRED_COST_TAGS = ("project", "team", "cost-center", "env")


def check_cost_tags(tags: Mapping[str, str], path: str = "tags") -> list[str]:
    """Problems with a tag map that must carry every cost tag (empty when complete)."""
    return [f"{path}: missing cost tag {key!r}" for key in REQUIRED_COST_TAGS if not tags.get(key)]


def with_tags(tags: Mapping[str, str], **extra: str) -> dict[str, str]:
    """A copy of ``tags`` with ``extra`` added; keyword names use ``_`` for ``-``."""
    merged = dict(tags)
    merged.update({key.replace("_", "-"): value for key, value in extra.items()})
    return merged
