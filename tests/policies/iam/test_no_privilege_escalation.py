from __future__ import annotations

import json

import pytest

from gpufleet.policies.iam.no_privilege_escalation import POLICY, RULE

from .helpers import NotApplicable, check

AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE = "aws:iam/role:Role"
TAIL = "workload policies must not be able to raise their own privileges"


def _doc(action: object, resource: object = "*") -> str:
    return json.dumps({"Statement": [{"Effect": "Allow", "Action": action, "Resource": resource}]})


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-006"
    assert RULE.clouds == ("aws",)


def test_compliant() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc("iam:PassRole", "arn:aws:iam::1:role/train")}) == []
    assert check(POLICY, AWS_POLICY, {"policy": _doc(["s3:GetObject", "iam:GetRole"])}) == []
    deny = json.dumps({"Statement": [{"Effect": "Deny", "Action": "iam:*", "Resource": "*"}]})
    assert check(POLICY, AWS_POLICY, {"policy": deny}) == []


def test_pass_role_on_star() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc("iam:PassRole")}, "p") == [
        f"IAM policy 'p' policy statement 1 grants privilege-escalation actions iam:PassRole on '*'; {TAIL}"
    ]


def test_scoped_escalation_still_fails_and_patterns() -> None:
    props = {"policy": _doc(["iam:CreatePolicyVersion", "iam:Attach*"], "arn:aws:iam::1:policy/x")}
    assert check(POLICY, AWS_POLICY, props, "p", proxy=True) == [
        "IAM policy 'p' policy statement 1 grants privilege-escalation actions iam:CreatePolicyVersion, "
        f"iam:AttachUserPolicy, iam:AttachGroupPolicy, iam:AttachRolePolicy; {TAIL}"
    ]


def test_role_inline_sts_assume_role_on_star() -> None:
    props = {"inlinePolicies": [{"name": "hop", "policy": _doc("sts:AssumeRole")}]}
    assert check(POLICY, AWS_ROLE, props, "r") == [
        "IAM role 'r' inline policy 'hop' statement 1 grants privilege-escalation actions "
        f"sts:AssumeRole on '*'; {TAIL}"
    ]


@pytest.mark.parametrize("token", ["alicloud:ram/policy:Policy", "tencentcloud:Cam/policy:Policy"])
def test_other_clouds_not_applicable(token: str) -> None:
    with pytest.raises(NotApplicable):
        check(POLICY, token, {"document": _doc("ram:*")})


@pytest.mark.parametrize(
    "resource", ["arn:aws:iam::123456789012:role/*", "arn:aws-cn:iam::*:role/*", "ARN:AWS:IAM::1:ROLE/*"]
)
def test_pass_role_on_every_role_of_an_account_fails(resource: str) -> None:
    condition = {"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}}
    statement = {"Effect": "Allow", "Action": "iam:PassRole", "Resource": resource, "Condition": condition}
    assert check(POLICY, AWS_POLICY, {"policy": json.dumps({"Statement": statement})}, "p") == [
        "IAM policy 'p' policy statement 1 grants privilege-escalation actions "
        f"iam:PassRole on {resource!r}; {TAIL}"
    ]


def test_pass_role_on_a_role_path_passes() -> None:
    props = {"policy": _doc("iam:PassRole", ["arn:aws:iam::1:role/training/*", "arn:aws:iam::1:role/ci"])}
    assert check(POLICY, AWS_POLICY, props) == []


@pytest.mark.parametrize(
    "resource",
    [
        "arn:*",
        "arn:aws:*",
        "arn:aws:iam::123456789012:*",
        "arn:aws:iam::123456789012:role*",
        "arn:aws:iam::123456789012:role/?*",
        "arn:*:iam::*:role/*",
    ],
)
def test_pass_role_on_patterns_that_reach_every_role_fails(resource: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc("iam:PassRole", resource)}, "p") == [
        "IAM policy 'p' policy statement 1 grants privilege-escalation actions "
        f"iam:PassRole on {resource!r}; {TAIL}"
    ]


@pytest.mark.parametrize(
    "resource",
    [
        "arn:aws:iam::123456789012:role/training-*",
        "arn:aws:iam::123456789012:role/gpufleet/*",
        "arn:aws:iam::123456789012:instance-profile/*",
        "arn:aws:s3:::*",
    ],
)
def test_pass_role_on_look_alike_scoped_patterns_passes(resource: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc(["iam:PassRole", "sts:AssumeRole"], resource)}) == []


def test_pass_role_on_not_resource_fails() -> None:
    statement = {"Effect": "Allow", "Action": "iam:PassRole", "NotResource": "arn:aws:iam::1:role/admin"}
    assert check(POLICY, AWS_POLICY, {"policy": json.dumps({"Statement": [statement]})}, "p") == [
        "IAM policy 'p' policy statement 1 grants privilege-escalation actions iam:PassRole on NotResource "
        f"(every other resource); {TAIL}"
    ]
