"""Tencent Cloud's facts for the CLI modules beside this one, read through ``cloud_parts("gpufleet.cli")``:
the inputs `gpufleet plan` shows beside each of its resources (plan_settings)."""

from __future__ import annotations

# Type token -> (label, camelCase input path) shown beside each resource. `*` walks every list item.
KEY_SETTINGS: dict[str, list[tuple[str, str]]] = {
    "tencentcloud:Cos/bucket:Bucket": [
        ("sse", "encryptionAlgorithm"),
        ("key", "kmsId"),
        ("acl", "acl"),
        ("versioning", "versioningEnable"),
    ],
    "tencentcloud:Kms/key:Key": [("rotation", "keyRotationEnabled"), ("enabled", "isEnabled")],
    "tencentcloud:Instance/instance:Instance": [
        ("type", "instanceType"),
        ("public ip", "allocatePublicIp"),
        ("disk", "systemDiskType"),
    ],
    "tencentcloud:As/scalingGroup:ScalingGroup": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("cooldown", "defaultCooldown"),
    ],
    "tencentcloud:As/scalingConfig:ScalingConfig": [
        ("types", "instanceTypes"),
        ("charge", "instanceChargeType"),
    ],
    "tencentcloud:Cls/topic:Topic": [("retention days", "period")],
}
