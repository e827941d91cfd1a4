from __future__ import annotations

import json

import pytest

from gpufleet.policies.iam.trust_specific_principals import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check

AWS_ROLE = "aws:iam/role:Role"
ALI_ROLE = "alicloud:ram/role:Role"
TC_ROLE = "tencentcloud:Cam/role:Role"
TAIL = "without a restricting condition; name specific accounts, roles or services"


def _trust(principal: object, condition: object = None) -> str:
    statement: dict[str, object] = {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}
    if condition:
        statement["Condition"] = condition
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-004"
    assert RULE.checkov == ("CKV_AWS_60",)


@pytest.mark.parametrize(
    "principal",
    [
        {"Service": "ec2.amazonaws.com"},
        {"AWS": "arn:aws:iam::123456789012:role/ci"},
        {"Federated": "arn:aws:iam::1:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"},
    ],
)
def test_aws_specific_principals(principal: object) -> None:
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": _trust(principal)}) == []


@pytest.mark.parametrize(
    ("principal", "shown"),
    [
        ("*", "'*'"),
        ({"AWS": "*"}, "AWS: '*'"),
        ({"AWS": ["arn:aws:iam::*:root"]}, "AWS: 'arn:aws:iam::*:root'"),
    ],
)
def test_aws_wildcards(principal: object, shown: str) -> None:
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": _trust(principal)}, "r") == [
        f"IAM role 'r' trust policy statement 1 trusts any principal ({shown}) {TAIL}"
    ]


def test_aws_wildcard_with_condition_passes_and_proxy() -> None:
    trust = _trust({"AWS": "*"}, {"StringEquals": {"aws:PrincipalOrgID": "o-123"}})
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": trust}, proxy=True) == []
    trust = _trust("*", {"StringEquals": {"sts:ExternalId": "x"}})
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": json.loads(trust)}, "r", proxy=True) == [
        "IAM role 'r' trust policy statement 1 trusts any principal ('*') without a restricting condition "
        "(StringEquals sts:ExternalId is not a secret and pins no caller); name specific accounts, roles or "
        "services"
    ]
    trust = _trust("*", {"Bool": {"aws:SecureTransport": "true"}})
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": trust}, "r", proxy=True) == [
        "IAM role 'r' trust policy statement 1 trusts any principal ('*') without a restricting condition "
        "(Bool aws:SecureTransport names no account or organisation); name specific accounts, roles or "
        "services"
    ]


ORG = "o-a1b2c3d4e5"
ACCOUNT = "123456789012"


@pytest.mark.parametrize(
    ("condition", "why"),
    [
        (
            {"StringEquals": {"sts:ExternalId": "shared-secret-1"}},
            "StringEquals sts:ExternalId is not a secret and pins no caller",
        ),
        (
            {"StringLike": {"aws:PrincipalOrgID": "*"}},
            "StringLike aws:PrincipalOrgID '*' names no one account or organisation",
        ),
        (
            {"StringLike": {"aws:PrincipalOrgID": "o-*"}},
            "StringLike aws:PrincipalOrgID 'o-*' names no one account or organisation",
        ),
        ({"Null": {"aws:PrincipalOrgID": "false"}}, "Null aws:PrincipalOrgID is not a positive match"),
        (
            {"StringNotEquals": {"aws:PrincipalOrgID": ORG}},
            "StringNotEquals aws:PrincipalOrgID is not a positive match",
        ),
        (
            {"StringEqualsIfExists": {"aws:PrincipalOrgID": ORG}},
            "StringEqualsIfExists aws:PrincipalOrgID also passes when the key is absent",
        ),
        (
            {"ForAllValues:StringEquals": {"aws:PrincipalOrgPaths": [f"{ORG}/r-ab12/*"]}},
            "ForAllValues:StringEquals aws:PrincipalOrgPaths also passes when the key is absent",
        ),
        (
            {"ForAnyValue:StringLike": {"aws:PrincipalOrgPaths": []}},
            "ForAnyValue:StringLike aws:PrincipalOrgPaths lists no value",
        ),
        (
            {"ForAnyValue:StringLike": {"aws:PrincipalOrgPaths": ["*"]}},
            "ForAnyValue:StringLike aws:PrincipalOrgPaths '*' names no one account or organisation",
        ),
        (
            {"ArnLike": {"aws:SourceArn": "*"}},
            "ArnLike aws:SourceArn '*' names no one account or organisation",
        ),
        (
            {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::*:role/deployer"}},
            "ArnLike aws:PrincipalArn 'arn:aws:iam::*:role/deployer' names no one account or organisation",
        ),
        (
            {"StringEquals": {"aws:PrincipalAccount": [ACCOUNT, "*"]}},
            "StringEquals aws:PrincipalAccount '*' names no one account or organisation",
        ),
    ],
)
def test_conditions_that_restrict_nothing_fail(condition: object, why: str) -> None:
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": _trust({"AWS": "*"}, condition)}, "r") == [
        f"IAM role 'r' trust policy statement 1 trusts any principal (AWS: '*') without a restricting "
        f"condition ({why}); name specific accounts, roles or services"
    ]


