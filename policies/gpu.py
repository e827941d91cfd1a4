"""Is an instance type a GPU type, and which GPU does it carry? The catalogue first, family prefixes next.

The catalogue (`components.catalog`) knows the types gpufleet prices and is authoritative for them. A
user's program may name any other type, so every GPU family of each cloud is also recognised by its
documented prefix (a letter family followed by its generation digit):

- AWS: the accelerated-computing families with NVIDIA/AMD GPUs: `g*` (g3, g4dn, g4ad, g5, g5g, g6,
  g6e, gr6, ...) and `p*` (p2, p3, p4d, p5, p6-b200, ...). Trainium, Inferentia and Gaudi (`trn*`,
  `inf*`, `dl1`) are accelerators without GPUs and are not counted.
- Alibaba Cloud: `ecs.gn*`, `ecs.ebmgn*` (bare metal), `ecs.sccgn*` (super computing cluster),
  `ecs.sgn*` / `ecs.vgn*` (vGPU), `ecs.egn*`, and the visual-computing `ecs.gi*` / `ecs.ebmgi*`
  (Intel Server GPUs).
- Tencent Cloud: `GN*`, `GNV*`, `GT*`, `GI*`, `PNV*`, `HCCPNV*`, `HCCGNV*`, `HCCG*`, `BMGN*`, `BMGNV*`.

Each cloud's prefixes and family classes live in its module of `gpufleet.policies.cloud_facts`.

EKS AMI types that ship the NVIDIA driver (`AL2_x86_64_GPU`, `AL2023_x86_64_NVIDIA`, `BOTTLEROCKET_*_NVIDIA`)
mark a node group as GPU whatever its instance types.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from gpufleet.policies.cloud_facts import facts_of


class CatalogLike(Protocol):
    def find(self, cloud: str, name: str) -> Any: ...

    def convert(self, amount: float, from_cur: str, to_cur: str) -> float: ...


_GPU_AMI_TYPES = re.compile(r"(_GPU|_NVIDIA)$", re.IGNORECASE)

_catalog_override: list[CatalogLike | None] = []
_loaded: list[CatalogLike | None] = []


def current_catalog() -> CatalogLike | None:
    """The GPU catalogue, loaded once; None when it is not installed alongside the pack or its data
    file is broken (a broken file must not take the whole pack down: family prefixes still judge)."""
    if _catalog_override:
        return _catalog_override[-1]
    if not _loaded:
        try:
            from gpufleet.components.catalog import load_catalog

            _loaded.append(load_catalog())
        except Exception:
            _loaded.append(None)
    return _loaded[0]


@contextmanager
def use_catalog(catalog: CatalogLike | None) -> Iterator[None]:
    """Judge with another catalogue (tests, a pinned price list)."""
    _catalog_override.append(catalog)
    try:
        yield
    finally:
        _catalog_override.pop()


def _family_class(cloud: str, name: str) -> tuple[bool, str | None]:
    """(is a GPU family, its GPU class when known) from the type's family prefix (the cloud's facts in
    `gpufleet.policies.cloud_facts`)."""
    facts = facts_of(cloud)
    if facts is None or not facts.GPU_FAMILY.match(name):
        return False, None
    gpu_class: str | None = facts.gpu_class(name)
    return True, gpu_class


def gpu_class_of(cloud: str, name: str, catalog: CatalogLike | None = None) -> tuple[bool, str | None, str]:
    """(is a GPU type, its GPU class or None, how it was told: "catalogue" | "family" | "none")."""
    if catalog is not None:
        found = catalog.find(cloud, name)
        if found is not None:
            gpu_class = getattr(found, "gpu_class", None)
            count = getattr(found, "gpu_count", 0) or 0
            return bool(gpu_class) and count > 0, gpu_class, "catalogue"
    is_gpu, gpu_class = _family_class(cloud, name.strip())
    return is_gpu, gpu_class, "family" if is_gpu else "none"


def is_gpu_type(cloud: str, instance_type: Any) -> bool:
    """True when `instance_type` on `cloud` ("aws", "alicloud", "tencentcloud") carries GPUs; False
    for anything that is not a type name (an unknown value, a number)."""
    if not isinstance(instance_type, str) or not instance_type:
        return False
    return gpu_class_of(cloud, instance_type, current_catalog())[0]


def is_gpu_family_or_type(cloud: str, value: Any) -> bool:
    """`is_gpu_type`, plus bare family names where a cloud's resources take them for types (AWS Batch
    compute environments take `g5`, `p4d` in `instanceTypes`; "optimal" and "default_*" pick
    general-purpose families: not GPU)."""
    if is_gpu_type(cloud, value):
        return True
    bare = getattr(facts_of(cloud), "BARE_GPU_FAMILY", None)
    return bare is not None and isinstance(value, str) and bool(bare.match(value.strip()))


def is_gpu_ami_type(ami_type: Any) -> bool:
    """True for an EKS AMI type that ships the NVIDIA driver."""
    return isinstance(ami_type, str) and bool(_GPU_AMI_TYPES.search(ami_type))


def cloud_of(resource_type: str) -> str:
    """The cloud a type token belongs to: the token's package (`aws`, `alicloud`, `tencentcloud`)."""
    return resource_type.split(":", 1)[0]
