"""The AWS account baseline: what exists once per account, or once per account and region.

AWS keeps one of each of these per account (or per account and region); a second stack creating one
fails with "already exists" or silently overwrites the first owner's choice:

- the Session Manager preferences, a Session document named ``SSM-SessionManagerRunShell``;
- EBS encryption by default (per region; the default key stays AWS's own ``aws/ebs``, see
  :class:`AccountSettings`);
- the instance metadata defaults (IMDSv2 required, per region);
- the S3 account public-access block (account-wide);
- service-linked roles such as ``AWSServiceRoleForAutoScaling`` (account-wide). KMS rejects a key
  policy that names this role before it exists (MalformedPolicyDocumentException), and AWS only creates
  it on the account's first Auto Scaling group, so a fresh account needs it created explicitly.

:class:`AccountBaseline` owns all of them, for a stack of its own (``gpufleet:account`` config), so
every fleet stack of the account uses them without creating them. A single-stack account keeps them
in its fleet instead (``account.baseline: in-stack``): the fleet then builds :class:`AccountSettings`
and the service-linked role itself. Every taggable baseline resource carries :data:`BASELINE_TAG`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_aws as aws

from gpufleet.components.audit.aws import (
    SESSION_PREFERENCES_DOCUMENT,
    FleetAudit,
    FleetAuditArgs,
    session_preferences,
)
from gpufleet.components.cost.aws import FleetBudget, FleetBudgetArgs
from gpufleet.components.keys.aws import FleetKey, FleetKeyArgs
from gpufleet.components.storage.aws import AWS_REGION_RE
from gpufleet.components.tags import STACK_TAG, check_cost_tags, current_stack, with_tags

BASELINE_TAG = "gpufleet:account-baseline"
AUTOSCALING_SERVICE = "autoscaling.amazonaws.com"
AUTOSCALING_ROLE_PATH = "role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
# The baseline's fixed names: fleets of the account find the session log group and key by them.
BASELINE_NAME = "gpufleet-account"
SESSION_LOG_GROUP = "/gpufleet/account/sessions"
IMDS_HOP_LIMIT = 2  # containers on an instance sit one hop further away than the host


def baseline_key_alias(region: str) -> str:
    """The alias of the baseline's key in ``region`` (session logs; the trail and budget at home)."""
    return f"alias/{BASELINE_NAME}-{region}"


def session_log_group_arn(
    partition: pulumi.Input[str], region: str, account_id: pulumi.Input[str]
) -> pulumi.Output[str]:
    return pulumi.Output.concat(
        "arn:", partition, ":logs:", region, ":", account_id, ":log-group:", SESSION_LOG_GROUP
    )


def autoscaling_service_linked_role(
    name: str, tags: Mapping[str, str], opts: pulumi.ResourceOptions
) -> aws.iam.ServiceLinkedRole:
    """``AWSServiceRoleForAutoScaling``: created here so key policies may name it on a fresh account."""
    return aws.iam.ServiceLinkedRole(
        f"{name}-autoscaling-role",
        aws_service_name=AUTOSCALING_SERVICE,
        description="Auto Scaling launches the GPU pools' instances and their encrypted volumes",
        tags=dict(tags),
        opts=opts,
    )


@dataclass(frozen=True, kw_only=True)
class AccountSettingsArgs:
    """``account_wide`` adds the settings that exist once per account (the S3 public-access block):
    give it to one region only."""

    region: str
    account_wide: bool = False

    def __post_init__(self) -> None:
        if not AWS_REGION_RE.match(self.region):
            raise ValueError(f"AccountSettingsArgs: region: {self.region!r} is not an AWS region name")


