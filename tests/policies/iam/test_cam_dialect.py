"""Tencent CAM spellings found on raw-SDK programs: `name/`-prefixed actions and the anyone principal."""

from __future__ import annotations

import json

import pytest

from gpufleet.policies.documents import action_matches
from gpufleet.policies.iam import no_unscoped_writes, trust_specific_principals

from .helpers import check

TC_POLICY = "tencentcloud:Cam/policy:Policy"
TC_ROLE = "tencentcloud:Cam/role:Role"


def test_name_prefix_is_the_same_action() -> None:
    assert action_matches("name/cvm:TerminateInstances", "cvm:TerminateInstances")
    assert action_matches("name/cos:Put*", "cos:PutObject")
    assert action_matches("cvm:TerminateInstances", "name/cvm:TerminateInstances")
    assert not action_matches("name/cvm:RunInstances", "cvm:TerminateInstances")


def test_name_prefixed_write_on_any_resource_fails() -> None:
    def document(resource: str) -> str:
        statement = {"effect": "allow", "action": ["name/cvm:TerminateInstances"], "resource": [resource]}
        return json.dumps({"version": "2.0", "statement": [statement]})

    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": document("*")}, "ops") == [
        "CAM policy 'ops' document statement 1 allows cvm:TerminateInstances on Resource '*'; these actions "
        "accept resource-level scoping: name the resources"
    ]
    # Every instance of the region is every resource the action acts on.
    every = document("qcs::cvm:ap-guangzhou::instance/*")
    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": every}, "ops") == [
        "CAM policy 'ops' document statement 1 allows cvm:TerminateInstances on Resource "
        "'qcs::cvm:ap-guangzhou::instance/*'; these actions accept resource-level scoping: name the resources"
    ]
    scoped = document("qcs::cvm:ap-guangzhou::instance/ins-1a2b3c4d")
    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": scoped}, "ops") == []


def test_trust_in_cam_anyone_fails() -> None:
    for anyone in ("qcs::cam::anyone:anyone", "qcs::cam::anyone"):
        document = {
            "version": "2.0",
            "statement": [
                {"action": ["name/sts:AssumeRole"], "effect": "allow", "principal": {"qcs": [anyone]}}
            ],
        }
        assert check(
            trust_specific_principals.POLICY, TC_ROLE, {"document": json.dumps(document)}, "gpu"
        ) == [
            f"CAM role 'gpu' trust policy statement 1 trusts any principal (qcs: {anyone!r}) without a "
            "restricting condition; name specific accounts, roles or services"
        ]


def test_trust_in_a_named_account_passes() -> None:
    document = {
        "version": "2.0",
        "statement": [
            {
                "action": ["name/sts:AssumeRole"],
                "effect": "allow",
                "principal": {"qcs": ["qcs::cam::uin/100000000001:root"]},
            }
        ],
    }
    assert check(trust_specific_principals.POLICY, TC_ROLE, {"document": json.dumps(document)}, "gpu") == []


CAM_GITHUB = "qcs::cam::uin/100000000001:oidc-provider/GitHubActions"
CAM_ISS = {
    "oidc:iss": ["https://token.actions.githubusercontent.com"],
    "oidc:aud": ["sts.tencentcloudapi.com"],
}
CAM_TAIL = (
    "any GitHub repository may assume the role: add a string_equal or string_like condition on oidc:sub "
    "naming the owner and repository (repo:OWNER/REPO:...)"
)


def _cam_oidc_trust(condition: dict[str, object] | None, provider: str = CAM_GITHUB) -> dict[str, str]:
    statement: dict[str, object] = {
        "action": "name/sts:AssumeRoleWithWebIdentity",
        "effect": "allow",
        "principal": {"federated": [provider]},
    }
    if condition is not None:
        statement["condition"] = condition
    return {"document": json.dumps({"version": "2.0", "statement": [statement]})}


