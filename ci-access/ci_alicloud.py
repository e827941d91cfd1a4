"""Alibaba Cloud: GitHub Actions as a RAM OIDC provider and the read-only role the preview assumes.

The reusable workflow's preview job asks GitHub for a token with audience `sts.aliyuncs.com` and
`aliyun/configure-aliyun-credentials-action` exchanges it (STS `AssumeRoleWithOIDC`) for an hour on this
role. The trust policy is RAM's OIDC form: the provider as `Federated`, and `StringEquals` on the
token's `oidc:iss`, `oidc:aud` and `oidc:sub`, the last naming this repository's pull requests only
(GF-IAM-004 recognises the form by its `oidc:iss`).

What the role may do is what `pulumi preview` of an Alibaba Cloud site reads (the lookups the
programs make, `gpufleet/invokes.py` lists their tokens):

- `ecs:DescribeZones`, `ecs:DescribeAvailableResource`: `alicloud.get_zones`, the zones that sell a
  pool's instance types and vSwitches (`components/network/alicloud.py`);
- `ecs:DescribeInstanceTypes`: `alicloud.ecs.get_instance_types`;
- `ecs:DescribeImages`: the GPU image lookup (`components/sites/alicloud.py`);
- `vpc:DescribeVSwitches`: vSwitches given by id (`network.subnet_ids`).

STS `GetCallerIdentity` (the account lookup) needs no permission. These `Describe` calls take no
resource-level scope in RAM, so the statement names `*`; nothing reads data and nothing writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

ISSUER_URL = "https://token.actions.githubusercontent.com"
AUDIENCE = "sts.aliyuncs.com"
PROVIDER_NAME = "github-actions"
ROLE_NAME = "gpufleet-pr-preview"
POLICY_NAME = "gpufleet-pr-preview-reads"
# RAM: a role's MaxSessionDuration is 3600-43200 s (pulumi_alicloud ram.Role docstring); the shortest.
SESSION_SECONDS = 3600
# The SHA-1 fingerprint of the issuer's HTTPS CA certificate, 40 hex digits (ims.OidcProvider
# `fingerprints`; RAM accepts up to five).
FINGERPRINT = re.compile(r"[0-9a-fA-F]{40}")
MAX_FINGERPRINTS = 5

PREVIEW_READS = (
    "ecs:DescribeAvailableResource",
    "ecs:DescribeImages",
    "ecs:DescribeInstanceTypes",
    "ecs:DescribeZones",
    "vpc:DescribeVSwitches",
)


def check_fingerprints(value: Any, namespace: str) -> list[str]:
    if (
        not isinstance(value, list)
        or not 0 < len(value) <= MAX_FINGERPRINTS
        or not all(isinstance(f, str) and FINGERPRINT.fullmatch(f) for f in value)
    ):
        raise ValueError(
            f"{namespace}:alicloudFingerprints must be 1 to {MAX_FINGERPRINTS} SHA-1 fingerprints (40 hex "
            f"digits) of the CA certificate of {ISSUER_URL}, got {value!r}"
        )
    return [f.lower() for f in value]


def provider_arn(account_id: str) -> str:
    return f"acs:ram::{account_id}:oidc-provider/{PROVIDER_NAME}"


def trust_policy(provider: str, subject: str) -> dict[str, Any]:
    """Only GitHub's tokens, meant for Alibaba Cloud STS, from `subject` (one repository's pull requests)."""
    return {
        "Version": "1",
        "Statement": [
            {
                "Action": "sts:AssumeRole",
                "Effect": "Allow",
                "Principal": {"Federated": [provider]},
                "Condition": {
                    "StringEquals": {
                        "oidc:iss": ISSUER_URL,
                        "oidc:aud": AUDIENCE,
                        "oidc:sub": subject,
                    }
                },
            }
        ],
    }


def read_policy() -> dict[str, Any]:
    return {
        "Version": "1",
        "Statement": [{"Effect": "Allow", "Action": list(PREVIEW_READS), "Resource": "*"}],
    }


def build(
    subject: str, repository: str, fingerprints: Sequence[str], tags: Mapping[str, str]
) -> dict[str, pulumi.Output[Any]]:
    account_id = alicloud.get_caller_identity_output().account_id
    provider = alicloud.ims.OidcProvider(
        "github-actions-ram",
        oidc_provider_name=PROVIDER_NAME,
        issuer_url=ISSUER_URL,
        client_ids=[AUDIENCE],
        fingerprints=list(fingerprints),
        description="GitHub Actions OIDC tokens (gpufleet pull-request previews)",
    )
    # The provider's ARN is fixed by the account and its name: written out, the trust policy is known
    # (and judged) at preview.
    role = alicloud.ram.Role(
        "pr-preview-ram",
        role_name=ROLE_NAME,
        description=f"pulumi preview for pull requests of {repository} (GitHub Actions OIDC, read-only)",
        assume_role_policy_document=account_id.apply(
            lambda uid: json.dumps(trust_policy(provider_arn(uid), subject))
        ),
        max_session_duration=SESSION_SECONDS,
        tags=dict(tags),
        opts=pulumi.ResourceOptions(depends_on=[provider]),
    )
    policy = alicloud.ram.Policy(
        "pr-preview-ram-reads",
        policy_name=POLICY_NAME,
        policy_document=json.dumps(read_policy()),
        description="What pulumi preview of a gpufleet Alibaba Cloud site reads",
        tags=dict(tags),
    )
    alicloud.ram.RolePolicyAttachment(
        "pr-preview-ram-reads",
        role_name=role.role_name,
        policy_name=policy.policy_name,
        policy_type="Custom",
    )
    return {"alicloudRoleArn": role.arn, "alicloudOidcProviderArn": account_id.apply(provider_arn)}
