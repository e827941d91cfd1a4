"""Tencent Cloud: GitHub Actions as a CAM OIDC identity provider and the read-only role the preview assumes.

CAM's role SSO over OIDC is `tencentcloud.cam.RoleSso` (`tencentcloud:Cam/roleSso:RoleSso`): the issuer,
the audiences it accepts and the issuer's signing keys (`identity_key`, GitHub's JWKS base64-encoded; CAM
verifies tokens with it, so it has to be updated when GitHub rotates its keys). The reusable workflow's
preview job asks GitHub for a token with audience `sts.tencentcloudapi.com` and hands it to the
tencentcloud provider, which exchanges it itself (STS `AssumeRoleWithWebIdentity`, the provider's
`assumeRoleWithWebIdentity` settings from `TENCENTCLOUD_ASSUME_ROLE_*`) for an hour on this role. The
trust policy is CAM's form: the provider as `federated`, `string_equal` on `oidc:iss`, `oidc:aud` and
`oidc:sub`, the last naming this repository's pull requests only (GF-IAM-004 judges it).

What the role may do is what `pulumi preview` of a Tencent Cloud site reads (the tencentcloud provider's
data sources, `gpufleet/invokes.py` lists their tokens; the API each calls is from the provider's
source):

- `api:DescribeZones`: `availability.get_zones_by_product` (the `api` service's DescribeZones);
- `cvm:DescribeZoneInstanceConfigInfos`, `cvm:DescribeInstanceTypeConfigs`: `instance.get_types`, the
  zones that sell a pool's instance types (`components/network/tencentcloud.py`);
- `cvm:DescribeImages`: the GPU image lookup (`components/sites/tencentcloud.py`);
- `vpc:DescribeSubnets`: subnets given by id (`network.subnet_ids`);
- `cam:GetUserAppId`: `user.get_info`, the account's AppId (beside STS `GetCallerIdentity`).

These `Describe` calls take no resource-level scope in CAM, so the statement names `*`; nothing reads
data and nothing writes.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.cost.tencentcloud import TencentBudget, TencentBudgetArgs
from gpufleet.components.sites.tencentcloud import BUDGET_PERIOD

ISSUER_URL = "https://token.actions.githubusercontent.com"
AUDIENCE = "sts.tencentcloudapi.com"
PROVIDER_NAME = "github-actions"
ROLE_NAME = "gpufleet-pr-preview"
POLICY_NAME = "gpufleet-pr-preview-reads"
# CAM role session_duration: 0-43200 s (tencentcloud provider docs); an hour, as on the other clouds.
SESSION_SECONDS = 3600
ALERT_PERCENT = 80

PREVIEW_READS = (
    "api:DescribeZones",
    "cam:GetUserAppId",
    "cvm:DescribeImages",
    "cvm:DescribeInstanceTypeConfigs",
    "cvm:DescribeZoneInstanceConfigInfos",
    "vpc:DescribeSubnets",
)


def check_identity_key(value: Any, namespace: str) -> str:
    """GitHub's JWKS (https://token.actions.githubusercontent.com/.well-known/jwks), base64-encoded: CAM
    checks token signatures against it."""
    problem = (
        f"{namespace}:tencentcloudIdentityKey must be the base64 of GitHub's JWKS "
        f"({ISSUER_URL}/.well-known/jwks)"
    )
    if not isinstance(value, str) or not value:
        raise ValueError(f"{problem}, got {value!r}")
    try:
        keys = json.loads(base64.b64decode(value, validate=True)).get("keys")
    except (binascii.Error, ValueError, AttributeError):
        raise ValueError(f"{problem}; it does not decode to a JSON object") from None
    if not isinstance(keys, list) or not keys or not all(isinstance(k, dict) and "kid" in k for k in keys):
        raise ValueError(f"{problem}; it holds no signing keys (a `keys` list of keys with a `kid`)")
    return value


def provider_arn(uin: str) -> str:
    return f"qcs::cam::uin/{uin}:oidc-provider/{PROVIDER_NAME}"


def role_arn(uin: str) -> str:
    return f"qcs::cam::uin/{uin}:roleName/{ROLE_NAME}"


def trust_policy(provider: str, subject: str) -> dict[str, Any]:
    """Only GitHub's tokens, meant for Tencent Cloud STS, from `subject` (one repository's pull requests)."""
    return {
        "version": "2.0",
        "statement": [
            {
                "action": "name/sts:AssumeRoleWithWebIdentity",
                "effect": "allow",
                "principal": {"federated": [provider]},
                "condition": {
                    "string_equal": {
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
        "version": "2.0",
        "statement": [{"effect": "allow", "action": list(PREVIEW_READS), "resource": ["*"]}],
    }


def build(
    subject: str, repository: str, identity_key: str, tags: Mapping[str, str], budget: tuple[float, str]
) -> dict[str, pulumi.Output[Any]]:
    uin = tencentcloud.user.get_info_output().owner_uin
    provider = tencentcloud.cam.RoleSso(
        "github-actions-cam",
        name=PROVIDER_NAME,
        identity_url=ISSUER_URL,
        identity_key=identity_key,
        client_ids=[AUDIENCE],
        description="GitHub Actions OIDC tokens (gpufleet pull-request previews)",
    )
    role = tencentcloud.cam.Role(
        "pr-preview-cam",
        name=ROLE_NAME,
        description=f"pulumi preview for pull requests of {repository} (GitHub Actions OIDC, read-only)",
        document=uin.apply(lambda owner: json.dumps(trust_policy(provider_arn(owner), subject))),
        session_duration=SESSION_SECONDS,
        console_login=False,
        tags=dict(tags),
        opts=pulumi.ResourceOptions(depends_on=[provider]),
    )
    policy = tencentcloud.cam.Policy(
        "pr-preview-cam-reads",
        name=POLICY_NAME,
        document=json.dumps(read_policy()),
        description="What pulumi preview of a gpufleet Tencent Cloud site reads",
    )
    tencentcloud.cam.RolePolicyAttachment("pr-preview-cam-reads", role_id=role.id, policy_id=policy.id)
    # CAM bills nothing; GF-COST-002 wants every stack on Tencent Cloud to have a budget all the same (the
    # fleet's own budget component, in CNY at the catalogue's rate; its `email` is not a Tencent input).
    TencentBudget(
        "ci-access",
        TencentBudgetArgs(
            budget_name="gpufleet-ci-access",
            monthly=budget[0],
            currency="USD",
            alert_percent=ALERT_PERCENT,
            period_begin=BUDGET_PERIOD[0],
            period_end=BUDGET_PERIOD[1],
        ),
    )
    return {
        "tencentcloudRoleArn": uin.apply(role_arn),
        "tencentcloudProviderId": provider.name,
    }
