"""Alibaba Cloud facts of GF-COST-009: where disk categories are set (disks, ECS instances and
instance sets, ESS scaling configurations) with the provider's default, the legacy categories and the
remediation sentence."""

from __future__ import annotations

# token -> [(path, list item key or None, default when unset or None)]
FIELDS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "alicloud:ecs/disk:Disk": [("category", None, "cloud_efficiency")],
    "alicloud:ecs/ecsDisk:EcsDisk": [("category", None, "cloud_efficiency")],
    "alicloud:ecs/instance:Instance": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
    "alicloud:ecs/ecsInstanceSet:EcsInstanceSet": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": [
        ("systemDiskCategory", None, "cloud_efficiency"),
        ("dataDisks", "category", "cloud_efficiency"),
    ],
}
# A disk category, lower-cased, -> the advice.
LEGACY = {"cloud": "cloud_essd", "cloud_efficiency": "cloud_essd", "cloud_ssd": "cloud_essd"}
REMEDIATION = "Alibaba Cloud: set `category` / `systemDiskCategory` / `dataDisks[].category` to cloud_essd."


def normalise(value: str) -> str:
    """The form `LEGACY` is keyed by (categories are lower case)."""
    return value.lower()
