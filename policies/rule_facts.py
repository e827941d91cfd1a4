"""A rule's catalogue facts gathered from the clouds' modules of its family.

A family's cloud modules (`policies/iam/aws.py`, `policies/audit/alicloud.py`, ...) give each rule's
cloud-specific metadata by rule id: `URLS` (the one documentation page of the rule, which one cloud's
module gives) and `CHECKOV` (the equivalent checkov checks, in cloud order). The rule module reads
them here, so it names no cloud. A rule may instead keep a plain attribute per cloud module (its
remediation fragment, its checkov ids, its one link): `sole`, `chained` and `by_cloud_name` read those.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from types import ModuleType
from typing import Any

from gpufleet.components.clouds import Cloud, part_values, profile


def _modules(parts: Mapping[Cloud, ModuleType], clouds: Container[str]) -> str:
    """The module names of `clouds` among `parts`, in cloud order, for an error message."""
    return ", ".join(module.__name__ for cloud, module in parts.items() if cloud in clouds) or "none"


def rule_url(parts: Mapping[Cloud, ModuleType], rule_id: str) -> str:
    """The documentation URL of `rule_id`: exactly one cloud's module gives it in its `URLS`."""
    found = {cloud: urls[rule_id] for cloud, urls in part_values(parts, "URLS").items() if rule_id in urls}
    if len(found) != 1:
        raise ValueError(
            f"{rule_id}: exactly one of {_modules(parts, parts)} must give its URL in URLS; "
            f"given by {_modules(parts, found)}"
        )
    return str(next(iter(found.values())))


def rule_checkov(parts: Mapping[Cloud, ModuleType], rule_id: str) -> tuple[str, ...]:
    """The checkov check ids equivalent to `rule_id`, each cloud's `CHECKOV` entry in cloud order."""
    return tuple(
        check for table in part_values(parts, "CHECKOV").values() for check in table.get(rule_id, ())
    )


def by_cloud(parts: Mapping[Cloud, ModuleType], attribute: str) -> dict[str, Any]:
    """`attribute` of each cloud's module that defines it, by cloud key (a plain string, for tables
    that callers index with a cloud read from a type token)."""
    return {str(key): value for key, value in part_values(parts, attribute).items()}


def clouds_with(parts: Mapping[Cloud, ModuleType], attribute: str) -> tuple[Cloud, ...]:
    """The clouds whose module defines `attribute`, in cloud order (the clouds a rule judges)."""
    return tuple(part_values(parts, attribute))


def joined(parts: Mapping[Cloud, ModuleType], attribute: str, separator: str) -> str:
    """The clouds' `attribute` strings (message or remediation fragments), in cloud order."""
    return separator.join(str(value) for value in part_values(parts, attribute).values())


def sole(parts: Mapping[Cloud, ModuleType], attribute: str) -> Any:
    """``attribute`` of the one cloud module that defines it (a rule's single documentation link);
    ValueError when none or several do, so the choice is never made by order."""
    found = part_values(parts, attribute)
    if len(found) != 1:
        raise ValueError(
            f"{attribute} must be defined by exactly one of {_modules(parts, parts)}; "
            f"defined by {_modules(parts, found)}"
        )
    return next(iter(found.values()))


def chained(parts: Mapping[Cloud, ModuleType], attribute: str) -> tuple[str, ...]:
    """The clouds' ``attribute`` tuples (checkov ids) one after another, in the order of clouds."""
    return tuple(item for items in part_values(parts, attribute).values() for item in items)


def by_cloud_name(parts: Mapping[Cloud, ModuleType], attribute: str) -> str:
    """Each cloud's ``attribute`` text after the cloud's name (`AWS: ... Alibaba Cloud: ...`)."""
    return " ".join(f"{profile(cloud).name}: {text}" for cloud, text in part_values(parts, attribute).items())


__all__ = [
    "by_cloud",
    "by_cloud_name",
    "chained",
    "clouds_with",
    "joined",
    "rule_checkov",
    "rule_url",
    "sole",
]
