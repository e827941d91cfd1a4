"""ci-access/: GitHub's OIDC provider and the pull-request preview role, judged by our own rules."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.policies.iam.trust_specific_principals import POLICY as TRUST_POLICY
from tests.cli.helpers import ROOT, invoke
from tests.policies.support import run_resource

CI_ACCESS = ROOT / "ci-access"
sys.path.insert(0, str(CI_ACCESS))
import ci_access  # noqa: E402
import ci_alicloud  # noqa: E402
import ci_tencentcloud  # noqa: E402

ACCOUNT = "123456789012"
PROVIDER_ARN = f"arn:aws:iam::{ACCOUNT}:oidc-provider/token.actions.githubusercontent.com"
ROLE = "aws:iam/role:Role"


def _plan(project: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "graph.json"
    run = invoke("plan", str(project), "-s", "example", "--json", str(out))
    assert run.exit_code == 0, run.stderr
    graph = json.loads(out.read_text())
    return {r["type"]: r for r in graph["resources"]} | {"outputs": graph["outputs"]}


def _copy(tmp_path: Path, **replace: str) -> Path:
    project = tmp_path / "ci-access"
    shutil.copytree(CI_ACCESS, project, ignore=shutil.ignore_patterns("__pycache__"))
    stack = project / "Pulumi.example.yaml"
    text = stack.read_text()
    for old, new in replace.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    stack.write_text(text)
    return project


def test_the_program_builds_the_provider_a_pull_request_role_and_nothing_more(tmp_path: Path) -> None:
    found = _plan(CI_ACCESS, tmp_path)
    assert sorted(k for k in found if k != "outputs") == [
        "alicloud:ims/oidcProvider:OidcProvider",
        "alicloud:ram/policy:Policy",
        "alicloud:ram/role:Role",
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "aws:budgets/budget:Budget",
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
        "gpufleet:cost:TencentBudget",
        "pulumi:pulumi:Stack",
        "tencentcloud:Billing/budget:Budget",
        "tencentcloud:Cam/policy:Policy",
        "tencentcloud:Cam/role:Role",
        "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment",
        "tencentcloud:Cam/roleSso:RoleSso",
    ]
    provider = found["aws:iam/openIdConnectProvider:OpenIdConnectProvider"]["inputs"]
    assert provider["url"] == "https://token.actions.githubusercontent.com"
    assert provider["clientIdLists"] == ["sts.amazonaws.com"]
    role = found[ROLE]
    assert role["inputs"]["maxSessionDuration"] == 3600
    assert json.loads(role["inputs"]["assumeRolePolicy"])["Statement"] == [
        {
            "Sid": "PullRequestsOfOneRepository",
            "Effect": "Allow",
            "Principal": {"Federated": PROVIDER_ARN},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {
                "StringEquals": {
                    "token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
                    "token.actions.githubusercontent.com:sub": "repo:acme/gpufleet:pull_request",
                }
            },
        }
    ]
    # the role waits for the provider it names
    provider_urn = found["aws:iam/openIdConnectProvider:OpenIdConnectProvider"]["urn"]
    assert provider_urn in role["dependencies"]
    reads = json.loads(found["aws:iam/rolePolicy:RolePolicy"]["inputs"]["policy"])["Statement"]
    regions = {"StringEquals": {"aws:RequestedRegion": ["us-east-1", "us-west-2"]}}
    assert reads == [
        {
            "Sid": "PreviewLookups",
            "Effect": "Allow",
            "Action": [
                "ec2:DescribeAvailabilityZones",
                "ec2:DescribeImages",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeSubnets",
                "ec2:DescribeVpcEndpointServices",
                "kms:ListAliases",
            ],
            "Resource": "*",
            "Condition": regions,
        },
        {
            "Sid": "PreviewKeyLookups",
            "Effect": "Allow",
            "Action": "kms:DescribeKey",
            "Resource": f"arn:aws:kms:*:{ACCOUNT}:key/*",
            "Condition": regions,
        },
    ]
    # read-only: no action that writes, and none that reads data (s3:GetObject, secrets) either
    actions = [a for s in reads for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])]
    assert all(a.split(":")[1].startswith(("Describe", "List")) for a in actions)
    assert found["outputs"]["subject"] == "repo:acme/gpufleet:pull_request"


def test_our_own_rules_pass_on_it() -> None:
    run = invoke("check", str(CI_ACCESS), "-s", "example", "--format", "json", "--no-checkov")
    assert run.exit_code == 0, run.stdout + run.stderr
    (stack,) = json.loads(run.stdout)["stacks"]
    violations = stack["violations"]
    assert [v for v in violations if v["enforcement"] == "mandatory"] == []
    # what is left is advisory: each account's trail lives in its account baseline stack
    assert [(v["rule_id"], v["enforcement"]) for v in violations] == [("GF-AUD-001", "advisory")] * 3


@pytest.mark.parametrize(
    "subject",
    ["repo:*:pull_request", "repo:acme*:pull_request", "*"],
)
def test_gf_iam_004_fires_when_the_subject_is_widened(subject: str) -> None:
    document = ci_access.trust_policy(PROVIDER_ARN, "acme/gpufleet")
    condition = document["Statement"][0]["Condition"]
    condition.pop("StringEquals")
    condition["StringLike"] = {"token.actions.githubusercontent.com:sub": subject}
    found = run_resource(TRUST_POLICY, ROLE, {"assumeRolePolicy": json.dumps(document)}, "pr-preview")
    assert len(found) == 1
    assert found[0].startswith(
        "IAM role 'pr-preview' trust policy statement 'PullRequestsOfOneRepository' trusts GitHub "
        "Actions tokens without pinning the repository (StringLike "
        f"token.actions.githubusercontent.com:sub '{subject}' names no repository owner)"
    )


def test_gf_iam_004_passes_the_shipped_trust_policy() -> None:
    document = ci_access.trust_policy(PROVIDER_ARN, "acme/gpufleet")
    assert run_resource(TRUST_POLICY, ROLE, {"assumeRolePolicy": json.dumps(document)}, "pr-preview") == []


def test_an_existing_provider_is_named_not_created(tmp_path: Path) -> None:
    project = _copy(
        tmp_path,
        **{
            "  # gpufleet-ci-access:providerArn: arn:aws:iam::123456789012:oidc-provider/": (
                "  gpufleet-ci-access:providerArn: arn:aws:iam::210987654321:oidc-provider/"
            )
        },
    )
    found = _plan(project, tmp_path)
    assert "aws:iam/openIdConnectProvider:OpenIdConnectProvider" not in found
    trust = json.loads(found[ROLE]["inputs"]["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {
        "Federated": "arn:aws:iam::210987654321:oidc-provider/token.actions.githubusercontent.com"
    }


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "repository: acme/gpufleet",
            "repository: 'acme/*'",
            "gpufleet-ci-access:repository must be a GitHub repository as owner/name (acme/gpufleet), got "
            "'acme/*'",
        ),
        (
            "regions: [us-east-1, us-west-2]",
            "regions: []",
            "gpufleet-ci-access:regions must be a non-empty list of AWS regions (us-east-1), got []",
        ),
        (
            "cost-center: cc-042, env: shared}",
            "env: shared}",
            "gpufleet-ci-access:tags must carry the cost tags; missing: cost-center",
        ),
        (
            "alert_email: ml-platform@example.com",
            "alert_email: nobody",
            "gpufleet-ci-access:budget must be {monthly: <USD, above 0>, alert_email: <address>}",
        ),
        (
            "  # gpufleet-ci-access:providerArn: arn:aws:iam::123456789012:oidc-provider/",
            "  gpufleet-ci-access:providerArn: arn:aws:iam::123456789012:oidc-provider/x#",
            "gpufleet-ci-access:providerArn must be the ARN of the account's GitHub OIDC provider",
        ),
    ],
)
def test_bad_config_exits_2_naming_the_key(tmp_path: Path, old: str, new: str, message: str) -> None:
    project = _copy(tmp_path, **{old: new})
    run = invoke("plan", str(project), "-s", "example")
    assert run.exit_code == 2
    assert message in " ".join(run.stderr.split())


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("acme/gpufleet", True),
        ("a-b/c.d_e-f", True),
        ("acme/*", False),
        ("acme", False),
        ("-acme/x", False),
        ("ac--me/x", False),
        ("acme/x:pull_request", False),
        ("acme/..", False),
        (None, False),
    ],
)
def test_repository_names(value: object, ok: bool) -> None:
    if ok:
        assert ci_access.check_repository(value) == value
    else:
        with pytest.raises(ci_access.AccessConfigError):
            ci_access.check_repository(value)


ALI_UID = "1234567890123456"
TENCENT_UIN = "100000000001"


def test_the_alibaba_ram_role_trusts_github_pull_requests_of_the_repository_only(tmp_path: Path) -> None:
    found = _plan(CI_ACCESS, tmp_path)
    provider = found["alicloud:ims/oidcProvider:OidcProvider"]["inputs"]
    assert provider["issuerUrl"] == "https://token.actions.githubusercontent.com"
    assert provider["clientIds"] == ["sts.aliyuncs.com"]
    assert provider["oidcProviderName"] == "github-actions"
    assert provider["fingerprints"] == [
        "6938fd4d98bab03faadb97b34396831e3780aea1",
        "1c58a3a8518e8759bf075b76b750d4f2df264fcd",
    ]
    role = found["alicloud:ram/role:Role"]
    assert role["inputs"]["maxSessionDuration"] == 3600
    assert json.loads(role["inputs"]["assumeRolePolicyDocument"]) == {
        "Version": "1",
        "Statement": [
            {
                "Action": "sts:AssumeRole",
                "Effect": "Allow",
                "Principal": {"Federated": [f"acs:ram::{ALI_UID}:oidc-provider/github-actions"]},
                "Condition": {
                    "StringEquals": {
                        "oidc:iss": "https://token.actions.githubusercontent.com",
                        "oidc:aud": "sts.aliyuncs.com",
                        "oidc:sub": "repo:acme/gpufleet:pull_request",
                    }
                },
            }
        ],
    }
    assert found["alicloud:ims/oidcProvider:OidcProvider"]["urn"] in role["dependencies"]
    reads = json.loads(found["alicloud:ram/policy:Policy"]["inputs"]["policyDocument"])
    assert reads == {
        "Version": "1",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": [
                    "ecs:DescribeAvailableResource",
                    "ecs:DescribeImages",
                    "ecs:DescribeInstanceTypes",
                    "ecs:DescribeZones",
                    "vpc:DescribeVSwitches",
                ],
                "Resource": "*",
            }
        ],
    }
    attachment = found["alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"]["inputs"]
    assert attachment == {
        "roleName": "gpufleet-pr-preview",
        "policyName": "gpufleet-pr-preview-reads",
        "policyType": "Custom",
    }
    outputs = found["outputs"]
    assert outputs["alicloudOidcProviderArn"] == f"acs:ram::{ALI_UID}:oidc-provider/github-actions"


def test_the_tencent_cam_role_trusts_github_pull_requests_of_the_repository_only(tmp_path: Path) -> None:
    found = _plan(CI_ACCESS, tmp_path)
    provider = found["tencentcloud:Cam/roleSso:RoleSso"]["inputs"]
    assert provider["identityUrl"] == "https://token.actions.githubusercontent.com"
    assert provider["clientIds"] == ["sts.tencentcloudapi.com"]
    assert provider["name"] == "github-actions"
    role = found["tencentcloud:Cam/role:Role"]
    assert role["inputs"]["sessionDuration"] == 3600
    assert role["inputs"]["consoleLogin"] is False
    assert json.loads(role["inputs"]["document"]) == {
        "version": "2.0",
        "statement": [
            {
                "action": "name/sts:AssumeRoleWithWebIdentity",
                "effect": "allow",
                "principal": {"federated": [f"qcs::cam::uin/{TENCENT_UIN}:oidc-provider/github-actions"]},
                "condition": {
                    "string_equal": {
                        "oidc:iss": "https://token.actions.githubusercontent.com",
                        "oidc:aud": "sts.tencentcloudapi.com",
                        "oidc:sub": "repo:acme/gpufleet:pull_request",
                    }
                },
            }
        ],
    }
    reads = json.loads(found["tencentcloud:Cam/policy:Policy"]["inputs"]["document"])
    (statement,) = reads["statement"]
    assert statement["resource"] == ["*"] and statement["effect"] == "allow"
    assert all(a.split(":")[1].startswith(("Describe", "GetUserAppId")) for a in statement["action"])
    assert (
        found["outputs"]["tencentcloudRoleArn"] == f"qcs::cam::uin/{TENCENT_UIN}:roleName/gpufleet-pr-preview"
    )
    assert found["outputs"]["tencentcloudProviderId"] == "github-actions"


@pytest.mark.parametrize("subject", ["repo:*:pull_request", "*"])
def test_gf_iam_004_judges_the_ram_and_cam_trusts(subject: str) -> None:
    ali = ci_alicloud.trust_policy(ci_alicloud.provider_arn(ALI_UID), "repo:acme/gpufleet:pull_request")
    tc = ci_tencentcloud.trust_policy(
        ci_tencentcloud.provider_arn(TENCENT_UIN), "repo:acme/gpufleet:pull_request"
    )
    ali_role, tc_role = "alicloud:ram/role:Role", "tencentcloud:Cam/role:Role"
    assert run_resource(TRUST_POLICY, ali_role, {"assumeRolePolicyDocument": json.dumps(ali)}, "r") == []
    assert run_resource(TRUST_POLICY, tc_role, {"document": json.dumps(tc)}, "r") == []
    ali["Statement"][0]["Condition"] = {"StringLike": {**ali["Statement"][0]["Condition"]["StringEquals"]}}
    ali["Statement"][0]["Condition"]["StringLike"]["oidc:sub"] = subject
    tc["statement"][0]["condition"]["string_equal"]["oidc:sub"] = subject
    (ali_found,) = run_resource(TRUST_POLICY, ali_role, {"assumeRolePolicyDocument": json.dumps(ali)}, "r")
    (tc_found,) = run_resource(TRUST_POLICY, tc_role, {"document": json.dumps(tc)}, "r")
    assert "trusts GitHub Actions tokens without pinning the repository" in ali_found
    assert "trusts GitHub Actions tokens without pinning the repository" in tc_found


def test_aws_only_makes_no_alibaba_or_tencent_resources(tmp_path: Path) -> None:
    project = _copy(tmp_path, **{"clouds: [aws, alicloud, tencentcloud]": "clouds: [aws]"})
    found = _plan(project, tmp_path)
    assert [k for k in found if k.startswith(("alicloud:", "tencentcloud:"))] == []
    assert set(found["outputs"]) == {"roleArn", "subject"}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "clouds: [aws, alicloud, tencentcloud]",
            "clouds: [aws, azure]",
            "gpufleet-ci-access:clouds must be a non-empty list of aws, alicloud, tencentcloud",
        ),
        (
            "alicloudFingerprints: [6938fd4d98bab03faadb97b34396831e3780aea1,",
            "alicloudFingerprints: [6938fd4d98,",
            "gpufleet-ci-access:alicloudFingerprints must be 1 to 5 SHA-1 fingerprints (40 hex digits)",
        ),
        (
            "tencentcloudIdentityKey: eyJ",
            "tencentcloudIdentityKey: x!eyJ",
            "gpufleet-ci-access:tencentcloudIdentityKey must be the base64 of GitHub's JWKS",
        ),
    ],
)
def test_bad_cloud_config_exits_2_naming_the_key(tmp_path: Path, old: str, new: str, message: str) -> None:
    project = _copy(tmp_path, **{old: new})
    run = invoke("plan", str(project), "-s", "example")
    assert run.exit_code == 2
    assert message in " ".join(run.stderr.split())


def test_a_self_managed_state_bucket_is_read_and_locked_nothing_more(tmp_path: Path) -> None:
    key = "arn:aws:kms:us-east-1:123456789012:key/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"
    project = _copy(
        tmp_path,
        **{
            "  # gpufleet-ci-access:stateBucket:": "  gpufleet-ci-access:stateBucket:",
            "  # gpufleet-ci-access:secretsKeyArn:": "  gpufleet-ci-access:secretsKeyArn:",
        },
    )
    out = tmp_path / "graph.json"
    assert invoke("plan", str(project), "-s", "example", "--json", str(out)).exit_code == 0
    policies = [
        r for r in json.loads(out.read_text())["resources"] if r["type"] == "aws:iam/rolePolicy:RolePolicy"
    ]
    (state,) = [r for r in policies if r["name"] == "pr-preview-state"]
    assert json.loads(state["inputs"]["policy"])["Statement"] == [
        {
            "Sid": "StateList",
            "Effect": "Allow",
            "Action": "s3:ListBucket",
            "Resource": "arn:aws:s3:::acme-pulumi-state",
        },
        {
            "Sid": "StateRead",
            "Effect": "Allow",
            "Action": "s3:GetObject",
            "Resource": "arn:aws:s3:::acme-pulumi-state/.pulumi/*",
        },
        {
            "Sid": "StateLock",
            "Effect": "Allow",
            "Action": ["s3:DeleteObject", "s3:PutObject"],
            "Resource": "arn:aws:s3:::acme-pulumi-state/.pulumi/locks/*",
        },
        {"Sid": "StackSecrets", "Effect": "Allow", "Action": "kms:Decrypt", "Resource": key},
    ]
    # without the settings, the role reads no bucket at all
    assert [r["name"] for r in _plan_policies(tmp_path)] == ["pr-preview-reads"]


def _plan_policies(tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "plain.json"
    assert invoke("plan", str(CI_ACCESS), "-s", "example", "--json", str(out)).exit_code == 0
    return [
        r for r in json.loads(out.read_text())["resources"] if r["type"] == "aws:iam/rolePolicy:RolePolicy"
    ]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "  # gpufleet-ci-access:stateBucket: acme-pulumi-state",
            "  gpufleet-ci-access:stateBucket: s3://Acme",
            "gpufleet-ci-access:stateBucket must be the name of the S3 bucket of `pulumi login s3://<bucket>`",
        ),
        (
            "  # gpufleet-ci-access:secretsKeyArn: arn:aws:kms:",
            "  gpufleet-ci-access:secretsKeyArn: alias/x-arn:aws:kms:",
            "gpufleet-ci-access:secretsKeyArn must be a KMS key ARN",
        ),
    ],
)
def test_bad_state_settings_exit_2_naming_the_key(tmp_path: Path, old: str, new: str, message: str) -> None:
    project = _copy(tmp_path, **{old: new})
    run = invoke("plan", str(project), "-s", "example")
    assert run.exit_code == 2
    assert message in " ".join(run.stderr.split())
