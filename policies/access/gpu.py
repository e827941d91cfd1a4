"""Is an instance type a GPU type? The catalogue first, a family-prefix heuristic for the rest.

The catalogue (`components.catalog`) knows the types gpufleet prices; a user's program may name any
other type, so the heuristic covers every GPU family of each cloud by its documented prefix:

- AWS: accelerated-computing families with NVIDIA/AMD GPUs: `g*` (g4dn, g5, g6, g6e, gr6, ...) and
  `p*` (p3, p4d, p5, ...). Trainium/Inferentia (`trn*`, `inf*`) and Gaudi (`dl1`) carry no GPU.
- Alibaba Cloud: `ecs.gn*`, `ecs.ebmgn*` (bare metal), `ecs.sgn*` / `ecs.vgn*` (vGPU), `ecs.egn*`.
- Tencent Cloud: `GN*`, `GNV*`, `GT*`, `GI*`, `PNV*`, `HCCPNV*`, `HCCGNV*`, `BMGN*`, `BMGNV*`.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_FAMILY_PATTERNS = {
    "aws": re.compile(r"^(g\d|gr\d|p\d)[a-z0-9-]*\.", re.IGNORECASE),
    "alicloud": re.compile(r"^ecs\.(gn|ebmgn|sgn|vgn|egn)\d", re.IGNORECASE),
    "tencentcloud": re.compile(r"^(GN|GNV|GT|GI|PNV|HCCPNV|HCCGNV|BMGN|BMGNV)\d", re.IGNORECASE),
}


@cache
def _catalog() -> Any:
    """The GPU catalogue, or None when the catalogue package is not installed alongside the pack."""
    try:
        from components.catalog import load_catalog
    except ImportError:
        return None
    try:
        return load_catalog()
    except Exception:  # a broken data file must not take the whole policy pack down
        return None


def is_gpu_type(cloud: str, instance_type: str) -> bool:
    """True when `instance_type` on `cloud` ("aws", "alicloud", "tencentcloud") carries GPUs."""
    catalog = _catalog()
    if catalog is not None:
        try:
            if catalog.find(cloud, instance_type) is not None:
                return True
        except Exception:  # an unexpected catalogue error falls back to the documented prefixes
            pass
    pattern = _FAMILY_PATTERNS.get(cloud)
    return bool(pattern and pattern.match(instance_type.strip()))


def cloud_of(resource_type: str) -> str:
    """The cloud a type token belongs to: the token's package (`aws`, `alicloud`, `tencentcloud`)."""
    return resource_type.split(":", 1)[0]
