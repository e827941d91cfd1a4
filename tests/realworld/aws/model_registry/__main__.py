"""A model registry: an encrypted, private, TLS-only bucket holding released weights as objects, a
publisher role with its policy and a CI user attached to it: raw `pulumi_aws`, no default tags. The
cost tags sit on what is billed (the bucket, the key); objects and IAM entities carry none.

`model-registry:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "registry", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}

key = aws.kms.Key("registry", enable_key_rotation=True, deletion_window_in_days=30, tags=TAGS)
bucket = aws.s3.Bucket(
    "registry",
    bucket="acme-model-registry",
    tags={k: v for k, v in TAGS.items() if k != "cost-center"} if BREAK == "bucket-untagged" else TAGS,
)
aws.s3.BucketServerSideEncryptionConfiguration(
    "registry",
    bucket=bucket.id,
    rules=[
        {
            "apply_server_side_encryption_by_default": {
                "sse_algorithm": "aws:kms",
                "kms_master_key_id": key.arn,
            },
            "bucket_key_enabled": True,
        }
    ],
)
aws.s3.BucketPublicAccessBlock(
    "registry",
    bucket=bucket.id,
    block_public_acls=True,
    block_public_policy=True,
    ignore_public_acls=True,
    restrict_public_buckets=True,
)
aws.s3.BucketPolicy(
    "registry",
    bucket=bucket.id,
    policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "TlsOnly",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": ["arn:aws:s3:::acme-model-registry", "arn:aws:s3:::acme-model-registry/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            ],
        }
    ),
)
for name in ("llama-ft-v3/config.json", "llama-ft-v3/tokenizer.json", "README.md"):
    aws.s3.BucketObjectv2(
        name.replace("/", "-").replace(".", "-"),
        bucket=bucket.id,
        key=name,
        content=json.dumps({"model": "llama-ft-v3"}) if name.endswith(".json") else "Released models.",
        server_side_encryption="aws:kms",
        kms_key_id=key.arn,
    )
publisher = aws.iam.Role(
    "publisher",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
                    "Action": "sts:AssumeRole",
                    "Condition": {"StringEquals": {"sts:ExternalId": "registry-ci"}},
                }
            ],
        }
    ),
)
publish = aws.iam.Policy(
    "publish",
    policy=key.arn.apply(
        lambda key_arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["s3:PutObject", "s3:GetObject"],
                        "Resource": "arn:aws:s3:::acme-model-registry/*",
                    },
                    {
                        "Effect": "Allow",
                        "Action": ["kms:Encrypt", "kms:GenerateDataKey"],
                        "Resource": key_arn,
                    },
                ],
            }
        )
    ),
)
aws.iam.RolePolicyAttachment("publish", role=publisher.name, policy_arn=publish.arn)
ci = aws.iam.User("registry-ci", path="/ci/")
aws.iam.UserPolicyAttachment("registry-ci", user=ci.name, policy_arn=publish.arn)
aws.budgets.Budget(
    "registry",
    budget_type="COST",
    limit_amount="200",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "ACTUAL",
            "subscriber_email_addresses": ["ml-platform@example.com"],
        }
    ],
    tags=TAGS,
)
aws.cloudtrail.Trail("registry", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, tags=TAGS)
