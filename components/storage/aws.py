"""Checkpoint storage on S3: a private, TLS-only, KMS-encrypted, versioned bucket with a lifecycle,
and two-way replication between the home bucket and its copy in a second region."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.tags import check_cost_tags, with_tags

# S3 refuses STANDARD_IA / ONEZONE_IA transitions for objects younger than 30 days and bills those
# classes for at least 30 days of storage.
S3_IA_MIN_AGE_DAYS = 30
S3_IA_MIN_STORAGE_DAYS = 30
# Intelligent-Tiering moves an object to its infrequent tier after this many days without access.
INTELLIGENT_TIERING_IA_AFTER_DAYS = 30
MIN_TLS_VERSION = "1.2"


def transition_storage_class(ia_after_days: int, expire_after_days: int) -> str | None:
    """The storage class to move checkpoints into after ``ia_after_days``, or None for no transition.

    A transition is made only where it can pay off before the objects expire. STANDARD_IA and
    ONEZONE_IA accept objects only from 30 days of age and bill 30 days minimum; GLACIER_IR bills 90
    days. INTELLIGENT_TIERING accepts objects at any age with no minimum storage duration, but moves an
    object to its cheaper infrequent tier only after 30 days without access, and charges a transition
    fee and a monthly monitoring fee per object meanwhile: objects deleted within 30 days of the move
    never reach the cheaper tier and only pay the fees. So the seeds' "infrequent access after 7 days,
    delete after 30" is built as no transition at all (Standard for the checkpoints' 30 days, then
    deleted); INTELLIGENT_TIERING is used when objects live more than 30 days after the move, and
    STANDARD_IA when the transition day and the remaining lifetime both meet its 30-day rules.
    """
    if ia_after_days >= expire_after_days:
        return None
    remaining = expire_after_days - ia_after_days
    if ia_after_days >= S3_IA_MIN_AGE_DAYS and remaining >= S3_IA_MIN_STORAGE_DAYS:
        return "STANDARD_IA"
    if remaining > INTELLIGENT_TIERING_IA_AFTER_DAYS:
        return "INTELLIGENT_TIERING"
    return None


def tls_only_statements(bucket_arn: pulumi.Input[str]) -> list[Statement]:
    """Deny any request over plain HTTP or TLS older than 1.2, for every principal."""
    objects = pulumi.Output.concat(bucket_arn, "/*")
    return [
        Statement(
            sid="DenyInsecureTransport",
            effect="Deny",
            principals="*",
            actions=("s3:*",),
            resources=[bucket_arn, objects],
            conditions={"Bool": {"aws:SecureTransport": "false"}},
        ),
        Statement(
            sid="DenyOutdatedTls",
            effect="Deny",
            principals="*",
            actions=("s3:*",),
            resources=[bucket_arn, objects],
            conditions={"NumericLessThan": {"s3:TlsVersion": MIN_TLS_VERSION}},
        ),
    ]


SSE_HEADER = "s3:x-amz-server-side-encryption"
SSE_KEY_HEADER = "s3:x-amz-server-side-encryption-aws-kms-key-id"


def sse_kms_only_statements(
    bucket_arn: pulumi.Input[str], kms_key_arn: pulumi.Input[str] | None
) -> list[Statement]:
    """Deny uploads (PutObject, which also authorizes CopyObject and CreateMultipartUpload) that ask
    for any encryption but SSE-KMS and, given ``kms_key_arn``, any key but the bucket's, in the form
    AWS documents for requiring SSE-KMS. ``...IfExists``: a request without the headers gets the
    bucket's default encryption (SSE-KMS under its key), so it is not denied. A request naming
    ``aws:kms`` without a key id is denied too: S3 would then encrypt with the AWS managed ``aws/s3``
    key, not the bucket's. Key ids are compared as ARNs, the form the fleet's clients are told to use.
    Replication writes with s3:ReplicateObject and is not affected."""
    objects = pulumi.Output.concat(bucket_arn, "/*")
    statements = [
        Statement(
            sid="DenyNonKmsEncryption",
            effect="Deny",
            principals="*",
            actions=("s3:PutObject",),
            resources=[objects],
            conditions={"StringNotEqualsIfExists": {SSE_HEADER: "aws:kms"}},
        )
    ]
    if kms_key_arn is None:
        return statements
    return [
        *statements,
        Statement(
            sid="DenyOtherKmsKeys",
            effect="Deny",
            principals="*",
            actions=("s3:PutObject",),
            resources=[objects],
            conditions={"StringNotEqualsIfExists": {SSE_KEY_HEADER: kms_key_arn}},
        ),
        Statement(
            sid="DenyKmsWithoutKeyId",
            effect="Deny",
            principals="*",
            actions=("s3:PutObject",),
            resources=[objects],
            conditions={"StringEquals": {SSE_HEADER: "aws:kms"}, "Null": {SSE_KEY_HEADER: "true"}},
        ),
    ]


@dataclass(frozen=True)
class HardenedBucket:
    """What `harden_bucket` created that callers order other resources after."""

    versioning: aws.s3.BucketVersioning
    public_access: aws.s3.BucketPublicAccessBlock


def harden_bucket(
    prefix: str,
    bucket: aws.s3.Bucket,
    *,
    kms_key_arn: pulumi.Input[str],
    region: str | None,
    parent: pulumi.Resource,
) -> HardenedBucket:
    """SSE-KMS under `kms_key_arn` with a bucket key, versioning and all four public-access blocks, as
    the separate v7 resources, named `{prefix}-encryption`, `{prefix}-versioning` and
    `{prefix}-public-access`. Every bucket the fleet creates gets these; lifecycle and policy differ."""
    child = pulumi.ResourceOptions(parent=parent)
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{prefix}-encryption",
        bucket=bucket.id,
        region=region,
        rules=[
            aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms", kms_master_key_id=kms_key_arn
                ),
                bucket_key_enabled=True,
            )
        ],
        opts=child,
    )
    versioning = aws.s3.BucketVersioning(
        f"{prefix}-versioning",
        bucket=bucket.id,
        region=region,
        versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
        opts=child,
    )
    public_access = aws.s3.BucketPublicAccessBlock(
        f"{prefix}-public-access",
        bucket=bucket.id,
        region=region,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=child,
    )
    return HardenedBucket(versioning=versioning, public_access=public_access)


@dataclass(frozen=True, kw_only=True)
class CheckpointBucketArgs:
    kms_key_arn: pulumi.Input[str]
    tags: Mapping[str, str]
    classification: str = "internal"
    checkpoint_prefix: str = "checkpoints/"
    ia_after_days: int = 7
    expire_after_days: int = 30
    noncurrent_expire_days: int = 7
    abort_multipart_days: int = 7
    region: str | None = None
    force_destroy: bool = False

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.ia_after_days < 0:
            problems.append("ia_after_days: must not be negative")
        for field_name in ("expire_after_days", "noncurrent_expire_days"):
            if getattr(self, field_name) < 1:
                problems.append(f"{field_name}: must be at least 1 day")
        if not 1 <= self.abort_multipart_days <= 7:
            problems.append(f"abort_multipart_days: {self.abort_multipart_days} is outside 1..7")
        if not self.checkpoint_prefix.endswith("/") or self.checkpoint_prefix.startswith("/"):
            problems.append(f"checkpoint_prefix: {self.checkpoint_prefix!r} must look like 'name/'")
        if problems:
            raise ValueError("CheckpointBucketArgs: " + "; ".join(problems))


class CheckpointBucket(pulumi.ComponentResource):
    """An S3 bucket for datasets and checkpoints.

    Children: the bucket; SSE-KMS with the fleet key and an S3 bucket key (fewer KMS calls); versioning;
    a lifecycle (checkpoints tier and expire per :func:`transition_storage_class`, noncurrent versions
    expire, incomplete multipart uploads are aborted bucket-wide); all four public-access blocks; a
    policy that denies non-TLS and pre-1.2 TLS requests and uploads that ask for any encryption but
    SSE-KMS under the bucket's key (:func:`sse_kms_only_statements`). The bucket carries
    ``purpose: checkpoints`` and ``data-classification`` tags, which the guardrails key on.
    """

    bucket_name: pulumi.Output[str]
    bucket_arn: pulumi.Output[str]
    transition_storage_class: str | None
    region: str | None
    # Replication refuses buckets whose versioning is not yet enabled: replication waits on this.
    versioning: aws.s3.BucketVersioning

    def __init__(
        self, name: str, args: CheckpointBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:storage:CheckpointBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        bucket = aws.s3.Bucket(
            f"{name}-bucket",
            force_destroy=args.force_destroy,
            region=args.region,
            tags=with_tags(args.tags, purpose="checkpoints", data_classification=args.classification),
            opts=child,
        )
        hardened = harden_bucket(name, bucket, kms_key_arn=args.kms_key_arn, region=args.region, parent=self)
        versioning = hardened.versioning
        self.transition_storage_class = transition_storage_class(args.ia_after_days, args.expire_after_days)
        transitions = (
            [
                aws.s3.BucketLifecycleConfigurationRuleTransitionArgs(
                    days=args.ia_after_days, storage_class=self.transition_storage_class
                )
            ]
            if self.transition_storage_class
            else None
        )
        noncurrent = aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
            noncurrent_days=args.noncurrent_expire_days
        )
        abort = aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
            days_after_initiation=args.abort_multipart_days
        )
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-lifecycle",
            bucket=bucket.id,
            region=args.region,
            rules=[
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="checkpoints",
                    status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=args.checkpoint_prefix),
                    transitions=transitions,
                    expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(
                        days=args.expire_after_days
                    ),
                    noncurrent_version_expiration=noncurrent,
                    abort_incomplete_multipart_upload=abort,
                ),
                # Datasets are kept, but their overwritten versions and abandoned uploads are not.
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="whole-bucket-cleanup",
                    status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                    noncurrent_version_expiration=noncurrent,
                    abort_incomplete_multipart_upload=abort,
                ),
            ],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]),
        )
        public_access = hardened.public_access
        aws.s3.BucketPolicy(
            f"{name}-policy",
            bucket=bucket.id,
            region=args.region,
            policy=document(
                [*tls_only_statements(bucket.arn), *sse_kms_only_statements(bucket.arn, args.kms_key_arn)]
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[public_access]),
        )
        self.bucket_name = bucket.bucket
        self.bucket_arn = bucket.arn
        self.region = args.region
        self.versioning = versioning
        self.register_outputs({"bucket_name": self.bucket_name, "bucket_arn": self.bucket_arn})


# ------------------------------------------------------------------------------------------ replication

AWS_REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")
REPLICATION_RULE_ID = "replicate-everything"


@dataclass(frozen=True, kw_only=True)
class ReplicatedBucket:
    """One side of a replication pair: the bucket, the KMS key its objects are encrypted with, and the
    region both live in (S3 and KMS calls for the side go through that region's endpoints)."""

    bucket: CheckpointBucket
    kms_key_arn: pulumi.Input[str]
    region: str


@dataclass(frozen=True, kw_only=True)
class CheckpointReplicationArgs:
    primary: ReplicatedBucket
    replica: ReplicatedBucket
    tags: Mapping[str, str]
    account_id: pulumi.Input[str]

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        for side in ("primary", "replica"):
            region = getattr(self, side).region
            if not AWS_REGION_RE.match(region):
                problems.append(f"{side}.region: {region!r} is not an AWS region name like us-west-2")
        if self.primary.region == self.replica.region:
            problems.append(
                f"replica.region: {self.replica.region} is the primary's region too; a replica must be in "
                "a second region to survive a regional outage"
            )
        if problems:
            raise ValueError("CheckpointReplicationArgs: " + "; ".join(problems))


def replication_trust_statements(account_id: pulumi.Input[str]) -> list[Statement]:
    """S3 may assume the role only for this account's buckets (no confused deputy: another account's
    replication configuration cannot borrow it)."""
    return [
        Statement(
            sid="S3AssumesRoleForReplication",
            principals={"Service": ["s3.amazonaws.com"]},
            actions=("sts:AssumeRole",),
            conditions={"StringEquals": {"aws:SourceAccount": account_id}},
        )
    ]


def _kms_via_s3(side: ReplicatedBucket) -> dict[str, dict[str, object]]:
    # With S3 Bucket Keys the encryption context is the bucket ARN; without, the object ARN.
    arn = side.bucket.bucket_arn
    return {
        "StringEquals": {"kms:ViaService": f"s3.{side.region}.amazonaws.com"},
        "StringLike": {"kms:EncryptionContext:aws:s3:arn": [arn, pulumi.Output.concat(arn, "/*")]},
    }


def replication_permission_statements(args: CheckpointReplicationArgs) -> list[Statement]:
    """Each bucket is a source (read its versions, decrypt with its key) and a destination (write
    replicas, encrypt with its key), on these two buckets and these two keys only."""
    sides = (args.primary, args.replica)
    buckets = [side.bucket.bucket_arn for side in sides]
    objects = [pulumi.Output.concat(arn, "/*") for arn in buckets]
    statements = [
        Statement(
            sid="ReadReplicationConfiguration",
            actions=("s3:GetReplicationConfiguration", "s3:ListBucket"),
            resources=buckets,
        ),
        Statement(
            sid="ReadSourceVersions",
            actions=(
                "s3:GetObjectVersionForReplication",
                "s3:GetObjectVersionAcl",
                "s3:GetObjectVersionTagging",
            ),
            resources=objects,
        ),
        Statement(
            sid="WriteReplicas",
            actions=("s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags"),
            resources=objects,
        ),
    ]
    for label, side in (("Primary", args.primary), ("Replica", args.replica)):
        statements.append(
            Statement(
                sid=f"Decrypt{label}Objects",
                actions=("kms:Decrypt",),
                resources=[side.kms_key_arn],
                conditions=_kms_via_s3(side),
            )
        )
        statements.append(
            Statement(
                sid=f"Encrypt{label}Replicas",
                actions=("kms:Encrypt", "kms:GenerateDataKey"),
                resources=[side.kms_key_arn],
                conditions=_kms_via_s3(side),
            )
        )
    return statements


def replication_rule(destination: ReplicatedBucket) -> aws.s3.BucketReplicationConfigRuleArgs:
    """Every object (datasets and checkpoints: a job resumed in the other region needs both), its
    deletions and KMS-encrypted objects, re-encrypted with the destination's own key."""
    return aws.s3.BucketReplicationConfigRuleArgs(
        id=REPLICATION_RULE_ID,
        status="Enabled",
        priority=1,
        filter=aws.s3.BucketReplicationConfigRuleFilterArgs(prefix=""),
        delete_marker_replication=aws.s3.BucketReplicationConfigRuleDeleteMarkerReplicationArgs(
            status="Enabled"
        ),
        source_selection_criteria=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaArgs(
            sse_kms_encrypted_objects=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaSseKmsEncryptedObjectsArgs(
                status="Enabled"
            ),
            replica_modifications=aws.s3.BucketReplicationConfigRuleSourceSelectionCriteriaReplicaModificationsArgs(
                status="Enabled"
            ),
        ),
        destination=aws.s3.BucketReplicationConfigRuleDestinationArgs(
            bucket=destination.bucket.bucket_arn,
            storage_class="STANDARD",
            encryption_configuration=aws.s3.BucketReplicationConfigRuleDestinationEncryptionConfigurationArgs(
                replica_kms_key_id=destination.kms_key_arn
            ),
        ),
    )


class CheckpointReplication(pulumi.ComponentResource):
    """Two-way replication between the home checkpoint bucket and its copy in a second region.

    Children: ``-role`` (trusted by S3 only) with ``-permissions`` scoped to the two buckets and the two
    keys; ``-to-replica`` on the primary and ``-to-primary`` on the replica, each an
    ``aws.s3.BucketReplicationConfig`` in its bucket's region. Both directions, because jobs that fail
    over to the second region write their checkpoints into the replica, and those must flow back to
    the primary once it recovers (failback); replicas themselves are never replicated again, so the
    pair does not loop. Lifecycle expiry is not replicated by S3: each bucket carries its own.
    Objects written before replication was turned on are not copied (use S3 Batch Replication once).
    """

    role_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: CheckpointReplicationArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:storage:CheckpointReplication", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role",
            description="S3 replication between the fleet's checkpoint buckets",
            assume_role_policy=document(replication_trust_statements(args.account_id)),
            tags=dict(args.tags),
            opts=child,
        )
        permissions = aws.iam.RolePolicy(
            f"{name}-permissions",
            role=role.name,
            policy=document(replication_permission_statements(args)),
            opts=child,
        )
        versioned = [args.primary.bucket.versioning, args.replica.bucket.versioning, permissions]
        for suffix, source, destination in (
            ("to-replica", args.primary, args.replica),
            ("to-primary", args.replica, args.primary),
        ):
            aws.s3.BucketReplicationConfig(
                f"{name}-{suffix}",
                bucket=source.bucket.bucket_name,
                role=role.arn,
                region=source.region,
                rules=[replication_rule(destination)],
                opts=pulumi.ResourceOptions(parent=self, depends_on=versioned),
            )
        self.role_arn = role.arn
        self.register_outputs({"role_arn": self.role_arn})