@pytest.mark.parametrize(
    "condition",
    [
        {"string_equal": {**CAM_ISS, "oidc:sub": ["repo:acme/gpufleet:environment:production"]}},
        {"string_equal": CAM_ISS, "string_like": {"oidc:sub": ["repo:acme/gpufleet:*"]}},
        {
            "string_equal": {
                **CAM_ISS,
                "oidc:sub": ["repository_owner_id:42:repository_id:900:environment:prod"],
            }
        },
        # another issuer's subject is not held to GitHub's form, whatever the provider is called
        {"string_equal": {"oidc:iss": ["https://acme.okta.com"], "oidc:sub": ["00u1abcd"]}},
    ],
)
def test_cam_github_oidc_trust_pinned_to_an_owner_passes(condition: dict[str, object]) -> None:
    assert check(trust_specific_principals.POLICY, TC_ROLE, _cam_oidc_trust(condition), "ci") == []


@pytest.mark.parametrize(
    ("condition", "provider", "why"),
    [
        ({"string_equal": CAM_ISS}, CAM_GITHUB, ""),
        (
            {"string_equal": {**CAM_ISS, "oidc:sub": ["repo:*"]}},
            CAM_GITHUB,
            " (string_equal oidc:sub 'repo:*' names no repository owner)",
        ),
        (
            {"string_equal": CAM_ISS, "string_like": {"oidc:sub": ["repo:ac*"]}},
            "qcs::cam::uin/100000000001:oidc-provider/ci",
            " (string_like oidc:sub 'repo:ac*' names no repository owner)",
        ),
        (
            {"string_equal": CAM_ISS, "string_not_equal": {"oidc:sub": ["repo:evil/x:*"]}},
            CAM_GITHUB,
            " (string_not_equal oidc:sub is not a positive match)",
        ),
        # no issuer required: the provider's name says GitHub
        ({"string_equal": {"oidc:aud": ["sts.tencentcloudapi.com"]}}, CAM_GITHUB, ""),
        (None, CAM_GITHUB, ""),
    ],
)
def test_cam_github_oidc_trust_without_an_owner_fails(
    condition: dict[str, object] | None, provider: str, why: str
) -> None:
    found = check(trust_specific_principals.POLICY, TC_ROLE, _cam_oidc_trust(condition, provider), "ci")
    assert found == [
        f"CAM role 'ci' trust policy statement 1 trusts GitHub Actions tokens without pinning the "
        f"repository{why}; {CAM_TAIL}"
    ]


def test_ram_github_provider_named_without_an_issuer_fails() -> None:
    statement = {
        "Effect": "Allow",
        "Action": "sts:AssumeRole",
        "Principal": {"Federated": ["acs:ram::1234567890123456:oidc-provider/GitHub"]},
        "Condition": {"StringEquals": {"oidc:aud": "sts.aliyuncs.com"}},
    }
    document = json.dumps({"Version": "1", "Statement": [statement]})
    found = check(trust_specific_principals.POLICY, "alicloud:ram/role:Role", {"document": document}, "ci")
    assert found == [
        "RAM role 'ci' trust policy statement 1 trusts GitHub Actions tokens without pinning the repository; "
        "any GitHub repository may assume the role: add a StringEquals or StringLike condition on oidc:sub "
        "naming the owner and repository (repo:OWNER/REPO:...)"
    ]
    # An AWS provider is named by its URL: a GitHub Enterprise Server on its own domain keeps its own keys.
    ghes = {
        "Effect": "Allow",
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/github.acme.example"},
        "Condition": {"StringEquals": {"github.acme.example/_services/token:sub": "repo:acme/x:ref:main"}},
    }
    aws_document = json.dumps({"Version": "2012-10-17", "Statement": [ghes]})
    assert (
        check(trust_specific_principals.POLICY, "aws:iam/role:Role", {"assumeRolePolicy": aws_document}) == []
    )
