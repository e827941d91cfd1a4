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
        "aws:budgets/budget:Budget",
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
        "pulumi:pulumi:Stack",
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
    # what is left is advisory: the account's trail lives in the account baseline stack
    assert [(v["rule_id"], v["enforcement"]) for v in violations] == [("GF-AUD-001", "advisory")]


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