@pytest.mark.parametrize(
    "condition",
    [
        {"StringEquals": {"aws:PrincipalOrgID": ORG}},
        {"StringEquals": {"aws:PrincipalOrgID": UNKNOWN_STRING_VALUE}},  # a reference to the organisation
        {"StringLike": {"aws:PrincipalOrgPaths": f"{ORG}/r-ab12/ou-ab12-11111111/*"}},
        {"ForAnyValue:StringLike": {"aws:PrincipalOrgPaths": [f"{ORG}/r-ab12/*"]}},
        {"StringEquals": {"aws:PrincipalAccount": [ACCOUNT, "210987654321"]}},
        {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
        {"StringEquals": {"aws:SourceOrgID": ORG}},
        {"ArnLike": {"aws:PrincipalArn": f"arn:aws:iam::{ACCOUNT}:role/deployer-*"}},
        {"ArnEquals": {"aws:SourceArn": f"arn:aws:sns:us-west-2:{ACCOUNT}:alerts"}},
        {"ArnLike": {"aws:SourceArn": "arn:aws:s3:::acme-training-data"}},
        # ExternalId beside a pin is fine: the pin restricts.
        {"StringEquals": {"sts:ExternalId": "x", "aws:PrincipalAccount": ACCOUNT}},
    ],
)
def test_conditions_that_pin_the_caller_pass(condition: object) -> None:
    trust = _trust({"AWS": "*"}, condition)
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": trust}) == []


GITHUB = "arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com"
GITHUB_TAIL = (
    "any GitHub repository may assume the role: add a StringEquals or StringLike condition on "
    "token.actions.githubusercontent.com:sub naming the owner and repository (repo:OWNER/REPO:...)"
)


@pytest.mark.parametrize(
    "condition",
    [
        {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/training:*"}},
        {
            "StringEquals": {
                "token.actions.githubusercontent.com:sub": "repo:acme/training:ref:refs/heads/main"
            }
        },
        # ci-access: this repository's pull requests only
        {"StringEquals": {"token.actions.githubusercontent.com:sub": "repo:acme/training:pull_request"}},
        {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/*"}},
        {"StringEquals": {"token.actions.githubusercontent.com/acme-corp:sub": "repo:acme/x:pull_request"}},
    ],
)
def test_github_oidc_pinned_to_a_repository_passes(condition: dict[str, object]) -> None:
    aud = {"StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"}}
    trust = _trust({"Federated": GITHUB}, {**aud, **condition})
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": trust}) == []


@pytest.mark.parametrize(
    ("principal", "condition", "why"),
    [
        ({"Federated": GITHUB}, None, ""),
        (
            {"Federated": GITHUB},
            {"StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"}},
            "",
        ),
        (
            {"Federated": UNKNOWN_STRING_VALUE},
            {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:*"}},
            " (StringLike token.actions.githubusercontent.com:sub 'repo:*' names no repository owner)",
        ),
        (
            {"Federated": GITHUB},
            {"StringLike": {"token.actions.githubusercontent.com:sub": "*"}},
            " (StringLike token.actions.githubusercontent.com:sub '*' names no repository owner)",
        ),
        (
            # every owner whose name starts "ac"
            {"Federated": GITHUB},
            {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:ac*"}},
            " (StringLike token.actions.githubusercontent.com:sub 'repo:ac*' names no repository owner)",
        ),
        (
            {"Federated": GITHUB},
            {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme?/training:*"}},
            " (StringLike token.actions.githubusercontent.com:sub 'repo:acme?/training:*' names no "
            "repository owner)",
        ),
        (
            {"Federated": GITHUB},
            {"StringLike": {"token.actions.githubusercontent.com:sub": ["repo:acme/x:*", "repo:*"]}},
            " (StringLike token.actions.githubusercontent.com:sub 'repo:*' names no repository owner)",
        ),
        (
            {"Federated": GITHUB},
            {"StringNotLike": {"token.actions.githubusercontent.com:sub": "repo:evil/*"}},
            " (StringNotLike token.actions.githubusercontent.com:sub is not a positive match)",
        ),
        (
            {"Federated": GITHUB},
            {"StringLikeIfExists": {"token.actions.githubusercontent.com:sub": "repo:acme/x:*"}},
            " (StringLikeIfExists token.actions.githubusercontent.com:sub also passes when the key is "
            "absent)",
        ),
        (
            # an enterprise issuer's key names GitHub too, and must pin the owner the same way
            {"Federated": "arn:aws:iam::123456789012:oidc-provider/ghe"},
            {"StringLike": {"token.actions.githubusercontent.com/acme-corp:sub": "repo:*"}},
            " (StringLike token.actions.githubusercontent.com/acme-corp:sub 'repo:*' names no repository "
            "owner)",
        ),
    ],
)
def test_github_oidc_without_a_repository_fails(principal: object, condition: object, why: str) -> None:
    document = json.loads(_trust(principal, condition))
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": document}, "ci") == [
        f"IAM role 'ci' trust policy statement 1 trusts GitHub Actions tokens without pinning the "
        f"repository{why}; {GITHUB_TAIL}"
    ]


def test_tencent_anyone_pinned_by_uin_passes_and_unpinned_fails() -> None:
    def document(condition: object) -> str:
        statement = {
            "effect": "allow",
            "action": "name/sts:AssumeRole",
            "principal": {"qcs": ["qcs::cam::anyone:anyone"]},
            "condition": condition,
        }
        return json.dumps({"version": "2.0", "statement": [statement]})

    assert check(POLICY, TC_ROLE, {"document": document({"string_equal": {"qcs:uin": "100037718101"}})}) == []
    assert check(POLICY, TC_ROLE, {"document": document({"string_like": {"qcs:uin": "*"}})}, "r") == [
        "CAM role 'r' trust policy statement 1 trusts any principal (qcs: 'qcs::cam::anyone:anyone') "
        "without a restricting condition (string_like qcs:uin '*' names no one account or organisation); "
        "name specific accounts, roles or services"
    ]


def test_not_principal() -> None:
    document = {
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "NotPrincipal": {"AWS": "arn:x"}}]
    }
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": document}, "r") == [
        "IAM role 'r' trust policy statement 1 uses NotPrincipal, which trusts everyone not listed; name the "
        "trusted principals"
    ]


def test_unknown_principal_reference_is_specific() -> None:
    document = {
        "Statement": [
            {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": UNKNOWN_STRING_VALUE}}
        ]
    }
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": document}) == []
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": UNKNOWN_STRING_VALUE}, proxy=True) == [
        "could not be judged at preview: the string value at .assumeRolePolicy can't be known during preview"
    ]


def test_alicloud_role() -> None:
    ok = json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": "sts:AssumeRole",
                    "Principal": {"Service": ["ecs.aliyuncs.com"]},
                }
            ],
        }
    )
    assert check(POLICY, ALI_ROLE, {"assumeRolePolicyDocument": ok}) == []
    bad = ok.replace('{"Service": ["ecs.aliyuncs.com"]}', '{"RAM": ["*"]}')
    assert check(POLICY, ALI_ROLE, {"document": bad}, "r") == [
        f"RAM role 'r' trust policy statement 1 trusts any principal (RAM: '*') {TAIL}"
    ]


def test_tencent_role() -> None:
    ok = json.dumps(
        {
            "version": "2.0",
            "statement": [
                {
                    "effect": "allow",
                    "action": "name/sts:AssumeRole",
                    "principal": {"service": ["cvm.qcloud.com"]},
                }
            ],
        }
    )
    assert check(POLICY, TC_ROLE, {"document": ok}) == []
    bad = ok.replace('{"service": ["cvm.qcloud.com"]}', '{"qcs": ["*"]}')
    assert check(POLICY, TC_ROLE, {"document": bad}, "r") == [
        f"CAM role 'r' trust policy statement 1 trusts any principal (qcs: '*') {TAIL}"
    ]


def test_alicloud_deprecated_principal_lists_are_judged() -> None:
    token = "alicloud:ram/role:Role"
    assert check(POLICY, token, {"services": ["ecs.aliyuncs.com"], "ramUsers": ["acs:ram::1234:root"]}) == []
    assert check(POLICY, token, {"ramUsers": ["acs:ram::*:root"]}, "legacy", proxy=True) == [
        "RAM role 'legacy' trust policy statement 1 trusts any principal (RAM: 'acs:ram::*:root') without a "
        "restricting condition; name specific accounts, roles or services"
    ]


ALI_GITHUB = "acs:ram::1234567890123456:oidc-provider/github"


def _ali_oidc_trust(condition: dict[str, object]) -> str:
    statement = {
        "Effect": "Allow",
        "Action": "sts:AssumeRole",
        "Principal": {"Federated": [ALI_GITHUB]},
        "Condition": condition,
    }
    return json.dumps({"Version": "1", "Statement": [statement]})


ALI_ISS = {"oidc:aud": ["sts.aliyuncs.com"], "oidc:iss": "token.actions.githubusercontent.com"}


@pytest.mark.parametrize(
    "condition",
    [
        {"StringEquals": {**ALI_ISS, "oidc:sub": "repo:acme/gpufleet:pull_request"}},
        {"StringEquals": ALI_ISS, "StringLike": {"oidc:sub": "repo:acme/gpufleet:*"}},
        # another identity provider's subject is not held to GitHub's form
        {"StringEquals": {"oidc:iss": "https://acme.okta.com", "oidc:sub": "00u1abcd"}},
    ],
)
def test_alibaba_oidc_trust_pinned_to_a_repository_passes(condition: dict[str, object]) -> None:
    assert check(POLICY, ALI_ROLE, {"assumeRolePolicyDocument": _ali_oidc_trust(condition)}) == []


@pytest.mark.parametrize(
    ("condition", "why"),
    [
        ({"StringEquals": ALI_ISS}, ""),
        (
            {"StringEquals": ALI_ISS, "StringLike": {"oidc:sub": "repo:*"}},
            " (StringLike oidc:sub 'repo:*' names no repository owner)",
        ),
        (
            {"StringEquals": ALI_ISS, "StringLike": {"oidc:sub": "repo:ac*"}},
            " (StringLike oidc:sub 'repo:ac*' names no repository owner)",
        ),
    ],
)
def test_alibaba_oidc_trust_of_github_without_a_repository_fails(
    condition: dict[str, object], why: str
) -> None:
    found = check(POLICY, ALI_ROLE, {"assumeRolePolicyDocument": _ali_oidc_trust(condition)}, "ci")
    assert found == [
        f"RAM role 'ci' trust policy statement 1 trusts GitHub Actions tokens without pinning the "
        f"repository{why}; {GITHUB_TAIL.replace('token.actions.githubusercontent.com:sub', 'oidc:sub')}"
    ]
