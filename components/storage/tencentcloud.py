"""Checkpoint storage on Tencent COS: a private, TLS-only, KMS-encrypted, versioned bucket with a
lifecycle on the checkpoint prefix.

COS has no public-access block: the bucket is private (``acl = private``) and its policy denies every
request made without TLS (``cos:secure-transport`` false), to the bucket and to its objects. The
lifecycle expires checkpoints (objects under ``checkpoint_prefix``; datasets under the data prefix
are kept) at the spec's ``expire_after_days`` and their noncurrent versions at
``noncurrent_expire_days``; incomplete multipart uploads anywhere in the bucket end after a day.
COS accepts a STANDARD_IA transition at any age but bills 30 days of IA storage at least, so the
move to IA is made only when objects stay there 30 days or more before they expire: the defaults (IA
after 7, expire at 30) keep checkpoints STANDARD for their 30 days (:func:`ia_transition_days`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.tags import check_cost_tags, with_tags

COS_IA_MIN_STORAGE_DAYS = 30
ABORT_MULTIPART_DAYS = 1
# COS bucket names are <name>-<APPID>; the name part is lower-case letters, digits and '-'.
_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")
MAX_NAME_CHARS = 40
# The request domain <name>-<APPID>.cos.<region>.myqcloud.com may have at most 60 characters
# (https://www.tencentcloud.com/document/product/436/13312, "Bucket Naming Conventions"); an APPID
# has 10 digits, so in ap-guangzhou the name part has 19.
MAX_DOMAIN_CHARS = 60
APPID_DIGITS = 10


def max_name_chars(region: str) -> int:
    """The longest name part a bucket of `region` can have within COS's 60-character request domain."""
    domain = len(f"-{'0' * APPID_DIGITS}.cos.{region}.myqcloud.com")
    return max(1, min(MAX_NAME_CHARS, MAX_DOMAIN_CHARS - domain))


def ia_transition_days(ia_after_days: int, expire_after_days: int) -> int | None:
    """The day checkpoints move to STANDARD_IA, or None where the move costs more than it saves
    (fewer than 30 days in IA before they expire)."""
    if expire_after_days - ia_after_days < COS_IA_MIN_STORAGE_DAYS:
        return None
    return ia_after_days


def bucket_name_part(prefix: str, region: str | None = None) -> str:
    """A valid COS name part (before ``-<APPID>``) from ``prefix``: lower-cased, other characters
    replaced by '-', and, when longer than the bucket's region allows (`max_name_chars`; 40 without a
    region), cut with a 6-character hash of the whole so two prefixes never meet."""
    cleaned = re.sub(r"[^a-z0-9-]+", "-", prefix.lower()).strip("-") or "gpufleet"
    limit = max_name_chars(region) if region else MAX_NAME_CHARS
    if len(cleaned) > limit:
        digest = hashlib.sha256(cleaned.encode()).hexdigest()[:6]
        cleaned = f"{cleaned[: max(1, limit - 7)].rstrip('-')}-{digest}"
    return cleaned


def tls_only_policy(region: str, app_id: str, bucket: str) -> str:
    """A COS bucket policy denying anyone any action without TLS, on the bucket and its objects."""
    base = f"qcs::cos:{region}:uid/{app_id}:{bucket}"
    document: dict[str, Any] = {
        "version": "2.0",
        "Statement": [
            {
                "Sid": "DenyInsecureTransport",
                "Principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                "Effect": "Deny",
                "Action": ["name/cos:*"],
                "Resource": [f"{base}/", f"{base}/*"],
                "Condition": {"bool_equal": {"cos:secure-transport": "false"}},
            }
        ],
    }
    return json.dumps(document, sort_keys=True)


REPLICATION_RULE_ID = "checkpoint-replica"


@dataclass(frozen=True, kw_only=True)
class CosReplication:
    """The source side of a COS replication: ``role`` (``replica_role``, the identity COS replicates
    as) and ``destination`` (``qcs::cos:<region>::<bucket>-<APPID>``, a versioned bucket)."""

    role: pulumi.Input[str]
    destination: pulumi.Input[str]


def destination_id(region: str, bucket: str) -> str:
    """How a COS replication rule names its destination bucket."""
    return f"qcs::cos:{region}::{bucket}"


