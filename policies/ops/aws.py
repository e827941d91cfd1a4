"""AWS's facts and checks for the operability rules (GF-OPS-*): the rules' AWS references and message
fragments, the scaling metrics' publishers (`_aws_metrics`), the scale-in cooldown of Auto Scaling and
Application Auto Scaling policies, the account-wide singletons, the principals of key, bucket, topic
and queue policies (`_aws_principals`), and the keys pending import and what uses them."""

from __future__ import annotations

from collections.abc import Mapping

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_LAUNCH_TEMPLATE,
    AWS_METRIC_ALARM,
)
from gpufleet.policies.ops._aws_metrics import METRIC_TYPES, metric_alarms, metric_judge
from gpufleet.policies.ops._aws_principals import (
    POLICY_HOLDERS,
    PRINCIPALS_DESCRIPTION,
    PRINCIPALS_REMEDIATION,
    principal_problems,
)
from gpufleet.policies.ops._aws_sources import group_templates
from gpufleet.policies.ops._common import DEFAULT_COOLDOWN_S, cannot_tell, number, quoted, unknown
from gpufleet.policies.ops._cooldown import (
    fired_step_problem,
    policy_kind,
    sets_a_size,
    short_cooldown,
    step_adjustments,
)
from gpufleet.policies.props import get_ref, is_unknown

__all__ = [
    "METRIC_TYPES",
    "POLICY_HOLDERS",
    "PRINCIPALS_DESCRIPTION",
    "PRINCIPALS_REMEDIATION",
    "metric_alarms",
    "metric_judge",
    "principal_problems",
]

# The rules' references, by rule id.
URLS = {
    "GF-OPS-001": "https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/metrics-collected-by-CloudWatch-agent.html",
    "GF-OPS-002": "https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-overview.html",
    "GF-OPS-003": "https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-scaling-simple-step.html",
    "GF-OPS-004": "https://docs.aws.amazon.com/systems-manager/latest/userguide/getting-started-create-preferences-cli.html",
    "GF-OPS-005": "https://docs.aws.amazon.com/kms/latest/developerguide/importing-keys.html",
}

# --- GF-OPS-001: scaling metrics (`_aws_metrics`) ---------------------------------------------------------

METRIC_REMEDIATION = (
    "Scale on a metric with a publisher in the stack: AWS/SQS ApproximateNumberOfMessagesVisible of "
    "an aws.sqs.Queue the program creates, or a CloudWatch agent metric whose instance role allows "
    "cloudwatch:PutMetricData for that namespace (and ec2:DescribeTags when the agent appends "
    "AutoScalingGroupName), with interface endpoints for monitoring and ec2 (private DNS) or a NAT "
    "route in the pool's subnets."
)

# --- GF-OPS-003: scale-in cooldown ------------------------------------------------------------------------

COOLDOWN_TYPES = (AWS_ASG_POLICY, AWS_APPAS_POLICY)
# (alarm type, policy type): the alarms whose actions fire a scaling policy.
COOLDOWN_FIRES = (AWS_METRIC_ALARM, AWS_ASG_POLICY)
COOLDOWN_EXAMPLE = "AWS autoscaling.Policy policy_type='SimpleScaling', scaling_adjustment=-1, cooldown=300"


def cooldown_problem(
    index: ResourceIndex, view: ResourceView, fired: Mapping[str, list[str]], minimum: int
) -> str | None:
    """An Auto Scaling step policy fired by an alarm that scales in, a simple policy with a short
    cooldown, or an Application Auto Scaling step policy with a short cooldown."""
    if view.resource_type == AWS_ASG_POLICY:
        return _simple_or_step(index, view, fired, minimum)
    return _appas(view, minimum)


def _simple_or_step(
    index: ResourceIndex, view: ResourceView, fired: Mapping[str, list[str]], minimum: int
) -> str | None:
    policy_type = policy_kind(view, "policyType", "SimpleScaling")
    if policy_type == "StepScaling":
        fix = (
            f"scale in with a SimpleScaling policy whose cooldown is at least {minimum} s, or with target "
            "tracking"
        )
        return fired_step_problem(view, fired, "step-scaling policy", fix)
    if policy_type != "SimpleScaling":
        return None
    adjustment = number(view, "scalingAdjustment")
    if adjustment is None or adjustment >= 0 or sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    source = "a cooldown"
    if cooldown is None:
        groups = index.refs(view, "autoscalingGroupName", (AWS_ASG,))
        if not groups:
            cannot_tell(
                view.urn,
                f"simple-scaling policy '{view.name}' has no cooldown and its group is not in the stack, "
                "so the group's defaultCooldown that applies is not known; set the policy's cooldown",
                "cooldown",
            )
            return None
        defaults = [number(group, "defaultCooldown") for group in groups]
        cooldown = min((d if d is not None else DEFAULT_COOLDOWN_S) for d in defaults)
        source = f"the default cooldown of group {quoted(g.name for g in groups)}"
    if cooldown >= minimum:
        return None
    return short_cooldown("simple-scaling policy", view, cooldown, source, minimum)


def _appas(view: ResourceView, minimum: int) -> str | None:
    if policy_kind(view, "policyType", "StepScaling") != "StepScaling":
        return None
    config = "stepScalingPolicyConfiguration"
    steps = step_adjustments(view, f"{config}.stepAdjustments")
    if sets_a_size(view, f"{config}.adjustmentType") or not any(s < 0 for s in steps):
        return None
    cooldown = number(view, f"{config}.cooldown")
    if cooldown is None or cooldown >= minimum:  # Application Auto Scaling's default is 300 s
        return None
    return short_cooldown("Application Auto Scaling step policy", view, cooldown, "a cooldown", minimum)


# --- GF-OPS-004: account-wide singletons ------------------------------------------------------------------

