"""Tencent Cloud facts of the pack's shared helpers (see `gpufleet.policies.cloud_facts`).

GPU families: `GN*`, `GNV*`, `GT*`, `GI*`, `PNV*`, `HCCPNV*`, `HCCGNV*`, `HCCG*`, `BMGN*`, `BMGNV*`.
Tencent Cloud providers have no default tags.
"""

from __future__ import annotations

import re

GPU_FAMILY = re.compile(r"^(GN|GNV|GT|GI|PNV|HCCPNV|HCCGNV|HCCG|BMGN|BMGNV)\d", re.IGNORECASE)

GPU_CLASSES: dict[str, str] = {
    "GN7": "T4",
    "GN10X": "V100",
    "GNV4": "A10",
    "PNV4": "A10",
    "GT4": "A100",
    "GN10XP": "V100",
}


def gpu_class(name: str) -> str | None:
    """The GPU class of the type `name` of a GPU family."""
    return GPU_CLASSES.get(name.split(".", 1)[0].upper())
