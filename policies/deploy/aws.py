"""AWS's share of the deploy rules: the type tokens of the shipped stacks whose provider-schema
constraints `generate` extracts, and AWS's facts for GF-DEPLOY-003."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufleet.policies.deploy._values import locate, number, plain, show

# The AWS resources the fleet programs build (`generate` reads their constraints).
SCOPE = (
    "aws:autoscaling/group:Group",
    "aws:autoscaling/policy:Policy",
    "aws:autoscaling/schedule:Schedule",
    "aws:budgets/budget:Budget",
    "aws:cloudtrail/trail:Trail",
    "aws:cloudwatch/logGroup:LogGroup",
    "aws:cloudwatch/metricAlarm:MetricAlarm",
    "aws:ebs/defaultKmsKey:DefaultKmsKey",
    "aws:ebs/encryptionByDefault:EncryptionByDefault",
    "aws:ec2/customerGateway:CustomerGateway",
    "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:ec2/route:Route",
    "aws:ec2/routeTable:RouteTable",
    "aws:ec2/routeTableAssociation:RouteTableAssociation",
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:ec2/subnet:Subnet",
    "aws:ec2/vpc:Vpc",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:ec2/vpnConnection:VpnConnection",
    "aws:ec2/vpnGateway:VpnGateway",
    "aws:iam/instanceProfile:InstanceProfile",
    "aws:iam/role:Role",
    "aws:iam/rolePolicy:RolePolicy",
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    "aws:iam/serviceLinkedRole:ServiceLinkedRole",
    "aws:kms/alias:Alias",
    "aws:kms/externalKey:ExternalKey",
    "aws:kms/key:Key",
    "aws:kms/replicaExternalKey:ReplicaExternalKey",
    "aws:rolesanywhere/profile:Profile",
    "aws:rolesanywhere/trustAnchor:TrustAnchor",
    "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock",
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    "aws:s3/bucketPolicy:BucketPolicy",
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
    "aws:s3/bucketReplicationConfig:BucketReplicationConfig",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketVersioning:BucketVersioning",
    "aws:sns/topic:Topic",
    "aws:sns/topicPolicy:TopicPolicy",
    "aws:sqs/queue:Queue",
    "aws:sqs/queuePolicy:QueuePolicy",
    "aws:sqs/redriveAllowPolicy:RedriveAllowPolicy",
    "aws:ssm/document:Document",
)

# GF-DEPLOY-003: the field holding a scheduled action's first run, by type token.
START_FIELDS = {"aws:autoscaling/schedule:Schedule": "startTime"}
# The rule's reference: the S3 bucket naming rules.
CLOUD_RULES_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html"
# The `cloud_rules.json` rule a scheduled action's desired capacity breaks.
DESIRED_RULE = "asg-schedule-desired-in-bounds"


def desired_capacity(resource: Any, groups: Mapping[str, Any]) -> Iterator[str]:
    """An Auto Scaling scheduled action whose `desiredCapacity` lies outside its own `minSize`..`maxSize`."""
    if resource.resource_type != "aws:autoscaling/schedule:Schedule":
        return
    props = resource.props
    for found in locate(props, "desiredCapacity"):
        desired = number(found.value)
        low = number(plain(props.get("minSize"))[0])
        high = number(plain(props.get("maxSize"))[0])
        if desired is None or desired < 0 or low is None or high is None or low < 0 or high < 0:
            continue  # -1 is the provider's "not set"
        if not low <= desired <= high:
            yield (
                f"{found.path} is {found.quoted()}; allowed: {show(low)} to "
                f"{show(high)} (the action's minSize to maxSize)"
            )
