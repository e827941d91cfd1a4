"""The inputs `gpufleet plan` shows beside each resource, by type token."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gpufleet.graph import Resource, is_secret

# Type token -> (label, camelCase input path) shown beside each resource. `*` walks every list item.
KEY_SETTINGS: dict[str, list[tuple[str, str]]] = {
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": [
        ("sse", "rules.*.applyServerSideEncryptionByDefault.sseAlgorithm"),
        ("key", "rules.*.applyServerSideEncryptionByDefault.kmsMasterKeyId"),
    ],
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": [
        ("block acls", "blockPublicAcls"),
        ("block policy", "blockPublicPolicy"),
        ("ignore acls", "ignorePublicAcls"),
        ("restrict", "restrictPublicBuckets"),
    ],
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": [
        ("transition days", "rules.*.transitions.*.days"),
        ("class", "rules.*.transitions.*.storageClass"),
        ("expire days", "rules.*.expiration.days"),
    ],
    "aws:s3/bucketVersioning:BucketVersioning": [("versioning", "versioningConfiguration.status")],
    "aws:kms/key:Key": [("rotation", "enableKeyRotation"), ("usage", "keyUsage")],
    "aws:kms/externalKey:ExternalKey": [("origin", "keyUsage"), ("enabled", "enabled")],
    "aws:ec2/launchTemplate:LaunchTemplate": [
        ("type", "instanceType"),
        ("IMDS", "metadataOptions.httpTokens"),
        ("hop limit", "metadataOptions.httpPutResponseHopLimit"),
        ("disk encrypted", "blockDeviceMappings.*.ebs.encrypted"),
        ("volume", "blockDeviceMappings.*.ebs.volumeType"),
        ("key pair", "keyName"),
    ],
    "aws:ec2/instance:Instance": [
        ("type", "instanceType"),
        ("IMDS", "metadataOptions.httpTokens"),
        ("root encrypted", "rootBlockDevice.encrypted"),
        ("public ip", "associatePublicIpAddress"),
        ("key pair", "keyName"),
    ],
    "aws:autoscaling/group:Group": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("on-demand %", "mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity"),
        ("types", "mixedInstancesPolicy.launchTemplate.overrides.*.instanceType"),
    ],
    "aws:autoscaling/schedule:Schedule": [
        ("recurrence", "recurrence"),
        ("min", "minSize"),
        ("max", "maxSize"),
        ("tz", "timeZone"),
    ],
    "aws:autoscaling/policy:Policy": [("kind", "policyType"), ("cooldown", "cooldown")],
    "aws:cloudwatch/metricAlarm:MetricAlarm": [
        ("metric", "metricName"),
        ("threshold", "threshold"),
        ("periods", "evaluationPeriods"),
        ("period s", "period"),
    ],
    "aws:cloudwatch/logGroup:LogGroup": [("retention days", "retentionInDays"), ("kms", "kmsKeyId")],
    "aws:cloudtrail/trail:Trail": [("multi-region", "isMultiRegionTrail"), ("kms", "kmsKeyId")],
    "aws:budgets/budget:Budget": [
        ("limit", "limitAmount"),
        ("unit", "limitUnit"),
        ("alert %", "notifications.*.threshold"),
    ],
    "aws:ec2/securityGroup:SecurityGroup": [
        ("ingress ports", "ingress.*.fromPort"),
        ("from", "ingress.*.cidrBlocks.*"),
    ],
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": [
        ("port", "fromPort"),
        ("from", "cidrIpv4"),
    ],
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": [("policy", "policyArn")],
    "aws:ec2/vpc:Vpc": [("cidr", "cidrBlock")],
    "aws:ec2/subnet:Subnet": [("cidr", "cidrBlock"), ("public ip", "mapPublicIpOnLaunch")],
    "aws:ec2/vpnConnection:VpnConnection": [
        ("ike", "tunnel1IkeVersions"),
        ("phase 1", "tunnel1Phase1EncryptionAlgorithms"),
    ],
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
    "kubernetes:core/v1:ResourceQuota": [("hard", "spec.hard")],
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": [("value", "value")],
}
_SETTINGS_TEXT_LIMIT = 90


def _walk(value: Any, parts: Sequence[str]) -> Iterator[Any]:
    if is_secret(value):
        yield "[secret]"
        return
    if not parts:
        if value is not None:
            yield value
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(value, list):
            for item in value:
                yield from _walk(item, rest)
        return
    if isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={_fmt(v)}" for k, v in value.items())
    return str(value)


def key_settings(resource: Resource) -> str:
    """`label=value` pairs for the inputs that matter for this type (see KEY_SETTINGS)."""
    shown: list[str] = []
    for label, path in KEY_SETTINGS.get(resource.type, ()):
        values = list(dict.fromkeys(_fmt(v) for v in _walk(resource.inputs, path.split("."))))
        if values:
            shown.append(f"{label}={'/'.join(values)}")
    text = "  ".join(shown)
    return text if len(text) <= _SETTINGS_TEXT_LIMIT else text[: _SETTINGS_TEXT_LIMIT - 1] + "…"
