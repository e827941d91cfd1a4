"""Instance types and bare AWS families (`g5`, `p4d`, as AWS Batch takes them) against the catalogue:
the GPU class of each, the catalogue types a family stands for, and the instance counts a vCPU budget
(Batch's `minVcpus`/`maxVcpus`) buys of each type."""

from __future__ import annotations

import math
import re
from typing import Any

from gpufleet.components.clouds import part_values
from gpufleet.policies.cost.pools.tokens import PARTS
from gpufleet.policies.gpu import CatalogLike, gpu_class_of

# Each cloud's pattern of a bare GPU family name its pools may name in place of an instance type
# (`BARE_FAMILY` of its token module; AWS Batch's `g5`, `p4d`); a cloud without one takes no families.
_BARE_FAMILIES: dict[str, re.Pattern[str]] = dict(part_values(PARTS, "BARE_FAMILY").items())


def is_family(cloud: str, name: str) -> bool:
    """A bare GPU family name of `cloud` (AWS: `g5`, `p4d`, `p6-b200`): Batch launches any size of it."""
    pattern = _BARE_FAMILIES.get(cloud)
    return pattern is not None and bool(pattern.match(name.strip()))


def pool_gpu_class(cloud: str, name: str, catalog: CatalogLike | None) -> tuple[bool, str | None]:
    """(carries GPUs, GPU class when known) of an instance type or a bare AWS family."""
    if not is_family(cloud, name):
        is_gpu, gpu_class, _ = gpu_class_of(cloud, name, catalog)
        return is_gpu, gpu_class
    for member in family_members(catalog, cloud, name):
        gpu_class = getattr(member, "gpu_class", None)
        if gpu_class:
            return True, str(gpu_class)
    # A family is told by its prefix as `<family>.<size>` would be.
    _, gpu_class, _ = gpu_class_of(cloud, f"{name.strip()}.", None)
    return True, gpu_class


def family_members(catalog: CatalogLike | None, cloud: str, family: str) -> list[Any]:
    """The catalogue's types of a bare family (none when the catalogue cannot list its types)."""
    listing = getattr(catalog, "types", None)
    if catalog is None or not callable(listing):
        return []
    wanted = family.strip().lower()
    return [t for t in listing(cloud) if str(getattr(t, "name", "")).split(".", 1)[0].lower() == wanted]


def expand(catalog: CatalogLike | None, cloud: str, names: tuple[str, ...]) -> list[tuple[str, Any]]:
    """(name, catalogue entry or None) for every type a pool may launch, families expanded to their
    catalogue types (a family the catalogue has no type of stays as itself, unpriced)."""
    out: list[tuple[str, Any]] = []
    for name in names:
        if is_family(cloud, name):
            members = family_members(catalog, cloud, name)
            out.extend((str(m.name), m) for m in members)
            if not members:
                out.append((name, None))
        else:
            out.append((name, catalog.find(cloud, name) if catalog is not None else None))
    return out


def vcpu_count(vcpus: int, entry: Any) -> int | None:
    """Instances of `entry` that `vcpus` buys: Batch may exceed the budget by one instance to fit."""
    size = getattr(entry, "vcpu", None)
    if not isinstance(size, int | float) or isinstance(size, bool) or size <= 0:
        return None
    return math.ceil(vcpus / size)