# The Session Manager preferences document: type token -> the name that makes it the account's one.
SESSION_DOCUMENTS = {"aws:ssm/document:Document": "SSM-SessionManagerRunShell"}
# type token -> what it sets, where it is one
ACCOUNT_SETTINGS: Mapping[str, tuple[str, str]] = {
    "aws:ebs/encryptionByDefault:EncryptionByDefault": ("EBS encryption by default", "account and region"),
    "aws:ebs/defaultKmsKey:DefaultKmsKey": ("the default EBS encryption key", "account and region"),
    "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults": (
        "the instance metadata (IMDS) defaults",
        "account and region",
    ),
    "aws:ec2/serialConsoleAccess:SerialConsoleAccess": ("EC2 serial console access", "account and region"),
    "aws:ebs/snapshotBlockPublicAccess:SnapshotBlockPublicAccess": (
        "the EBS snapshot public-access block",
        "account and region",
    ),
    "aws:ec2/imageBlockPublicAccess:ImageBlockPublicAccess": (
        "the AMI public-access block",
        "account and region",
    ),
    "aws:ec2/vpcBlockPublicAccessOptions:VpcBlockPublicAccessOptions": (
        "the VPC block-public-access options",
        "account and region",
    ),
    "aws:ssm/serviceSetting:ServiceSetting": ("an SSM service setting", "account and region"),
    "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock": (
        "the S3 account public-access block",
        "account",
    ),
    "aws:iam/accountPasswordPolicy:AccountPasswordPolicy": ("the IAM account password policy", "account"),
    "aws:iam/accountAlias:AccountAlias": ("the account alias", "account"),
}

# --- GF-OPS-005: keys pending import ----------------------------------------------------------------------

# External keys, pending import without `keyMaterialBase64`.
PENDING_KEY_TYPES = ("aws:kms/externalKey:ExternalKey", "aws:kms/replicaExternalKey:ReplicaExternalKey")
# Alias type -> the input naming its key.
KEY_ALIASES = {"aws:kms/alias:Alias": "targetKeyId"}
IMPORT_COMMAND = "aws kms import-key-material"
# How the remediation names the clouds whose external key takes its material as an input.
MATERIAL_NAME = "AWS"
# What uses a key: type token -> (what it is, the inputs naming the key).
KEY_USERS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "aws:cloudwatch/logGroup:LogGroup": ("log group", ("kmsKeyId",)),
    "aws:ebs/volume:Volume": ("EBS volume", ("kmsKeyId",)),
    "aws:ebs/defaultKmsKey:DefaultKmsKey": ("default EBS key", ("keyArn",)),
    AWS_LAUNCH_TEMPLATE: ("launch template", ("blockDeviceMappings",)),
    "aws:ec2/instance:Instance": ("instance", ("rootBlockDevice", "ebsBlockDevices")),
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
        "bucket encryption",
        ("rules",),
    ),
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2": (
        "bucket encryption",
        ("rules",),
    ),
    "aws:s3/bucket:Bucket": ("bucket", ("serverSideEncryptionConfiguration",)),
    "aws:s3/bucketV2:BucketV2": ("bucket", ("serverSideEncryptionConfigurations",)),
    "aws:sns/topic:Topic": ("topic", ("kmsMasterKeyId",)),
    "aws:sqs/queue:Queue": ("queue", ("kmsMasterKeyId",)),
    "aws:cloudtrail/trail:Trail": ("trail", ("kmsKeyId",)),
    "aws:efs/fileSystem:FileSystem": ("EFS file system", ("kmsKeyId",)),
    "aws:fsx/lustreFileSystem:LustreFileSystem": ("FSx for Lustre file system", ("kmsKeyId",)),
    "aws:secretsmanager/secret:Secret": ("secret", ("kmsKeyId",)),
    "aws:rds/instance:Instance": ("RDS instance", ("kmsKeyId",)),
    "aws:rds/cluster:Cluster": ("RDS cluster", ("kmsKeyId",)),
    "aws:ecr/repository:Repository": ("ECR repository", ("encryptionConfigurations",)),
}
# Messaging services check the key when a message is sent, not when the topic or queue is created.
CHECKED_ON_SEND = frozenset({"aws:sns/topic:Topic", "aws:sqs/queue:Queue"})
# Launch templates, whose keys the groups launching from them wait on.
KEY_TEMPLATE_TYPES = frozenset({AWS_LAUNCH_TEMPLATE})
# Groups that wait for capacity at creation.
CAPACITY_GROUPS = (AWS_ASG,)


def _waits_for_capacity(group: ResourceView) -> bool:
    timeout = get_ref(group.props, "waitForCapacityTimeout")
    if is_unknown(timeout):
        raise unknown(timeout, "waitForCapacityTimeout")
    if isinstance(timeout, str) and timeout.strip() in ("0", "0s", "0m"):
        return False
    sizes = [number(group, p) for p in ("minSize", "desiredCapacity", "minElbCapacity", "waitForElbCapacity")]
    return any(size is not None and size > 0 for size in sizes)


def capacity_problem(
    index: ResourceIndex, group: ResourceView, template_keys: Mapping[str, list[str]]
) -> str | None:
    """An Auto Scaling group that waits for capacity while its launch template's key is pending import."""
    templates = [t for t in group_templates(index, group) if t.urn in template_keys]
    if not templates or not _waits_for_capacity(group):
        return None
    timeout = get_ref(group.props, "waitForCapacityTimeout") or "10m"
    return (
        f"Auto Scaling group '{group.name}' waits up to {timeout} for capacity, but its launch "
        f"template {quoted(t.name for t in templates)} encrypts volumes with a key pending import, "
        "so no instance launches and the deployment times out; set waitForCapacityTimeout to "
        '"0" until the material is imported'
    )