@dataclass(frozen=True, kw_only=True)
class TencentBucketArgs:
    name_part: str
    app_id: pulumi.Input[str]
    region: str
    key_id: pulumi.Input[str]
    tags: Mapping[str, str]
    provider: pulumi.ProviderResource | None = None
    ia_after_days: int = 7
    expire_after_days: int = 30
    noncurrent_expire_days: int = 7
    checkpoint_prefix: str = "checkpoints/"
    replication: CosReplication | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.checkpoint_prefix.endswith("/") or "*" in self.checkpoint_prefix:
            problems.append(f"checkpoint_prefix: {self.checkpoint_prefix!r} must end with '/', no wildcard")
        if not _NAME_RE.match(self.name_part) or len(self.name_part) > MAX_NAME_CHARS:
            problems.append(
                f"name_part: {self.name_part!r} must be 1-{MAX_NAME_CHARS} lower-case letters, digits or "
                "'-' (see bucket_name_part)"
            )
        if self.expire_after_days < 1 or self.noncurrent_expire_days < 1 or self.ia_after_days < 0:
            problems.append("lifecycle days: expire and noncurrent days >= 1, ia_after_days >= 0")
        if problems:
            raise ValueError("TencentBucketArgs: " + "; ".join(problems))


class TencentBucket(pulumi.ComponentResource):
    """``cos.Bucket`` ``<name_part>-<APPID>`` and its TLS-only ``cos.BucketPolicy``; with
    ``replication``, the bucket's ``replica_role`` and one enabled ``replica_rules`` entry copying the
    whole bucket (see :mod:`gpufleet.components.storage.tencentcloud_replica`)."""

    bucket_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: TencentBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:storage:TencentBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        ia_day = ia_transition_days(args.ia_after_days, args.expire_after_days)
        if ia_day is None:
            pulumi.log.info(
                f"{name}: no STANDARD_IA transition: objects moved on day {args.ia_after_days} would expire "
                f"on day {args.expire_after_days}, before COS's {COS_IA_MIN_STORAGE_DAYS}-day IA minimum"
            )
        checkpoints = tencentcloud.cos.BucketLifecycleRuleArgs(
            id="checkpoints",
            filter_prefix=args.checkpoint_prefix,
            transitions=(
                [tencentcloud.cos.BucketLifecycleRuleTransitionArgs(days=ia_day, storage_class="STANDARD_IA")]
                if ia_day is not None
                else None
            ),
            expiration=tencentcloud.cos.BucketLifecycleRuleExpirationArgs(days=args.expire_after_days),
            non_current_expiration=tencentcloud.cos.BucketLifecycleRuleNonCurrentExpirationArgs(
                non_current_days=args.noncurrent_expire_days
            ),
        )
        uploads = tencentcloud.cos.BucketLifecycleRuleArgs(
            id="abort-incomplete-uploads",
            filter_prefix="",
            abort_incomplete_multipart_upload=(
                tencentcloud.cos.BucketLifecycleRuleAbortIncompleteMultipartUploadArgs(
                    days_after_initiation=ABORT_MULTIPART_DAYS
                )
            ),
        )
        bucket = tencentcloud.cos.Bucket(
            f"{name}-bucket",
            bucket=pulumi.Output.concat(args.name_part, "-", args.app_id),
            acl="private",
            encryption_algorithm="KMS",
            kms_id=args.key_id,
            versioning_enable=True,
            lifecycle_rules=[checkpoints, uploads],
            force_clean=False,
            # Every object (datasets and checkpoints) with its deletions; COS requires versioning on both
            # buckets, which both have.
            replica_role=args.replication.role if args.replication else None,
            replica_rules=[
                tencentcloud.cos.BucketReplicaRuleArgs(
                    id=REPLICATION_RULE_ID,
                    status="Enabled",
                    destination_bucket=args.replication.destination,
                    destination_storage_class="STANDARD",
                )
            ]
            if args.replication
            else None,
            tags=with_tags(args.tags, purpose="checkpoints"),
            opts=child,
        )
        policy = pulumi.Output.all(bucket.bucket, args.app_id).apply(
            lambda found: tls_only_policy(args.region, str(found[1]), str(found[0]))
        )
        tencentcloud.cos.BucketPolicy(f"{name}-tls-only", bucket=bucket.bucket, policy=policy, opts=child)
        self.bucket_name = bucket.bucket
        self.register_outputs({"bucket_name": self.bucket_name})