class AccountSettings(pulumi.ComponentResource):
    """Children: ``-ebs-encryption`` (EBS encryption by default on, under AWS's ``aws/ebs`` key),
    ``-imds`` (IMDSv2 required, hop limit 2, instance tags off) and, ``account_wide``, ``-s3-public-access``
    (all four account-level public-access blocks). None of these AWS resources takes tags."""

    def __init__(
        self, name: str, args: AccountSettingsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:account:AccountSettings", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        # The default EBS key stays AWS's own ``aws/ebs`` (no aws.ebs.DefaultKmsKey): the default key
        # encrypts every volume any principal of the account creates in the region (RunInstances by a
        # user, other groups, Batch, EKS nodes...), and every one of those launches fails when the
        # caller cannot use it. The fleet's keys admit Auto Scaling's service-linked role only. The
        # alternative, opening a key to every principal of the account through EC2 (kms:ViaService
        # ec2.<region>.amazonaws.com with kms:CallerAccount), would make this stack's key, its policy
        # and its deletion window a dependency of every volume in the account. The pools name their
        # key in their launch templates and do not need the default; aws/ebs keeps everything else
        # encrypted and working.
        aws.ebs.EncryptionByDefault(f"{name}-ebs-encryption", enabled=True, region=args.region, opts=child)
        aws.ec2.InstanceMetadataDefaults(
            f"{name}-imds",
            http_tokens="required",
            http_endpoint="enabled",
            http_put_response_hop_limit=IMDS_HOP_LIMIT,
            instance_metadata_tags="disabled",
            region=args.region,
            opts=child,
        )
        if args.account_wide:
            aws.s3.AccountPublicAccessBlock(
                f"{name}-s3-public-access",
                block_public_acls=True,
                block_public_policy=True,
                ignore_public_acls=True,
                restrict_public_buckets=True,
                opts=child,
            )
        self.register_outputs({})


@dataclass(frozen=True, kw_only=True)
class AccountBaselineArgs:
    """``regions`` (the first is home: the account-wide settings are made from there) get the
    per-region settings, a rotating key and the encrypted Session Manager logs; ``service_linked_roles``
    "existing" leaves an Auto Scaling role the account already has alone (creating it again fails)."""

    regions: Sequence[str]
    tags: Mapping[str, str]
    account_id: pulumi.Input[str]
    monthly_budget: float
    partition: pulumi.Input[str] = "aws"
    owner: str = "account"
    session_log_retention_days: int = 180
    service_linked_roles: Literal["create", "existing"] = "create"
    currency: Literal["USD", "CNY"] = "USD"
    alert_percent: float = 80
    alert_emails: Sequence[str] = ()
    trail: bool = True
    trail_retention_days: int = 180

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.regions:
            problems.append("regions: at least one region is needed")
        for region in self.regions:
            if not AWS_REGION_RE.match(region):
                problems.append(f"regions: {region!r} is not an AWS region name like us-west-2")
        if len(set(self.regions)) != len(self.regions):
            problems.append("regions: duplicates")
        if self.session_log_retention_days < 1:
            problems.append("session_log_retention_days: must be at least 1")
        if self.service_linked_roles not in ("create", "existing"):
            problems.append(f"service_linked_roles: {self.service_linked_roles!r} is not create or existing")
        if problems:
            raise ValueError("AccountBaselineArgs: " + "; ".join(problems))


class AccountBaseline(pulumi.ComponentResource):
    """The account's once-only resources; see the module docstring.

    Children: ``-autoscaling-role`` (unless "existing"); in the home region ``-audit`` (a multi-region
    trail, unless ``trail`` is off) and ``-budget`` (the baseline's own spend: keys, logs); per region
    ``-<region>`` a FleetKey (rotating, alias :func:`baseline_key_alias`, created after the role it
    names; the home one also encrypts the trail and budget alerts), ``-<region>-session-logs``
    (:data:`SESSION_LOG_GROUP`, encrypted with that key), ``-<region>-session-prefs`` (sessions
    encrypted with the key and streamed to the group) and ``-<region>-settings``
    (:class:`AccountSettings`; account-wide ones in the first region)."""

    key_arns: pulumi.Output[dict[str, str]]

    def __init__(
        self, name: str, args: AccountBaselineArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:account:AccountBaseline", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = with_tags(args.tags, **{BASELINE_TAG: args.owner, STACK_TAG: current_stack()})
        created: list[pulumi.Resource] = []
        if args.service_linked_roles == "create":
            created.append(autoscaling_service_linked_role(name, tags, child))
        key_arns: dict[str, pulumi.Output[str]] = {}
        for index, region in enumerate(args.regions):
            key = FleetKey(
                f"{name}-{region}",
                FleetKeyArgs(
                    encryption="sse-kms",
                    account_id=args.account_id,
                    partition=args.partition,
                    region=region,
                    tags=tags,
                    description="gpufleet account baseline: Session Manager logs, trail, budget alerts",
                    # The home key also encrypts the trail and the budget alerts.
                    home=index == 0,
                    log_group_prefix=SESSION_LOG_GROUP,
                    principals_created_by=created,
                    alias=baseline_key_alias(region),
                ),
                opts=child,
            )
            logs = aws.cloudwatch.LogGroup(
                f"{name}-{region}-session-logs",
                name=SESSION_LOG_GROUP,
                retention_in_days=args.session_log_retention_days,
                kms_key_id=key.key_arn,
                region=region,
                tags=tags,
                opts=child,
            )
            aws.ssm.Document(
                f"{name}-{region}-session-prefs",
                name=SESSION_PREFERENCES_DOCUMENT,
                document_type="Session",
                document_format="JSON",
                region=region,
                content=pulumi.Output.all(logs.name, key.key_arn).apply(
                    lambda values: session_preferences(values[0], values[1])
                ),
                tags=tags,
                opts=child,
            )
            AccountSettings(
                f"{name}-{region}-settings",
                AccountSettingsArgs(region=region, account_wide=index == 0),
                opts=child,
            )
            key_arns[region] = key.key_arn
            if index == 0:
                self._home(name, args, region, tags, key)
        self.key_arns = pulumi.Output.all(**key_arns)
        self.register_outputs({"key_arns": self.key_arns})

    def _home(
        self, name: str, args: AccountBaselineArgs, region: str, tags: dict[str, str], key: FleetKey
    ) -> None:
        child = pulumi.ResourceOptions(parent=self)
        if args.trail:
            FleetAudit(
                f"{name}-audit",
                FleetAuditArgs(
                    fleet=name,
                    kms_key_arn=key.key_arn,
                    account_id=args.account_id,
                    region=region,
                    partition=args.partition,
                    tags=tags,
                    log_retention_days=args.trail_retention_days,
                    trail=True,
                    session_manager=False,
                    agent_logs=False,
                ),
                opts=child,
            )
        FleetBudget(
            f"{name}-budget",
            FleetBudgetArgs(
                monthly_limit=args.monthly_budget,
                currency=args.currency,
                alert_percent=args.alert_percent,
                alert_emails=list(args.alert_emails),
                stack=current_stack(),
                account_id=args.account_id,
                kms_key_arn=key.key_arn,
                tags=tags,
            ),
            opts=child,
        )
