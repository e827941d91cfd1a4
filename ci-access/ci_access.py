"""GitHub Actions' OIDC provider and the read-only role the preview jobs (`.github/workflows/guardrails.yml`,
the reusable `.github/workflows/gpufleet-preview.yml`) sign in with, on AWS and, where `clouds` names
them, on Alibaba Cloud (`ci_alicloud`: a RAM OIDC provider and role) and Tencent Cloud (`ci_tencentcloud`:
a CAM OIDC identity provider and role). Each trusts the same subject, this repository's pull requests.

The workflow's preview job asks GitHub for an OIDC token (audience `sts.amazonaws.com`) and exchanges it
for credentials of this role that last an hour at most: no access key exists anywhere. The trust policy
accepts a token only when its subject is `repo:<owner>/<repo>:pull_request`, the subject GitHub gives a
job run for a pull request of that repository; tokens of other repositories, of branch pushes and of
other events are refused (GF-IAM-004 judges exactly this).

What the role may do is what `pulumi preview` of this project's stacks reads, nothing more:

- `ec2:DescribeAvailabilityZones`, `ec2:DescribeInstanceTypeOfferings`: the zones a pool's GPU types
  are offered in (`components/network/aws_zones.py`);
- `ec2:DescribeVpcEndpointServices`: the interface endpoints' services in those zones;
- `ec2:DescribeSubnets`: subnets given by id (`network.subnet_ids`);
- `ec2:DescribeImages`: the GPU AMI lookup;
- `kms:ListAliases`, `kms:DescribeKey`: a key given by alias.

`sts:GetCallerIdentity` (the provider's credential check and the programs' account lookups) needs no
permission. EC2 and KMS `Describe`/`List` calls take no resource-level scope, so they name `*`, and a
`aws:RequestedRegion` condition keeps them to the configured regions. A preview does not read the
resources a stack already has (that is `pulumi refresh`, which this role cannot do); the stack's state
lives in Pulumi Cloud, reached with the workflow's Pulumi token, not with this role.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import ci_alicloud
import ci_tencentcloud
import pulumi
import pulumi_aws as aws

GITHUB_ISSUER = "token.actions.githubusercontent.com"
AUDIENCE = "sts.amazonaws.com"
# GitHub: owners are 1-39 letters, digits or single hyphens; repository names letters, digits, `.`, `_`, `-`.
REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/[A-Za-z0-9._-]{1,100}")
REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-\d+")
PROVIDER_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:oidc-provider/" + re.escape(GITHUB_ISSUER))
REQUIRED_TAGS = ("project", "team", "cost-center", "env")
COMPONENT_TAG = ("gpufleet:component", "ci-access")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
ALERT_PERCENT = 80
SESSION_SECONDS = 3600

PREVIEW_READS = (
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcEndpointServices",
    "kms:DescribeKey",
    "kms:ListAliases",
)

NAMESPACE = "gpufleet-ci-access"
CLOUDS = ("aws", "alicloud", "tencentcloud")


class AccessConfigError(ValueError):
    """A config value the program cannot use; the message names the key and the allowed values."""


def check_repository(value: Any) -> str:
    if not isinstance(value, str) or REPOSITORY.fullmatch(value) is None or value.endswith(("/.", "/..")):
        raise AccessConfigError(
            f"{NAMESPACE}:repository must be a GitHub repository as owner/name (acme/gpufleet), got "
            f"{value!r}: the role trusts that repository's pull requests and nothing else"
        )
    return value


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


def check_tags(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) and v for v in value.values()):
        raise AccessConfigError(
            f"{NAMESPACE}:tags must be a mapping of tag names to non-empty strings, got {value!r}"
        )
    missing = [tag for tag in REQUIRED_TAGS if tag not in value]
    if missing:
        raise AccessConfigError(f"{NAMESPACE}:tags must carry the cost tags; missing: {', '.join(missing)}")
    return {str(k): v for k, v in value.items()}


def check_budget(value: Any) -> tuple[float, str]:
    """`budget: {monthly: USD, alert_email: ...}`: GF-COST-002 wants every stack to have one."""
    monthly = value.get("monthly") if isinstance(value, dict) else None
    email = value.get("alert_email") if isinstance(value, dict) else None
    if (
        not isinstance(monthly, int | float)
        or isinstance(monthly, bool)
        or not 0 < monthly <= 1_000_000
        or not isinstance(email, str)
        or EMAIL.fullmatch(email) is None
    ):
        raise AccessConfigError(
            f"{NAMESPACE}:budget must be {{monthly: <USD, above 0>, alert_email: <address>}}, got {value!r}"
        )
    return float(monthly), email


def check_clouds(value: Any) -> list[str]:
    """`clouds`: where the roles are made; AWS only when unset."""
    if value is None:
        return ["aws"]
    if not isinstance(value, list) or not value or not all(c in CLOUDS for c in value):
        raise AccessConfigError(
            f"{NAMESPACE}:clouds must be a non-empty list of {', '.join(CLOUDS)}, got {value!r}"
        )
    return [c for c in CLOUDS if c in value]


def subject(repository: str) -> str:
    """The `sub` claim of a pull-request job of `repository`."""
    return f"repo:{repository}:pull_request"


def trust_policy(provider_arn: str, repository: str) -> dict[str, Any]:
    """Only GitHub's tokens, meant for STS, from pull requests of `repository`."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "PullRequestsOfOneRepository",
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{GITHUB_ISSUER}:aud": AUDIENCE,
                        f"{GITHUB_ISSUER}:sub": subject(repository),
                    }
                },
            }
        ],
    }


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


