"""Alibaba Cloud's facts for the CLI modules beside this one, read through ``cloud_parts("gpufleet.cli")``:
the inputs `gpufleet plan` shows beside each of its resources (plan_settings)."""

from __future__ import annotations

# Type token -> (label, camelCase input path) shown beside each resource. `*` walks every list item.
KEY_SETTINGS: dict[str, list[tuple[str, str]]] = {
    "alicloud:oss/bucket:Bucket": [
        ("sse", "serverSideEncryptionRule.sseAlgorithm"),
        ("key", "serverSideEncryptionRule.kmsMasterKeyId"),
        ("versioning", "versioning.status"),
        ("transition days", "lifecycleRules.*.transitions.*.days"),
    ],
    "alicloud:kms/key:Key": [("origin", "origin"), ("rotation", "automaticRotation")],
    "alicloud:ecs/instance:Instance": [
        ("type", "instanceType"),
        ("public bandwidth", "internetMaxBandwidthOut"),
        ("key pair", "keyName"),
        ("disk", "systemDiskCategory"),
    ],
    "alicloud:ess/scalingGroup:ScalingGroup": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("on-demand %", "onDemandPercentageAboveBaseCapacity"),
    ],
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": [
        ("types", "instanceTypes"),
        ("spot", "spotStrategy"),
        ("disk encrypted", "systemDiskEncrypted"),
    ],
    "alicloud:log/store:Store": [("retention days", "retentionPeriod")],
    "alicloud:ecs/securityGroupRule:SecurityGroupRule": [("ports", "portRange"), ("from", "cidrIp")],
}
