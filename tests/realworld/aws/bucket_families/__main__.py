"""Checkpoint buckets on every S3 resource family people still use: the older BucketV2 with its
separate *V2 configuration resources, and buckets configured through their deprecated inline fields.

`ckpt-buckets:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import Output, ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "vision", "team": "data", "cost-center": "cc-7", "env": "dev"}

provider = aws.Provider("euw1", region="eu-west-1", default_tags={"tags": TAGS})
opts = ResourceOptions(provider=provider)


def tls_only(arn: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "TlsOnly",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [arn, f"{arn}/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            ],
        }
    )


# Imported key material for restricted data; a provider-generated, rotated key for the rest.
# The wrapped material comes in as a secret config value, so the key is usable in the same deployment
# as the buckets it encrypts (without it, the key waits for an import and the buckets fail to create).
byok = aws.kms.ExternalKey(
    "restricted",
    description="BYOK for restricted checkpoints",
    key_material_base64=pulumi.Config().require_secret("restricted-key-material"),
    opts=opts,
)
cmk = aws.kms.Key("checkpoints", enable_key_rotation=True, opts=opts)
own_alias = aws.kms.Alias("checkpoints", name="alias/vision-ckpt", target_key_id=cmk.key_id, opts=opts)

# -- 1. BucketV2 with separate V2 configuration resources, restricted data ---------------------
restricted = aws.s3.BucketV2(
    "restricted",
    bucket_prefix="vision-restricted-",
    tags={"purpose": "checkpoints", "data-classification": "restricted"},
    opts=opts,
)
aws.s3.BucketServerSideEncryptionConfigurationV2(
    "restricted",
    bucket=restricted.id,
    rules=[
        aws.s3.BucketServerSideEncryptionConfigurationV2RuleArgs(
            apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationV2RuleApplyServerSideEncryptionByDefaultArgs(
                sse_algorithm="AES256" if BREAK == "v2-aes256" else "aws:kms",
                kms_master_key_id=None
                if BREAK == "v2-aes256"
                else (cmk.arn if BREAK == "restricted-not-byok" else byok.arn),
            )
        )
    ],
    opts=opts,
)
aws.s3.BucketVersioningV2(
    "restricted", bucket=restricted.id, versioning_configuration={"status": "Enabled"}, opts=opts
)
aws.s3.BucketLifecycleConfigurationV2(
    "restricted",
    bucket=restricted.id,
    rules=[
        aws.s3.BucketLifecycleConfigurationV2RuleArgs(
            id="ckpt",
            status="Enabled",
            transitions=[
                aws.s3.BucketLifecycleConfigurationV2RuleTransitionArgs(days=1, storage_class="GLACIER")
            ]
            if BREAK == "v2-glacier"
            else None,
            expiration=aws.s3.BucketLifecycleConfigurationV2RuleExpirationArgs(days=30),
            noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationV2RuleNoncurrentVersionExpirationArgs(
                noncurrent_days=7
            ),
            abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationV2RuleAbortIncompleteMultipartUploadArgs(
                days_after_initiation=2
            ),
        )
    ],
    opts=opts,
)
if BREAK == "account-pab":
    aws.s3.AccountPublicAccessBlock(
        "account",
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
else:
    aws.s3.BucketPublicAccessBlock(
        "restricted",
        bucket=restricted.id,
        block_public_acls=True,
        block_public_policy=BREAK != "v2-pab-open",
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
aws.s3.BucketPolicy("restricted", bucket=restricted.id, policy=restricted.arn.apply(tls_only), opts=opts)
if BREAK == "v2-acl-public":
    aws.s3.BucketAclV2("restricted", bucket=restricted.id, acl="public-read", opts=opts)

# -- 2. v7 Bucket configured through its deprecated inline fields ---------------------------------
inline = aws.s3.Bucket(
    "inline",
    bucket="vision-inline-checkpoints",
    acl="public-read" if BREAK == "inline-acl-public" else "private",
    server_side_encryption_configuration=aws.s3.BucketServerSideEncryptionConfigurationArgs(
        rule=aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
            apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                sse_algorithm={"inline-aes256": "AES256", "dsse-own-alias": "aws:kms:dsse"}.get(
                    BREAK, "aws:kms"
                ),
                kms_master_key_id={
                    "inline-aes256": None,
                    "kms-default-key": None,
                    "aws-managed-alias": "alias/aws/s3",
                    "dsse-own-alias": own_alias.arn,
                }.get(BREAK, cmk.arn),
            )
        )
    ),
    versioning=aws.s3.BucketVersioningArgs(enabled=True),
    lifecycle_rules=[
        aws.s3.BucketLifecycleRuleArgs(
            enabled=True,
            abort_incomplete_multipart_upload_days=None if BREAK == "inline-no-abort" else 3,
            expiration=aws.s3.BucketLifecycleRuleExpirationArgs(days=30),
            noncurrent_version_expiration=aws.s3.BucketLifecycleRuleNoncurrentVersionExpirationArgs(days=7),
        )
    ],
    policy=None
    if BREAK == "inline-no-tls"
    else json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [
                        "arn:aws:s3:::vision-inline-checkpoints",
                        "arn:aws:s3:::vision-inline-checkpoints/*",
                    ],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            ],
        }
    ),
    tags={"purpose": "checkpoints"},
    opts=opts,
)
if BREAK != "account-pab":
    aws.s3.BucketPublicAccessBlock(
        "inline",
        bucket=inline.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )

# -- 3. BucketV2 configured through its deprecated inline list fields -----------------------------
legacy = aws.s3.BucketV2(
    "legacy",
    bucket="vision-legacy-checkpoints",
    server_side_encryption_configurations=[
        {
            "rules": [
                {
                    "apply_server_side_encryption_by_defaults": [
                        {"sse_algorithm": "aws:kms", "kms_master_key_id": cmk.arn}
                        if BREAK != "legacy-aes256"
                        else {"sse_algorithm": "AES256"}
                    ]
                }
            ]
        }
    ],
    versionings=[{"enabled": BREAK != "legacy-unversioned"}],
    lifecycle_rules=[
        {
            "enabled": True,
            "abort_incomplete_multipart_upload_days": 3,
            "expirations": [{"days": 90 if BREAK == "legacy-expire-90" else 30}],
            "noncurrent_version_expirations": [{"days": 7}],
        }
    ],
    tags={"purpose": "checkpoints"},
    opts=opts,
)
if BREAK != "account-pab":
    aws.s3.BucketPublicAccessBlock(
        "legacy",
        bucket=legacy.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
aws.s3.BucketPolicy(
    "legacy",
    bucket=legacy.id,
    policy=Output.all(legacy.arn).apply(lambda a: tls_only(a[0])),
    opts=opts,
)

aws.budgets.Budget(
    "data",
    budget_type="COST",
    limit_amount="800",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "ACTUAL",
            "subscriber_sns_topic_arns": ["arn:aws:sns:eu-west-1:123456789012:budget"],
        }
    ],
    opts=opts,
)
aws.cloudtrail.Trail("org", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, opts=opts)