class _Settings:
    def __init__(self, config: pulumi.Config) -> None:
        self.repository = check_repository(config.get("repository"))
        self.clouds = check_clouds(config.get_object("clouds"))
        self.regions = check_regions(config.get_object("regions")) if "aws" in self.clouds else []
        tags = check_tags(config.get_object("tags"))
        self.tags = {**tags, COMPONENT_TAG[0]: COMPONENT_TAG[1]}
        self.monthly, self.email = check_budget(config.get_object("budget"))
        self.provider_arn = config.get("providerArn")
        if self.provider_arn is not None and PROVIDER_ARN.fullmatch(self.provider_arn) is None:
            raise AccessConfigError(
                f"{NAMESPACE}:providerArn must be the ARN of the account's GitHub OIDC provider "
                f"(arn:aws:iam::<account>:oidc-provider/{GITHUB_ISSUER}), got {self.provider_arn!r}"
            )
        self.state_bucket = config.get("stateBucket")
        if self.state_bucket is not None and STATE_BUCKET.fullmatch(self.state_bucket) is None:
            raise AccessConfigError(
                f"{NAMESPACE}:stateBucket must be the name of the S3 bucket of `pulumi login s3://<bucket>` "
                f"(3-63 lower-case letters, digits, dots, hyphens), got {self.state_bucket!r}"
            )
        self.secrets_key = config.get("secretsKeyArn")
        if self.secrets_key is not None and KMS_KEY_ARN.fullmatch(self.secrets_key) is None:
            raise AccessConfigError(
                f"{NAMESPACE}:secretsKeyArn must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), "
                f"got {self.secrets_key!r}"
            )
        try:
            self.fingerprints = (
                ci_alicloud.check_fingerprints(config.get_object("alicloudFingerprints"), NAMESPACE)
                if "alicloud" in self.clouds
                else []
            )
            self.identity_key = (
                ci_tencentcloud.check_identity_key(config.get("tencentcloudIdentityKey"), NAMESPACE)
                if "tencentcloud" in self.clouds
                else ""
            )
        except ValueError as exc:
            raise AccessConfigError(str(exc)) from None


def _config() -> _Settings:
    try:
        return _Settings(pulumi.Config(NAMESPACE))
    except AccessConfigError as exc:
        raise pulumi.RunError(str(exc)) from None


def build() -> Mapping[str, pulumi.Output[Any]]:
    settings = _config()
    outputs: dict[str, pulumi.Output[Any]] = {
        "subject": pulumi.Output.from_input(subject(settings.repository))
    }
    if "aws" in settings.clouds:
        outputs |= _aws(settings)
    if "alicloud" in settings.clouds:
        outputs |= ci_alicloud.build(
            subject(settings.repository), settings.repository, settings.fingerprints, settings.tags
        )
    if "tencentcloud" in settings.clouds:
        outputs |= ci_tencentcloud.build(
            subject(settings.repository),
            settings.repository,
            settings.identity_key,
            settings.tags,
            (settings.monthly, settings.email),
        )
    for name, value in outputs.items():
        pulumi.export(name, value)
    return outputs


def _aws(settings: _Settings) -> dict[str, pulumi.Output[Any]]:
    repository, regions, tags, existing = (
        settings.repository,
        settings.regions,
        settings.tags,
        settings.provider_arn,
    )
    monthly, email = settings.monthly, settings.email
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
    if settings.state_bucket is not None:
        bucket, key = settings.state_bucket, settings.secrets_key
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
