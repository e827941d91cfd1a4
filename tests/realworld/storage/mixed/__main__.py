"""Checkpoint storage on three clouds: a v7 S3 bucket with the separate (non-V2) configuration
resources, an EBS volume, OSS and COS buckets configured inline, and the keys that encrypt them.

`storage-mix:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import Output, ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "vision", "team": "data", "cost-center": "cc-7", "env": "dev"}
CKPT = {**TAGS, "purpose": "checkpoints"}

use1 = aws.Provider("use1", region="us-east-1", default_tags={"tags": TAGS})
aws_opts = ResourceOptions(provider=use1)

# -- AWS ------------------------------------------------------------------------------------------
data_key = aws.kms.Key(
    "data",
    description="checkpoint data",
    enable_key_rotation=BREAK != "aws-rotation-off",
    rotation_period_in_days=180,
    opts=aws_opts,
)
aws.kms.Alias("data", name="alias/ckpt-data", target_key_id=data_key.key_id, opts=aws_opts)
# Signing keys cannot rotate automatically: the rotation rule does not apply to them.
aws.kms.Key(
    "signing",
    customer_master_key_spec="ECC_NIST_P256",
    key_usage="SIGN_VERIFY",
    enable_key_rotation=False,
    opts=aws_opts,
)

ckpt = aws.s3.Bucket("ckpt", bucket_prefix="vision-ckpt-", tags=CKPT, opts=aws_opts)
aws.s3.BucketServerSideEncryptionConfiguration(
    "ckpt",
    bucket=ckpt.id,
    rules=[
        {
            "apply_server_side_encryption_by_default": {
                "sse_algorithm": "aws:kms:dsse",
                # A customer alias, written by name, is a customer-managed key.
                "kms_master_key_id": None if BREAK == "dsse-no-key" else "alias/ckpt-data",
            },
            "bucket_key_enabled": True,
        }
    ],
    opts=aws_opts,
)
aws.s3.BucketVersioning(
    "ckpt",
    bucket=ckpt.id,
    versioning_configuration={"status": "Suspended" if BREAK == "unversioned" else "Enabled"},
    opts=aws_opts,
)
expiration = {"date": "2027-01-01T00:00:00Z"} if BREAK == "expire-by-date" else {"days": 30}
# No move with a 30-day expiry: no S3 class pays off before it (GF-STOR-006).
transitions = None
if BREAK == "glacier-7":
    transitions = [{"days": 7, "storage_class": "GLACIER"}]
# Noncurrent versions expire after 7 days; moving them to STANDARD_IA first is a mistake S3 rejects.
noncurrent_transitions = (
    [{"noncurrent_days": 3, "storage_class": "STANDARD_IA"}] if BREAK == "noncurrent-ia-3" else None
)
aws.s3.BucketLifecycleConfiguration(
    "ckpt",
    bucket=ckpt.id,
    rules=[
        aws.s3.BucketLifecycleConfigurationRuleArgs(
            id="checkpoints",
            status="Enabled",
            filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix="runs/"),
            transitions=transitions,
            expiration=expiration,
            noncurrent_version_transitions=noncurrent_transitions,
            noncurrent_version_expiration={"noncurrent_days": 7},
            abort_incomplete_multipart_upload={"days_after_initiation": 1},
        ),
        # Kept for audit: a second, disabled rule must not count.
        aws.s3.BucketLifecycleConfigurationRuleArgs(id="old", status="Disabled", expiration={"days": 365}),
    ],
    opts=aws_opts,
)
if BREAK != "no-pab":
    aws.s3.BucketPublicAccessBlock(
        "ckpt",
        bucket=ckpt.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=BREAK != "pab-no-restrict",
        opts=aws_opts,
    )


def bucket_policy(arn: str) -> str:
    statements = [
        {
            "Sid": "TlsOnly",
            "Effect": "Deny",
            "Principal": {"AWS": "*"},
            "Action": "s3:*",
            "Resource": [f"{arn}/*"] if BREAK == "s3-tls-objects-only" else [arn, f"{arn}/*"],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        }
    ]
    if BREAK in ("public-read-policy", "no-pab"):
        statements.append(
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"{arn}/*"}
        )
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


aws.s3.BucketPolicy(
    "ckpt", bucket=ckpt.id, policy=Output.all(ckpt.arn).apply(lambda a: bucket_policy(a[0])), opts=aws_opts
)
if BREAK == "acl-allusers":
    aws.s3.BucketAcl(
        "ckpt",
        bucket=ckpt.id,
        access_control_policy={
            "owner": {"id": "owner-canonical-id"},
            "grants": [
                {
                    "grantee": {"type": "Group", "uri": "http://acs.amazonaws.com/groups/global/AllUsers"},
                    "permission": "READ",
                }
            ],
        },
        opts=aws_opts,
    )

aws.ebs.Volume(
    "scratch",
    availability_zone="us-east-1a",
    size=500,
    type="gp3",
    encrypted=BREAK not in ("volume-plain", "volume-plain-default-on"),
    opts=aws_opts,
)
if BREAK == "volume-plain-default-on":
    aws.ebs.EncryptionByDefault("default", enabled=True, opts=aws_opts)

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
            "subscriber_email_addresses": ["finops@example.com"],
        }
    ],
    opts=aws_opts,
)

# -- Alibaba Cloud --------------------------------------------------------------------------------
hz = alicloud.Provider("hangzhou", region="cn-hangzhou")
ali_opts = ResourceOptions(provider=hz)
ali_key = alicloud.kms.Key(
    "ckpt",
    description="checkpoints",
    automatic_rotation="Disabled" if BREAK == "ali-rotation-off" else "Enabled",
    rotation_interval="365d",
    pending_window_in_days=7,
    tags=TAGS,
    opts=ali_opts,
)
oss_ckpt = alicloud.oss.Bucket(
    "oss-ckpt",
    bucket="vision-oss-ckpt",
    server_side_encryption_rule=alicloud.oss.BucketServerSideEncryptionRuleArgs(
        sse_algorithm="AES256" if BREAK == "oss-aes256" else "KMS",
        kms_master_key_id=None if BREAK == "oss-aes256" else ali_key.id,
    ),
    versioning={"status": "Enabled"},
    lifecycle_rules=[
        alicloud.oss.BucketLifecycleRuleArgs(
            id="checkpoints",
            enabled=True,
            prefix="runs/",
            # IA's 30-day minimum counts from the object's creation: a move at day 7 pays off by the expiry.
            transitions=[{"days": 7, "storage_class": "Archive" if BREAK == "oss-archive-7" else "IA"}],
            expirations=[{"days": 30}],
            abort_multipart_uploads=[{"days": 1}],
            noncurrent_version_expirations=[{"days": 7}],
        )
    ],
    tags=CKPT,
    opts=ali_opts,
)
alicloud.oss.BucketAcl(
    "oss-ckpt",
    bucket=oss_ckpt.id,
    acl="public-read" if BREAK == "oss-acl-public" else "private",
    opts=ali_opts,
)
if BREAK != "oss-no-pab":
    alicloud.oss.BucketPublicAccessBlock(
        "oss-ckpt", bucket=oss_ckpt.id, block_public_access=True, opts=ali_opts
    )
alicloud.oss.BucketHttpsConfig(
    "oss-ckpt", bucket=oss_ckpt.id, enable=True, tls_versions=["TLSv1.2", "TLSv1.3"], opts=ali_opts
)
alicloud.oss.BucketPolicy(
    "oss-ckpt",
    bucket=oss_ckpt.id,
    policy=oss_ckpt.bucket.apply(
        lambda name: json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {
                        "Effect": "Deny",
                        "Principal": ["*"],
                        "Action": ["oss:*"],
                        "Resource": [f"acs:oss:*:*:{name}"]
                        if BREAK == "oss-tls-bucket-only"
                        else [f"acs:oss:*:*:{name}", f"acs:oss:*:*:{name}/*"],
                        "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
                    }
                ],
            }
        )
    ),
    opts=ali_opts,
)

# -- Tencent Cloud --------------------------------------------------------------------------------
gz = tencentcloud.Provider("guangzhou", region="ap-guangzhou")
tc_opts = ResourceOptions(provider=gz)
tc_key = tencentcloud.kms.Key(
    "ckpt",
    alias="vision-ckpt",
    key_rotation_enabled=BREAK != "tc-rotation-off",
    tags=TAGS,
    opts=tc_opts,
)
# Asymmetric keys have no automatic rotation on Tencent KMS.
tencentcloud.kms.Key(
    "tc-signing", alias="vision-sign", key_usage="ASYMMETRIC_SIGN_VERIFY_ECC", tags=TAGS, opts=tc_opts
)
cos_ckpt = tencentcloud.cos.Bucket(
    "cos-ckpt",
    bucket="vision-ckpt-1250000000",
    acl="public-read" if BREAK == "cos-public" else "private",
    encryption_algorithm="AES256" if BREAK == "cos-aes256" else "KMS",
    kms_id=None if BREAK == "cos-aes256" else tc_key.id,
    versioning_enable=True,
    lifecycle_rules=[
        tencentcloud.cos.BucketLifecycleRuleArgs(
            id="checkpoints",
            filter_prefix="runs/",
            transitions=[{"days": 7, "storage_class": "ARCHIVE"}] if BREAK == "cos-archive-7" else None,
            expiration={"days": 30},
            abort_incomplete_multipart_upload={"days_after_initiation": 1},
            non_current_expiration={"non_current_days": 7},
        )
    ],
    tags=CKPT,
    opts=tc_opts,
)
tencentcloud.cos.BucketPolicy(
    "cos-ckpt",
    bucket=cos_ckpt.bucket,
    policy=cos_ckpt.bucket.apply(
        lambda name: json.dumps(
            {
                "version": "2.0",
                "statement": [
                    {
                        "effect": "deny",
                        "principal": {"qcs": ["*"]},
                        "action": ["name/cos:*"],
                        "resource": [
                            f"qcs::cos:ap-guangzhou:uid/1250000000:{name}/"
                            + ("checkpoints/*" if BREAK == "cos-tls-prefix-only" else "*")
                        ],
                        "condition": {"bool_equal": {"cos:secure-transport": "false"}},
                    }
                ],
            }
        )
    ),
    opts=tc_opts,
)

tencentcloud.billing.Budget(
    "monthly",
    budget_name="vision-storage",
    cycle_type="MONTH",
    period_begin="2026-01",
    period_end="2027-12",
    plan_type="FIX",
    budget_quota="5000.00",
    bill_type="BILL",
    fee_type="REAL_COST",
    warn_jsons=[{"warn_type": "ACTUAL", "cal_type": "PERCENTAGE", "threshold_value": "80"}],
    opts=tc_opts,
)
