"""Rule metadata assembled from the clouds' modules, in the registry's order of clouds.

A rule that judges several clouds keeps each cloud's part of its remediation, its documentation link
and its checkov ids in that cloud's module (`<package>.aws`, `.alicloud`, `.tencentcloud`), so a new
cloud adds its module and no edit here. Used by the kms, storage and resilience rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from gpufleet.components.clouds import Cloud, part_values, profile


def sole(parts: Mapping[Cloud, ModuleType], attribute: str) -> Any:
    """``attribute`` of the one cloud module that defines it (a rule's single documentation link);
    ValueError when none or several do, so the choice is never made by order."""
    found = part_values(parts, attribute)
    if len(found) != 1:
        raise ValueError(f"{attribute} must be defined by exactly one cloud, not {sorted(found) or 'none'}")
    return next(iter(found.values()))


def chained(parts: Mapping[Cloud, ModuleType], attribute: str) -> tuple[str, ...]:
    """The clouds' ``attribute`` tuples (checkov ids) one after another, in the order of clouds."""
    return tuple(item for items in part_values(parts, attribute).values() for item in items)


def by_cloud_name(parts: Mapping[Cloud, ModuleType], attribute: str) -> str:
    """Each cloud's ``attribute`` text after the cloud's name (`AWS: ... Alibaba Cloud: ...`)."""
    return " ".join(f"{profile(cloud).name}: {text}" for cloud, text in part_values(parts, attribute).items())


def clouds_with(parts: Mapping[Cloud, ModuleType], attribute: str) -> tuple[Cloud, ...]:
    """The clouds whose module defines ``attribute`` (the clouds a rule judges), in order."""
    return tuple(part_values(parts, attribute))
