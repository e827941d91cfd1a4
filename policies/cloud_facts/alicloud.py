"""Alibaba Cloud facts of the pack's shared helpers (see `gpufleet.policies.cloud_facts`).

GPU families: `ecs.gn*`, `ecs.ebmgn*` (bare metal), `ecs.sccgn*` (super computing cluster), `ecs.sgn*` /
`ecs.vgn*` (vGPU), `ecs.egn*`, and the visual-computing `ecs.gi*` / `ecs.ebmgi*` (Intel Server GPUs).
Alibaba Cloud providers have no default tags.
"""

from __future__ import annotations

import re

GPU_FAMILY = re.compile(r"^ecs\.(gn|ebmgn|sccgn|sgn|vgn|egn|gi|ebmgi)\d", re.IGNORECASE)

GPU_CLASSES: dict[str, str] = {
    "ecs.gn6i": "T4",
    "ecs.gn6v": "V100",
    "ecs.gn6e": "V100",
    "ecs.gn7i": "A10",
    "ecs.gn7e": "A100",
    "ecs.gn7": "A100",
    "ecs.gn8is": "L20",
}


def gpu_class(name: str) -> str | None:
    """The GPU class of the type `name` of a GPU family."""
    return GPU_CLASSES.get(name.lower().split("-", 1)[0])
