"""The fleet's KMS keys on AWS.

The home region's key encrypts checkpoints, volumes, logs, the trail and the budget alerts. Every
other region the fleet reaches gets its own key for what lives there (the checkpoint replica, volumes,
logs): KMS keys never leave their region, and S3, EBS and CloudWatch Logs only use a key of their own
region.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.keys.material import MATERIAL_TAG
from gpufleet.components.tags import check_cost_tags

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
# Only a multi-Region primary needs these: creating a replica calls ReplicateKey on the primary.
MULTI_REGION_ADMIN_ACTIONS = ("kms:ReplicateKey", "kms:UpdatePrimaryRegion")

USE_ACTIONS = ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey")


@dataclass(frozen=True, kw_only=True)
class FleetKeyArgs:
    """``encryption`` "sse-kms" creates a key with AWS-generated material and yearly rotation;
    "byok" creates a key whose material the owner imports (origin EXTERNAL), which AWS cannot rotate.

    ``log_group_prefix`` scopes CloudWatch Logs' use of the key to the log groups whose names start with
    it. ``key_material_base64`` (byok only, a secret) imports the material when the key is created, so
    the key is usable in the same deployment. ``principals_created_by`` are the resources that create
    principals the policy names (the Auto Scaling service-linked role): KMS rejects a policy naming a
    principal that does not exist yet, so the key is created after them. ``alias`` replaces the default
    ``alias/<component name>`` where others find the key by a fixed name. ``material_imported`` (byok
    without ``key_material_base64``) says the owner has imported the material out of band: the key is
    tagged ``gpufleet:key-material = imported`` so the operability rule GF-OPS-005 knows it is usable.

    ``multi_region`` makes the key a multi-Region primary (fixed at creation: changing it replaces the
    key). ``replica_of`` (byok only) makes the key a replica, in ``region``, of that multi-Region BYOK
    primary; the same material is then imported into the replica. ``home`` keys also serve the
    account-wide trail and budget alerts; a second region's key (``home=False``) serves that region's
    buckets, volumes and logs only.
    """

    encryption: Literal["sse-kms", "byok"]
    account_id: pulumi.Input[str]
    region: str
    tags: Mapping[str, str]
    partition: pulumi.Input[str] = "aws"
    description: str = "gpufleet checkpoints, volumes and logs"
    deletion_window_days: int = 30
    multi_region: bool = False
    replica_of: pulumi.Input[str] | None = None
    home: bool = True
    log_group_prefix: str = "/gpufleet/"
    key_material_base64: pulumi.Input[str] | None = None
    principals_created_by: Sequence[pulumi.Resource] = ()
    alias: str | None = None
    material_imported: bool = False

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.encryption not in ("sse-kms", "byok"):
            problems.append(f"encryption: {self.encryption!r} is not one of 'sse-kms', 'byok'")
        if self.replica_of is not None:
            if self.encryption != "byok":
                problems.append(
                    "replica_of: only byok keys are replicated; an sse-kms key in a second region is a "
                    "new key of that region"
                )
            if self.multi_region:
                problems.append("multi_region: a replica cannot itself be a multi-Region primary")
            if self.home:
                problems.append("home: a replica key serves a second region; set home=False")
        if self.key_material_base64 is not None and self.encryption != "byok":
            problems.append("key_material_base64: only byok keys take imported material")
        if self.material_imported and (self.encryption != "byok" or self.key_material_base64 is not None):
            problems.append("material_imported: applies to byok keys whose material is imported out of band")
        if not self.log_group_prefix.startswith("/") or "*" in self.log_group_prefix:
            problems.append(f"log_group_prefix: {self.log_group_prefix!r} must start with '/', no wildcards")
        if self.alias is not None and not self.alias.startswith("alias/"):
            problems.append(f"alias: {self.alias!r} must start with 'alias/'")
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
    log_groups = pulumi.Output.concat(
        "arn:", partition, ":logs:", args.region, ":", account, ":log-group:", args.log_group_prefix, "*"
    )
    trails = pulumi.Output.concat("arn:", partition, ":cloudtrail:*:", account, ":trail/*")
    same_account = {"StringEquals": {"aws:SourceAccount": account}}
    admin = (*ADMIN_ACTIONS, *(MULTI_REGION_ADMIN_ACTIONS if args.multi_region else ()))
    statements = [
        Statement(
            sid="AccountAdministersKey",
            principals={"AWS": [root]},
            actions=(*admin, *USE_ACTIONS, "kms:CreateGrant"),
            resources=["*"],
        ),
        # Auto Scaling launches instances with volumes encrypted by this key through its linked role;
        # these are the actions and the grant condition AWS documents for that role.
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
    ]
    if not args.home:
        return statements
    return [
        *statements,
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
    """A customer-managed KMS key (``aws.kms.Key`` with rotation), a BYOK key (``aws.kms.ExternalKey``)
    or a replica of a multi-Region BYOK key (``aws.kms.ReplicaExternalKey``), with an alias
    ``alias/<name>`` in the key's region and a policy that names the account and scoped AWS services
    only."""

    key_arn: pulumi.Output[str]
    key_id: pulumi.Output[str]
    byok: bool

    def __init__(self, name: str, args: FleetKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:keys:FleetKey", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        policy = document(key_policy_statements(args))
        self.byok = args.encryption == "byok"
        # Left unset rather than false on single-region keys: an existing key then sees no diff.
        multi_region = True if args.multi_region else None
        key: aws.kms.Key | aws.kms.ExternalKey | aws.kms.ReplicaExternalKey
        state: pulumi.Output[str] | None = None  # a BYOK key's state (PendingImport until imported)
        key_opts = pulumi.ResourceOptions(parent=self, depends_on=list(args.principals_created_by))
        key_tags = {**args.tags, MATERIAL_TAG: "imported"} if args.material_imported else dict(args.tags)
        if args.replica_of is not None:
            # A replica shares the primary's key id and must be given the very same material; until it
            # is imported the replica is PendingImport and unusable, like its primary.
            key = aws.kms.ReplicaExternalKey(
                f"{name}-key",
                primary_key_arn=args.replica_of,
                description=f"{args.description} (BYOK replica)",
                policy=policy,
                deletion_window_in_days=args.deletion_window_days,
                key_material_base64=args.key_material_base64,
                region=args.region,
                tags=key_tags,
                opts=key_opts,
            )
            state = key.key_state
        elif self.byok:
            # Without key_material_base64 the material is imported out of band (aws kms
            # import-key-material); until then the key is PendingImport and unusable, which is the
            # point of holding the material ourselves (see docs/first-deploy.md).
            key = aws.kms.ExternalKey(
                f"{name}-key",
                description=f"{args.description} (BYOK)",
                policy=policy,
                deletion_window_in_days=args.deletion_window_days,
                multi_region=multi_region,
                key_material_base64=args.key_material_base64,
                region=args.region,
                tags=key_tags,
                opts=key_opts,
            )
            state = key.key_state
        else:
            key = aws.kms.Key(
                f"{name}-key",
                description=args.description,
                policy=policy,
                enable_key_rotation=True,
                deletion_window_in_days=args.deletion_window_days,
                multi_region=multi_region,
                region=args.region,
                tags=dict(args.tags),
                opts=key_opts,
            )
        aws.kms.Alias(
            f"{name}-alias",
            name=args.alias or f"alias/{name}",
            target_key_id=key.id,
            region=args.region,
            opts=child,
        )
        self.key_arn = key.arn
        if state is not None and args.material_imported:
            # ``byok_material: imported`` says the material is in. On a first deploy that skipped the
            # pending phase, the key comes up PendingImport and everything encrypted with it would
            # fail one by one (or an Auto Scaling group would wait for instances that cannot start):
            # whatever uses the key waits for it to be Enabled and the deploy stops with what to do.
            # At preview a new key's state is unknown and nothing is checked.
            self.key_arn = pulumi.Output.all(key.arn, state).apply(
                lambda values: _usable(name, args.region, values[0], values[1])
            )
        self.key_id = key.id
        self.register_outputs({"key_arn": self.key_arn, "key_id": self.key_id})


class KeyMaterialError(Exception):
    """A BYOK key said to hold imported material is not usable (PendingImport, Disabled...)."""


# The KMS key states in which nothing can encrypt or decrypt with a key.
UNUSABLE_KEY_STATES = frozenset(
    {"PendingImport", "Disabled", "PendingDeletion", "PendingReplicaDeletion", "Unavailable"}
)


def _usable(name: str, region: str, arn: str, state: str | None) -> str:
    """``arn``, unless the key is in a state KMS refuses to use it in; any other value (Enabled, a
    transition, a state not given, an offline placeholder) passes."""
    if state not in UNUSABLE_KEY_STATES:
        return arn
    if state == "PendingImport":
        raise KeyMaterialError(
            f"{name}: the BYOK key {arn} ({region}) is PendingImport: its material is not imported, so "
            "nothing that uses it was created. Import the material into it and its replicas "
            "(docs/first-deploy.md, section 3, step 2) and run pulumi up again. A first deploy sets "
            "storage.checkpoints.byok_material: pending, which builds the keys only"
        )
    raise KeyMaterialError(
        f"{name}: the BYOK key {arn} ({region}) is {state}, not Enabled: nothing that uses it can be "
        "created until it is enabled again"
    )
