"""The GPU instances' IAM role: Session Manager access, its own data, its own key, its own logs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.identity.documents import Statement, document
from components.tags import check_cost_tags

SSM_CORE_POLICY = "AmazonSSMManagedInstanceCore"
CLOUDWATCH_AGENT_NAMESPACE = "CWAgent"


@dataclass(frozen=True, kw_only=True)
class InstanceIdentityArgs:
    bucket_arn: pulumi.Input[str]
    kms_key_arns: Sequence[pulumi.Input[str]]
    log_group_arns: Sequence[pulumi.Input[str]]
    tags: Mapping[str, str]
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"
    partition: pulumi.Input[str] = "aws"

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.kms_key_arns:
            problems.append("kms_key_arns: at least one key is needed to read encrypted checkpoints")
        if not self.log_group_arns:
            problems.append("log_group_arns: at least one log group is needed for agent and session logs")
        for field_name in ("data_prefix", "checkpoint_prefix"):
            prefix = getattr(self, field_name)
            if not prefix.endswith("/") or prefix.startswith("/") or "*" in prefix:
                problems.append(f"{field_name}: {prefix!r} must look like 'name/' without wildcards")
        if problems:
            raise ValueError("InstanceIdentityArgs: " + "; ".join(problems))


def trust_statements() -> list[Statement]:
    return [
        Statement(
            sid="Ec2AssumesRole", principals={"Service": ["ec2.amazonaws.com"]}, actions=("sts:AssumeRole",)
        )
    ]


def permission_statements(args: InstanceIdentityArgs) -> list[Statement]:
    """What a training or inference instance needs beyond Session Manager's managed policy."""
    bucket = args.bucket_arn
    log_streams = [pulumi.Output.concat(arn, ":log-stream:*") for arn in args.log_group_arns]
    return [
        Statement(
            sid="ListOwnPrefixes",
            actions=("s3:ListBucket",),
            resources=[bucket],
            conditions={"StringLike": {"s3:prefix": [f"{args.data_prefix}*", f"{args.checkpoint_prefix}*"]}},
        ),
        Statement(
            sid="ReadData",
            actions=("s3:GetObject",),
            resources=[pulumi.Output.concat(bucket, "/", args.data_prefix, "*")],
        ),
        Statement(
            sid="ReadWriteCheckpoints",
            actions=("s3:GetObject", "s3:PutObject"),
            resources=[pulumi.Output.concat(bucket, "/", args.checkpoint_prefix, "*")],
        ),
        Statement(
            sid="UseFleetKey",
            actions=("kms:Decrypt", "kms:GenerateDataKey", "kms:Encrypt"),
            resources=list(args.kms_key_arns),
        ),
        Statement(
            sid="WriteOwnLogs",
            actions=("logs:CreateLogStream", "logs:PutLogEvents"),
            resources=[*args.log_group_arns, *log_streams],
        ),
        # Session Manager checks the session log group exists before streaming to it.
        Statement(sid="FindLogGroups", actions=("logs:DescribeLogGroups",), resources=["*"]),
        # The CloudWatch agent publishes the GPU utilisation the scaling alarms watch.
        Statement(
            sid="PublishGpuMetrics",
            actions=("cloudwatch:PutMetricData",),
            resources=["*"],
            conditions={"StringEquals": {"cloudwatch:namespace": CLOUDWATCH_AGENT_NAMESPACE}},
        ),
    ]


class InstanceIdentity(pulumi.ComponentResource):
    """An EC2-only role with ``AmazonSSMManagedInstanceCore`` (Session Manager, never SSH), one inline
    policy scoped to the fleet's bucket prefixes, key and log groups, and its instance profile."""

    role_arn: pulumi.Output[str]
    role_name: pulumi.Output[str]
    instance_profile_arn: pulumi.Output[str]
    instance_profile_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: InstanceIdentityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:identity:InstanceIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role",
            description="GPU fleet instances",
            assume_role_policy=document(trust_statements()),
            tags=dict(args.tags),
            opts=child,
        )
        aws.iam.RolePolicyAttachment(
            f"{name}-ssm-core",
            role=role.name,
            policy_arn=pulumi.Output.concat("arn:", args.partition, ":iam::aws:policy/", SSM_CORE_POLICY),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-permissions",
            role=role.name,
            policy=document(permission_statements(args)),
            opts=child,
        )
        profile = aws.iam.InstanceProfile(f"{name}-profile", role=role.name, tags=dict(args.tags), opts=child)
        self.role_arn = role.arn
        self.role_name = role.name
        self.instance_profile_arn = profile.arn
        self.instance_profile_name = profile.name
        self.register_outputs({"role_arn": self.role_arn, "instance_profile_arn": self.instance_profile_arn})
