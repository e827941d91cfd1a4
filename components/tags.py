"""Cost-tag helpers shared by the cloud components."""

from __future__ import annotations

from collections.abc import Mapping

import pulumi

REQUIRED_COST_TAGS = ("project", "team", "cost-center", "env")
# Unique to one stack of one project: what the budget filters on, so dev and prod in one account never
# count each other's spend (the `project` tag is the same in both).
STACK_TAG = "gpufleet:stack"

# The architecture of a pool's image, tagged on its launch template / scaling or launch configuration
# where the image id does not say it (a lookup's answer, a bare Alibaba m-... or Tencent img-... id), so
# GF-FIT-003 (policies/fit/image_arch.py) holds it against the instance types.
IMAGE_ARCH_TAG = "gpufleet:image-arch"


def check_cost_tags(tags: Mapping[str, str], path: str = "tags") -> list[str]:
    """Problems with a tag map that must carry every cost tag (empty when complete)."""
    return [f"{path}: missing cost tag {key!r}" for key in REQUIRED_COST_TAGS if not tags.get(key)]


def with_tags(tags: Mapping[str, str], **extra: str) -> dict[str, str]:
    """A copy of ``tags`` with ``extra`` added; keyword names use ``_`` for ``-``."""
    merged = dict(tags)
    merged.update({key.replace("_", "-"): value for key, value in extra.items()})
    return merged


def current_stack() -> str:
    """``<project>/<stack>`` of the running program: the value of :data:`STACK_TAG`."""
    return f"{pulumi.get_project()}/{pulumi.get_stack()}"


def image_arch_tags(arch: str | None) -> dict[str, str]:
    """``{IMAGE_ARCH_TAG: arch}`` when the image's architecture is known, else nothing (not judged)."""
    return {IMAGE_ARCH_TAG: arch} if arch in ("x86_64", "arm64") else {}
