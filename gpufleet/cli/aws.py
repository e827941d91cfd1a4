"""AWS's facts for the CLI modules beside this one, read through ``cloud_parts("gpufleet.cli")``:
the inputs `gpufleet plan` shows beside each of its resources (plan_settings)."""

from __future__ import annotations

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
    "aws:kms/externalKey:ExternalKey": [("usage", "keyUsage"), ("enabled", "enabled")],
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
}
