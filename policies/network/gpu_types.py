"""Is an instance type a GPU type? Shared by the network and Kubernetes rules.

The GPU catalogue (`components.catalog`) answers first; types it does not list are recognised by
their family prefix, so the pack judges programs that use types newer than the catalogue:

- AWS: `p*` and `g*` families (p3, p4d, p5, g4dn, g5, g6, g6e, gr6, ...). Trainium, Inferentia and
  Gaudi (trn, inf, dl) are accelerators without NVIDIA GPUs and are not counted.
- Alibaba Cloud: `ecs.gn*`, `ecs.vgn*`, `ecs.sgn*`, `ecs.ebmgn*`, `ecs.gi*`.
- Tencent Cloud: GN*, GNV*, GI*, GT*, PNV*, HCCPNV* and HCCG* families.
- EKS AMI types that ship the NVIDIA driver (`AL2_x86_64_GPU`, `*_NVIDIA`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_PREFIXES = {
    "aws": re.compile(r"^(p\d+[a-z]*|gr?\d+[a-z]*)\.", re.IGNORECASE),
    "alicloud": re.compile(r"^ecs\.(ebm|scc|v|s)?gn\d|^ecs\.gi\d", re.IGNORECASE),
    "tencentcloud": re.compile(r"^(GNV?|GI|GT|PNV|HCCPNV|HCCG)\d", re.IGNORECASE),
}
GPU_AMI_TYPES = re.compile(r"(_GPU|_NVIDIA)$", re.IGNORECASE)


@cache
def _catalog() -> Any:
    try:
        from components.catalog import load_catalog
    except ImportError:
        return None
    try:
        return load_catalog()
    except Exception:  # a broken data file must not take the policy pack down with it
        return None


def is_gpu_instance_type(cloud: str, name: Any) -> bool:
    if not isinstance(name, str) or not name:
        return False
    catalog = _catalog()
    if catalog is not None:
        found = catalog.find(cloud, name)
        if found is not None and getattr(found, "gpu_count", 1) > 0:
            return True
    pattern = _PREFIXES.get(cloud)
    return bool(pattern and pattern.match(name))


def is_gpu_ami_type(ami_type: Any) -> bool:
    return isinstance(ami_type, str) and bool(GPU_AMI_TYPES.search(ami_type))
