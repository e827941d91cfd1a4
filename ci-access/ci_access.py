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

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pulumi

from gpufleet.components.clouds import ACCOUNT_CLOUD, CLOUDS

GITHUB_ISSUER = "token.actions.githubusercontent.com"
AUDIENCE = "sts.amazonaws.com"
# GitHub: owners are 1-39 letters, digits or single hyphens; repository names letters, digits, `.`, `_`, `-`.
REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/[A-Za-z0-9._-]{1,100}")
REQUIRED_TAGS = ("project", "team", "cost-center", "env")
COMPONENT_TAG = ("gpufleet:component", "ci-access")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
ALERT_PERCENT = 80
SESSION_SECONDS = 3600

NAMESPACE = "gpufleet-ci-access"


class AccessConfigError(ValueError):
    """A config value the program cannot use; the message names the key and the allowed values."""


def check_repository(value: Any) -> str:
    if not isinstance(value, str) or REPOSITORY.fullmatch(value) is None or value.endswith(("/.", "/..")):
        raise AccessConfigError(
            f"{NAMESPACE}:repository must be a GitHub repository as owner/name (acme/gpufleet), got "
            f"{value!r}: the role trusts that repository's pull requests and nothing else"
        )
    return value


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
    """`clouds`: where the roles are made; the account cloud (AWS) only when unset."""
    if value is None:
        return [ACCOUNT_CLOUD]
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


def _part(cloud: str) -> ModuleType:
    """The module of `cloud`'s part (`ci_access_<cloud>.py` beside this one): its settings, read before
    the stack's tags (`read_first`, optional) and after its budget (`read`), and its resources (`build`)."""
    return importlib.import_module(f"ci_access_{cloud}")


@dataclass
class Common:
    """What every cloud's part builds with: the repository and its subject, the tags and the budget."""

    repository: str
    tags: dict[str, str]
    monthly: float
    email: str

    @property
    def subject(self) -> str:
        return subject(self.repository)


class _Settings:
    def __init__(self, config: pulumi.Config) -> None:
        repository = check_repository(config.get("repository"))
        self.clouds = check_clouds(config.get_object("clouds"))
        self.parts: dict[str, dict[str, Any]] = {}
        try:
            for cloud in CLOUDS:
                first = getattr(_part(cloud), "read_first", None)
                if first is not None:
                    self.parts[cloud] = first(config, cloud in self.clouds)
            tags = check_tags(config.get_object("tags"))
            monthly, email = check_budget(config.get_object("budget"))
            for cloud in CLOUDS:
                self.parts[cloud] = {
                    **self.parts.get(cloud, {}),
                    **_part(cloud).read(config, cloud in self.clouds),
                }
        except AccessConfigError:
            raise
        except ValueError as exc:
            raise AccessConfigError(str(exc)) from None
        self.common = Common(repository, {**tags, COMPONENT_TAG[0]: COMPONENT_TAG[1]}, monthly, email)


def _config() -> _Settings:
    try:
        return _Settings(pulumi.Config(NAMESPACE))
    except AccessConfigError as exc:
        raise pulumi.RunError(str(exc)) from None


def build() -> Mapping[str, pulumi.Output[Any]]:
    settings = _config()
    outputs: dict[str, pulumi.Output[Any]] = {"subject": pulumi.Output.from_input(settings.common.subject)}
    for cloud in settings.clouds:
        outputs |= _part(cloud).build(settings.common, settings.parts[cloud])
    for name, value in outputs.items():
        pulumi.export(name, value)
    return outputs
