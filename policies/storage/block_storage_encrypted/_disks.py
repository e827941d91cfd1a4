"""The disks a volume carrier declares, as each cloud's module (`aws`, `alicloud`, `tencentcloud`)
reads them for GF-STOR-008, and the readers they share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpufleet.policies.props import as_list, get, truthy


@dataclass(frozen=True)
class Disk:
    what: str
    encrypted: bool


# A volume carrier's label and disks, as a cloud's `disks` reads them.
Carrier = tuple[str, list[Disk]]


def flag(obj: Any, key: str) -> bool:
    return truthy(get(obj, key))


def data_disks(props: Mapping[str, Any], key: str) -> list[Disk]:
    return [
        Disk(f"data disk #{i} (dataDisks[].{key})", flag(disk, key))
        for i, disk in enumerate(as_list(get(props, "dataDisks")))
    ]
