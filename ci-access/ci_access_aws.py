"""ci-access on AWS (see ci_access): the account's GitHub Actions OIDC provider, the read-only
pull-request preview role and what it may read, its access to a self-managed state bucket, and the
stack's budget. ci_access reads this module's settings (`read_first`, `read`) and calls `build`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_aws as aws
from ci_access import (
    ALERT_PERCENT,
    AUDIENCE,
    COMPONENT_TAG,
    GITHUB_ISSUER,
    NAMESPACE,
    SESSION_SECONDS,
    AccessConfigError,
    Common,
    trust_policy,
)

REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-\d+")
PROVIDER_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:oidc-provider/" + re.escape(GITHUB_ISSUER))

PREVIEW_READS = (
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcEndpointServices",
    "kms:DescribeKey",
    "kms:ListAliases",
)


def check_regions(value: Any) -> list[str]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(r, str) and REGION.fullmatch(r) for r in value)
    ):
        raise AccessConfigError(
            f"{NAMESPACE}:regions must be a non-empty list of AWS regions (us-east-1), got {value!r}: "
            "the role's reads are refused outside them"
        )
    return sorted(set(value))


def read_first(config: pulumi.Config, chosen: bool) -> dict[str, Any]:
    """The regions the role's reads are kept to (checked before the stack's tags, when AWS is chosen)."""
    return {"regions": check_regions(config.get_object("regions")) if chosen else []}


def read(config: pulumi.Config, chosen: bool) -> dict[str, Any]:
    """An existing OIDC provider, a self-managed state bucket and the stack's secrets key, each checked
    (whether AWS is chosen or not)."""
    provider_arn = config.get("providerArn")
    if provider_arn is not None and PROVIDER_ARN.fullmatch(provider_arn) is None:
        raise AccessConfigError(
            f"{NAMESPACE}:providerArn must be the ARN of the account's GitHub OIDC provider "
            f"(arn:aws:iam::<account>:oidc-provider/{GITHUB_ISSUER}), got {provider_arn!r}"
        )
    state_bucket = config.get("stateBucket")
    if state_bucket is not None and STATE_BUCKET.fullmatch(state_bucket) is None:
        raise AccessConfigError(
            f"{NAMESPACE}:stateBucket must be the name of the S3 bucket of `pulumi login s3://<bucket>` "
            f"(3-63 lower-case letters, digits, dots, hyphens), got {state_bucket!r}"
        )
    secrets_key = config.get("secretsKeyArn")
    if secrets_key is not None and KMS_KEY_ARN.fullmatch(secrets_key) is None:
        raise AccessConfigError(
            f"{NAMESPACE}:secretsKeyArn must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), "
            f"got {secrets_key!r}"
        )
    return {"provider_arn": provider_arn, "state_bucket": state_bucket, "secrets_key": secrets_key}


def read_policy(regions: Sequence[str], account_id: str, partition: str = "aws") -> dict[str, Any]:
    """What `pulumi preview` of the fleet stacks reads (see the module docstring), in `regions` only."""
    in_regions = {"StringEquals": {"aws:RequestedRegion": list(regions)}}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "PreviewLookups",
                "Effect": "Allow",
                "Action": [a for a in PREVIEW_READS if a != "kms:DescribeKey"],
                "Resource": "*",
                "Condition": in_regions,
            },
            {
                "Sid": "PreviewKeyLookups",
                "Effect": "Allow",
                "Action": "kms:DescribeKey",
                "Resource": f"arn:{partition}:kms:*:{account_id}:key/*",
                "Condition": in_regions,
            },
        ],
    }


# S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens (AWS bucket naming rules).
STATE_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
KMS_KEY_ARN = re.compile(r"arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]+")


def state_policy(bucket: str, key_arn: str | None, partition: str = "aws") -> list[dict[str, Any]]:
    """With a self-managed backend (`pulumi login s3://<bucket>`) the preview reads the stack's state
    under `.pulumi/` and takes the stack's lock (`.pulumi/locks/`, written and deleted); a stack whose
    secrets provider is a KMS key (`awskms://`) decrypts its config with that key. Nothing else."""
    bucket_arn = f"arn:{partition}:s3:::{bucket}"
    found: list[dict[str, Any]] = [
        {"Sid": "StateList", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": bucket_arn},
        {
            "Sid": "StateRead",
            "Effect": "Allow",
            "Action": "s3:GetObject",
            "Resource": f"{bucket_arn}/.pulumi/*",
        },
        {
            "Sid": "StateLock",
            "Effect": "Allow",
            "Action": ["s3:DeleteObject", "s3:PutObject"],
            "Resource": f"{bucket_arn}/.pulumi/locks/*",
        },
    ]
    if key_arn is not None:
        found.append({"Sid": "StackSecrets", "Effect": "Allow", "Action": "kms:Decrypt", "Resource": key_arn})
    return found


def build(common: Common, settings: Mapping[str, Any]) -> dict[str, pulumi.Output[Any]]:
    """The GitHub OIDC provider (unless the account has one), the preview role, its reads, its state
    access with a self-managed backend, and the stack's budget."""
    repository, regions, tags, existing = (
        common.repository,
        settings["regions"],
        common.tags,
        settings["provider_arn"],
    )
    monthly, email = common.monthly, common.email
    depends: list[pulumi.Resource] = []
    if existing is None:
        depends.append(
            aws.iam.OpenIdConnectProvider(
                "github-actions", url=f"https://{GITHUB_ISSUER}", client_id_lists=[AUDIENCE], tags=tags
            )
        )
    account_id = aws.get_caller_identity_output().account_id
    partition = aws.get_partition_output().partition
    # The provider's ARN is fixed by the account and the issuer: written out, the trust policy is known
    # (and judged) at preview instead of waiting for the provider to exist.
    provider_arn = existing or pulumi.Output.all(partition, account_id).apply(
        lambda parts: f"arn:{parts[0]}:iam::{parts[1]}:oidc-provider/{GITHUB_ISSUER}"
    )
    role = aws.iam.Role(
        "pr-preview",
        description=f"pulumi preview for pull requests of {repository} (GitHub Actions OIDC, read-only)",
        assume_role_policy=pulumi.Output.from_input(provider_arn).apply(
            lambda arn: json.dumps(trust_policy(arn, repository))
        ),
        max_session_duration=SESSION_SECONDS,
        tags=tags,
        opts=pulumi.ResourceOptions(depends_on=depends),
    )
    aws.iam.RolePolicy(
        "pr-preview-reads",
        role=role.name,
        policy=pulumi.Output.all(account_id, partition).apply(
            lambda parts: json.dumps(read_policy(regions, parts[0], parts[1]))
        ),
    )
    if settings["state_bucket"] is not None:
        bucket, key = settings["state_bucket"], settings["secrets_key"]
        aws.iam.RolePolicy(
            "pr-preview-state",
            role=role.name,
            policy=partition.apply(
                lambda part: json.dumps(
                    {"Version": "2012-10-17", "Statement": state_policy(bucket, key, part)}
                )
            ),
        )
    # IAM bills nothing; the budget (free without actions) says so if anything tagged as this stack ever
    # starts to cost.
    aws.budgets.Budget(
        "ci-access",
        budget_type="COST",
        time_unit="MONTHLY",
        limit_amount=f"{monthly:.2f}",
        limit_unit="USD",
        cost_filters=[{"name": "TagKeyValue", "values": [f"user:{COMPONENT_TAG[0]}${COMPONENT_TAG[1]}"]}],
        notifications=[
            {
                "comparison_operator": "GREATER_THAN",
                "threshold": ALERT_PERCENT,
                "threshold_type": "PERCENTAGE",
                "notification_type": "FORECASTED",
                "subscriber_email_addresses": [email],
            }
        ],
        tags=tags,
    )
    return {"roleArn": role.arn}
