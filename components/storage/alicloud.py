"""The checkpoint bucket on Alibaba Cloud: an OSS bucket encrypted with the site's KMS key.

Private ACL, the bucket's public-access block, HTTPS only (a policy denying requests without
``acs:SecureTransport`` on the bucket and its objects, and TLS 1.2+ on the bucket's HTTPS
configuration), versioning, and a lifecycle: infrequent access (IA) after ``ia_after_days`` where OSS
lets that pay off, deletion at ``expire_after_days``, noncurrent versions after
``noncurrent_expire_days`` and unfinished multipart uploads after a day. The expiry covers the
checkpoint prefix only (datasets under the data prefix share the bucket and are kept); the multipart
clean-up covers the whole bucket.

OSS accepts an IA transition at any age and bills IA objects for 30 days at least, counted from the
object's last modification (its creation, for a checkpoint written once), not from the move: "the
storage duration of an object is calculated based on the last modified time of the object"
(https://www.alibabacloud.com/help/en/oss/product-overview/billing-method-for-objects-whose-storage-duration-is-less-than-the-minimum-storage-duration;
GF-STOR-006 reads it the same way). An object moved at day 7 and deleted at day 30 has met the minimum,
so the seeds' "IA after 7 days, delete after 30" moves checkpoints to IA: the transition is made when
objects live at least the 30 days from creation, whatever the day of the move (:func:`ia_transition_days`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.tags import check_cost_tags

OSS_IA_MIN_STORAGE_DAYS = 30
ABORT_MULTIPART_DAYS = 1
TLS_VERSIONS = ("TLSv1.2", "TLSv1.3")


def ia_transition_days(ia_after_days: int, expire_after_days: int) -> int | None:
    """The day objects move to IA, or None when IA's 30-day minimum, counted from the object's creation,
    outlives their expiry (or the move would come after it)."""
    if ia_after_days >= expire_after_days or expire_after_days < OSS_IA_MIN_STORAGE_DAYS:
        return None
    return ia_after_days


def tls_only_policy(bucket: str) -> str:
    """A bucket policy denying every OSS action on the bucket and its objects over plain HTTP."""
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": ["*"],
                    "Action": ["oss:*"],
                    "Resource": [f"acs:oss:*:*:{bucket}", f"acs:oss:*:*:{bucket}/*"],
                    "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
                }
            ],
        },
        sort_keys=True,
    )


@dataclass(frozen=True, kw_only=True)
class OssCheckpointBucketArgs:
    kms_key_id: pulumi.Input[str]
    tags: Mapping[str, str]
    ia_after_days: int = 7
    expire_after_days: int = 30
    noncurrent_expire_days: int = 7
    classification: str = "internal"
    checkpoint_prefix: str = "checkpoints/"

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.checkpoint_prefix:
            problems.append("checkpoint_prefix: must not be empty (the expiry would delete the datasets too)")
        if self.ia_after_days < 0:
            problems.append("ia_after_days: must not be negative")
        if self.expire_after_days < 1 or self.noncurrent_expire_days < 1:
            problems.append("expire_after_days and noncurrent_expire_days: must be at least 1")
        if problems:
            raise ValueError("OssCheckpointBucketArgs: " + "; ".join(problems))


class OssCheckpointBucket(pulumi.ComponentResource):
    """``alicloud.oss.Bucket`` with its KMS encryption, versioning and lifecycle, plus its ACL,
    public-access block, TLS policy and HTTPS configuration, each as its own resource (the bucket's
    inline ``acl`` and ``policy`` are deprecated)."""

    bucket_name: pulumi.Output[str]
    ia_days: int | None

    def __init__(
        self, name: str, args: OssCheckpointBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:storage:OssCheckpointBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.ia_days = ia_transition_days(args.ia_after_days, args.expire_after_days)
        transitions = (
            [alicloud.oss.BucketLifecycleRuleTransitionArgs(days=self.ia_days, storage_class="IA")]
            if self.ia_days is not None
            else None
        )
        bucket = alicloud.oss.Bucket(
            f"{name}-bucket",
            storage_class="Standard",
            lifecycle_rules=[
                alicloud.oss.BucketLifecycleRuleArgs(
                    id="checkpoints",
                    enabled=True,
                    prefix=args.checkpoint_prefix,
                    transitions=transitions,
                    expirations=[alicloud.oss.BucketLifecycleRuleExpirationArgs(days=args.expire_after_days)],
                    noncurrent_version_expirations=[
                        alicloud.oss.BucketLifecycleRuleNoncurrentVersionExpirationArgs(
                            days=args.noncurrent_expire_days
                        )
                    ],
                    abort_multipart_uploads=[
                        alicloud.oss.BucketLifecycleRuleAbortMultipartUploadArgs(days=ABORT_MULTIPART_DAYS)
                    ],
                ),
                alicloud.oss.BucketLifecycleRuleArgs(
                    id="abort-incomplete-uploads",
                    enabled=True,
                    prefix="",
                    abort_multipart_uploads=[
                        alicloud.oss.BucketLifecycleRuleAbortMultipartUploadArgs(days=ABORT_MULTIPART_DAYS)
                    ],
                ),
            ],
            # Encryption and versioning on the bucket itself (not deprecated, unlike its acl and policy):
            # set there, the bucket is never created unencrypted or unversioned, and scanners that read
            # the bucket alone (checkov's CKV_ALI_6 and CKV_ALI_10) see them.
            server_side_encryption_rule=alicloud.oss.BucketServerSideEncryptionRuleArgs(
                sse_algorithm="KMS", kms_master_key_id=args.kms_key_id
            ),
            versioning=alicloud.oss.BucketVersioningArgs(status="Enabled"),
            tags={**args.tags, "purpose": "checkpoints", "data-classification": args.classification},
            opts=child,
        )
        name_of = bucket.bucket.apply(lambda value: value or "")
        alicloud.oss.BucketAcl(f"{name}-acl", bucket=name_of, acl="private", opts=child)
        alicloud.oss.BucketPublicAccessBlock(
            f"{name}-public-access", bucket=name_of, block_public_access=True, opts=child
        )
        alicloud.oss.BucketPolicy(
            f"{name}-tls-only", bucket=name_of, policy=name_of.apply(tls_only_policy), opts=child
        )
        alicloud.oss.BucketHttpsConfig(
            f"{name}-https", bucket=name_of, enable=True, tls_versions=list(TLS_VERSIONS), opts=child
        )
        self.bucket_name = name_of
        self.register_outputs({"bucket_name": self.bucket_name})
