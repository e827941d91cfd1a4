from __future__ import annotations

import json

import pytest

from policies.iam.trust_specific_principals import POLICY, RULE

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
        {"Federated": "arn:aws:iam::1:oidc-provider/token.actions.githubusercontent.com"},
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
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": json.loads(trust)}, proxy=True) == []
    trust = _trust("*", {"Bool": {"aws:SecureTransport": "true"}})
    assert check(POLICY, AWS_ROLE, {"assumeRolePolicy": trust}, "r", proxy=True) == [
        f"IAM role 'r' trust policy statement 1 trusts any principal ('*') {TAIL}"
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
