"""The fleet's KMS key on AWS: one key encrypts checkpoints, volumes, logs, the trail and alerts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_aws as aws

from components.identity.documents import Statement, document
from components.tags import check_cost_tags

ADMIN_ACTIONS = (
    "kms:Create*",
    "kms:Describe*",
    "kms:Enable*",
    "kms:List*",
    "kms:Put*",
    "kms:Update*",
    "kms:Revoke*",
    "kms:Disable*",
    "kms:Get*",
    "kms:Delete*",
    "kms:ImportKeyMaterial",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:ScheduleKeyDeletion",
    "kms:CancelKeyDeletion",
)
USE_ACTIONS = ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey")


@dataclass(frozen=True, kw_only=True)
class FleetKeyArgs:
    """``encryption`` "sse-kms" creates a key with AWS-generated material and yearly rotation;
    "byok" creates a key whose material the owner imports (origin EXTERNAL), which AWS cannot rotate."""

    encryption: Literal["sse-kms", "byok"]
    account_id: pulumi.Input[str]
    region: str
    tags: Mapping[str, str]
    partition: pulumi.Input[str] = "aws"
    description: str = "gpufleet checkpoints, volumes and logs"
    deletion_window_days: int = 30

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.encryption not in ("sse-kms", "byok"):
            problems.append(f"encryption: {self.encryption!r} is not one of 'sse-kms', 'byok'")
        if not 7 <= self.deletion_window_days <= 30:
            problems.append(f"deletion_window_days: {self.deletion_window_days} is outside 7..30")
        if problems:
            raise ValueError("FleetKeyArgs: " + "; ".join(problems))


def key_policy_statements(args: FleetKeyArgs) -> list[Statement]:
    """The account administers the key through IAM; AWS services use it only on this account's behalf."""
    account = pulumi.Output.from_input(args.account_id)
    partition = pulumi.Output.from_input(args.partition)
    root = pulumi.Output.concat("arn:", partition, ":iam::", account, ":root")
    asg_role = pulumi.Output.concat(
        "arn:",
        partition,
        ":iam::",
        account,
        ":role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling",
    )
    log_groups = pulumi.Output.concat("arn:", partition, ":logs:", args.region, ":", account, ":log-group:*")
    trails = pulumi.Output.concat("arn:", partition, ":cloudtrail:*:", account, ":trail/*")
    same_account = {"StringEquals": {"aws:SourceAccount": account}}
    return [
        Statement(
            sid="AccountAdministersKey",
            principals={"AWS": [root]},
            actions=(*ADMIN_ACTIONS, *USE_ACTIONS, "kms:CreateGrant"),
            resources=["*"],
        ),
        # Auto Scaling launches instances with volumes encrypted by this key through its linked role.
        Statement(
            sid="AutoScalingUsesKeyForVolumes",
            principals={"AWS": [asg_role]},
            actions=USE_ACTIONS,
            resources=["*"],
        ),
        Statement(
            sid="AutoScalingGrantsForVolumes",
            principals={"AWS": [asg_role]},
            actions=("kms:CreateGrant",),
            resources=["*"],
            conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}},
        ),
        Statement(
            sid="LogsEncryptLogGroups",
            principals={"Service": [f"logs.{args.region}.amazonaws.com"]},
            actions=USE_ACTIONS,
            resources=["*"],
            conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": log_groups}},
        ),
        Statement(
            sid="CloudTrailEncryptsLogs",
            principals={"Service": ["cloudtrail.amazonaws.com"]},
            actions=("kms:GenerateDataKey*",),
            resources=["*"],
            conditions={"StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": trails}, **same_account},
        ),
        Statement(
            sid="CloudTrailDescribesKey",
            principals={"Service": ["cloudtrail.amazonaws.com"]},
            actions=("kms:DescribeKey",),
            resources=["*"],
            conditions=same_account,
        ),
        # Budgets publishes alerts to the KMS-encrypted SNS topic.
        Statement(
            sid="BudgetsPublishEncryptedAlerts",
            principals={"Service": ["budgets.amazonaws.com"]},
            actions=("kms:GenerateDataKey*", "kms:Decrypt"),
            resources=["*"],
            conditions=same_account,
        ),
    ]


class FleetKey(pulumi.ComponentResource):
    """A customer-managed KMS key (``aws.kms.Key`` with rotation) or a BYOK key (``aws.kms.ExternalKey``),
    with an alias ``alias/<name>`` and a policy that names the account and scoped AWS services only."""

    key_arn: pulumi.Output[str]
    key_id: pulumi.Output[str]
    byok: bool

    def __init__(self, name: str, args: FleetKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:keys:FleetKey", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        policy = document(key_policy_statements(args))
        self.byok = args.encryption == "byok"
        key: aws.kms.Key | aws.kms.ExternalKey
        if self.byok:
            # Key material is imported out of band (aws kms import-key-material); until then the key
            # is PendingImport and unusable, which is the point of holding the material ourselves.
            key = aws.kms.ExternalKey(
                f"{name}-key",
                description=f"{args.description} (BYOK)",
                policy=policy,
                deletion_window_in_days=args.deletion_window_days,
                region=args.region,
                tags=dict(args.tags),
                opts=child,
            )
        else:
            key = aws.kms.Key(
                f"{name}-key",
                description=args.description,
                policy=policy,
                enable_key_rotation=True,
                deletion_window_in_days=args.deletion_window_days,
                region=args.region,
                tags=dict(args.tags),
                opts=child,
            )
        aws.kms.Alias(
            f"{name}-alias", name=f"alias/{name}", target_key_id=key.id, region=args.region, opts=child
        )
        self.key_arn = key.arn
        self.key_id = key.id
        self.register_outputs({"key_arn": self.key_arn, "key_id": self.key_id})
