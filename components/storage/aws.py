"""Checkpoint storage on S3: a private, TLS-only, KMS-encrypted, versioned bucket with a lifecycle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.identity.documents import Statement, document
from components.tags import check_cost_tags, with_tags

# S3 refuses STANDARD_IA / ONEZONE_IA transitions for objects younger than 30 days and bills those
# classes for at least 30 days of storage.
S3_IA_MIN_AGE_DAYS = 30
S3_IA_MIN_STORAGE_DAYS = 30
MIN_TLS_VERSION = "1.2"


def transition_storage_class(ia_after_days: int, expire_after_days: int) -> str | None:
    """The storage class to move checkpoints into after ``ia_after_days``, or None for no transition.

    S3 cannot honour "infrequent access after 7 days, delete after 30" literally: STANDARD_IA and
    ONEZONE_IA accept objects only from 30 days of age and bill 30 days minimum; GLACIER_IR bills 90
    days, so an object deleted at day 30 is billed 60 days it never used. INTELLIGENT_TIERING accepts
    objects at any age, has no minimum storage duration and no retrieval fee; it moves an object to its
    infrequent tier after 30 days without access, so a checkpoint that is never read again costs
    Standard for its life and nothing extra, and one read while resuming stays hot. STANDARD_IA is
    used only when the transition day and the remaining lifetime both meet its 30-day rules.
    """
    if ia_after_days >= expire_after_days:
        return None
    if ia_after_days >= S3_IA_MIN_AGE_DAYS and expire_after_days - ia_after_days >= S3_IA_MIN_STORAGE_DAYS:
        return "STANDARD_IA"
    return "INTELLIGENT_TIERING"


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
    policy that denies non-TLS and pre-1.2 TLS requests. The bucket carries ``purpose: checkpoints``
    and ``data-classification`` tags, which the guardrails key on.
    """

    bucket_name: pulumi.Output[str]
    bucket_arn: pulumi.Output[str]
    transition_storage_class: str | None

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
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket.id,
            region=args.region,
            rules=[
                aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                    apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                        sse_algorithm="aws:kms", kms_master_key_id=args.kms_key_arn
                    ),
                    bucket_key_enabled=True,
                )
            ],
            opts=child,
        )
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning",
            bucket=bucket.id,
            region=args.region,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
            opts=child,
        )
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
        public_access = aws.s3.BucketPublicAccessBlock(
            f"{name}-public-access",
            bucket=bucket.id,
            region=args.region,
            block_public_acls=True,
            block_public_policy=True,
            ignore_public_acls=True,
            restrict_public_buckets=True,
            opts=child,
        )
        aws.s3.BucketPolicy(
            f"{name}-policy",
            bucket=bucket.id,
            region=args.region,
            policy=document(tls_only_statements(bucket.arn)),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[public_access]),
        )
        self.bucket_name = bucket.bucket
        self.bucket_arn = bucket.arn
        self.register_outputs({"bucket_name": self.bucket_name, "bucket_arn": self.bucket_arn})
