"""The regions each cloud's provider accepts: an ``alicloud:region``, ``tencentcloud:region`` or a pool's
``region`` outside its cloud's list is a typo, reported with the allowed values.

Each cloud's list is its catalogue module's ``REGIONS`` (``catalog/aws.py``: the AWS provider's own;
``catalog/alicloud.py``: Alibaba Cloud's public ECS regions; ``catalog/tencentcloud.py``: Tencent Cloud's
public CVM regions), in the registry's order of clouds.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

from gpufleet.components.clouds import CLOUD_NAMES, cloud_parts, part_values

# The regions of each cloud, by the cloud's name in the spec.
_PARTS = cloud_parts("gpufleet.components.catalog")
REGIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    cast(dict[str, Any], part_values(_PARTS, "REGIONS"))
)


def region_problem(cloud: str, region: str) -> str | None:
    """Why ``region`` is not one of ``cloud``'s regions (the allowed values listed), or None."""
    allowed = REGIONS.get(cloud)
    if allowed is None or region in allowed:
        return None
    shown = region if len(region) <= 64 else region[:64] + "..."
    return f"unknown {CLOUD_NAMES[cloud]} region {shown!r}; use one of {', '.join(allowed)}"
