"""The GPU instances' IAM role: Session Manager access, its own data, its own key, its own logs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.storage.aws import AWS_REGION_RE
from gpufleet.components.tags import check_cost_tags

# What the SSM agent needs for Session Manager and nothing else: AWS's "minimal instance profile
# permissions for Session Manager" (registering the instance, opening the session channels). Not the
# managed AmazonSSMManagedInstanceCore, which also grants ssm:GetParameter(s) on every parameter of
# the account, Run Command's ec2messages and State Manager's associations, none of which the pools use.
SESSION_MANAGER_ACTIONS = (
    "ssm:UpdateInstanceInformation",
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
)
# Session Manager encrypts each session's data key with this in the encryption context.
SESSION_ID_CONTEXT = "kms:EncryptionContext:aws:ssm:SessionId"
# The CloudWatch agent's default namespace: every node of every stack could publish there.
SHARED_NAMESPACES = frozenset({"CWAgent"})


@dataclass(frozen=True, kw_only=True)
class InstanceIdentityArgs:
    """``kms_key_arns`` encrypt the bucket, which lives in ``bucket_region``: the role may use them
    through S3 there only. ``session_kms_key_arns`` encrypt Session Manager sessions, which the SSM
    agent decrypts itself (no service in between)."""

    bucket_arn: pulumi.Input[str]
    bucket_region: str
    kms_key_arns: Sequence[pulumi.Input[str]]
    log_group_arns: Sequence[pulumi.Input[str]]
    tags: Mapping[str, str]
    # The stack's own namespace (gpufleet.components.pools.userdata.agent_namespace): the only one the agent
    # may publish to, so no node of another stack publishes the metric this stack's pools scale on.
    metric_namespace: str
    session_kms_key_arns: Sequence[pulumi.Input[str]] = ()
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"
    partition: pulumi.Input[str] = "aws"
    # What one pool's instances need besides (pulling its container image, for one).
    extra_statements: Sequence[Statement] = ()

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
        if not self.metric_namespace or self.metric_namespace in SHARED_NAMESPACES:
            problems.append(
                f"metric_namespace: {self.metric_namespace!r} is shared by every stack; give the stack's own"
            )
        if not AWS_REGION_RE.match(self.bucket_region):
            problems.append(f"bucket_region: {self.bucket_region!r} is not an AWS region name like us-west-2")
        if problems:
            raise ValueError("InstanceIdentityArgs: " + "; ".join(problems))


def trust_statements() -> list[Statement]:
    return [
        Statement(
            sid="Ec2AssumesRole", principals={"Service": ["ec2.amazonaws.com"]}, actions=("sts:AssumeRole",)
        )
    ]


def permission_statements(args: InstanceIdentityArgs) -> list[Statement]:
    """What a training or inference instance needs: Session Manager, its data, keys, logs and metrics."""
    bucket = args.bucket_arn
    log_streams = [pulumi.Output.concat(arn, ":log-stream:*") for arn in args.log_group_arns]
    return [
        # ssmmessages actions take no resource; AWS's minimal policy grants all five on "*".
        Statement(sid="SessionManagerChannels", actions=SESSION_MANAGER_ACTIONS, resources=["*"]),
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
        # Deleting and aborting let a job replace its own checkpoints and clean up a failed upload.
        Statement(
            sid="ReadWriteCheckpoints",
            actions=("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"),
            resources=[pulumi.Output.concat(bucket, "/", args.checkpoint_prefix, "*")],
        ),
        # S3 encrypts with a data key (GenerateDataKey) and decrypts it (Decrypt); it never calls Encrypt.
        Statement(
            sid="UseBucketKeyThroughS3",
            actions=("kms:Decrypt", "kms:GenerateDataKey"),
            resources=list(args.kms_key_arns),
            conditions={"StringEquals": {"kms:ViaService": f"s3.{args.bucket_region}.amazonaws.com"}},
        ),
        *(
            [
                # Only data keys Session Manager encrypted for a session: the role cannot decrypt
                # anything else under the (account baseline's) session key.
                Statement(
                    sid="DecryptSessions",
                    actions=("kms:Decrypt",),
                    resources=list(args.session_kms_key_arns),
                    conditions={"Null": {SESSION_ID_CONTEXT: "false"}},
                )
            ]
            if args.session_kms_key_arns
            else []
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
            conditions={"StringEquals": {"cloudwatch:namespace": args.metric_namespace}},
        ),
        # The agent reads the instance's tags to append AutoScalingGroupName and drops every metric
        # until this succeeds. DescribeTags takes no resource scoping.
        Statement(sid="ReadInstanceTags", actions=("ec2:DescribeTags",), resources=["*"]),
        *args.extra_statements,
    ]


class InstanceIdentity(pulumi.ComponentResource):
    """One pool's instances' identity (each pool has its own, so no pool reads another's queue):
    an EC2-only role with one inline policy (``-permissions``: Session Manager's minimal actions,
    never SSH; the fleet's bucket prefixes, key and log groups; the stack's own metric namespace) and
    its instance profile, whose ARN output resolves only after the policy is attached (what uses it
    is created after it)."""

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
        permissions = aws.iam.RolePolicy(
            f"{name}-permissions",
            role=role.name,
            policy=document(permission_statements(args)),
            opts=child,
        )
        profile = aws.iam.InstanceProfile(f"{name}-profile", role=role.name, tags=dict(args.tags), opts=child)
        self.role_arn = role.arn
        self.role_name = role.name
        # Groups launch with the profile: handing it out only once the policy exists keeps the first
        # instances from booting without Session Manager, logs or the agent's DescribeTags.
        self.instance_profile_arn = pulumi.Output.all(profile.arn, permissions.id).apply(
            lambda values: str(values[0])
        )
        self.instance_profile_name = profile.name
        self.register_outputs({"role_arn": self.role_arn, "instance_profile_arn": self.instance_profile_arn})
