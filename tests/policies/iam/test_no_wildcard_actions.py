from __future__ import annotations

import json

import pytest

from gpufleet.policies.iam.no_wildcard_actions import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check

AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE = "aws:iam/role:Role"
ALI_POLICY = "alicloud:ram/policy:Policy"
TC_POLICY = "tencentcloud:Cam/policy:Policy"


def _aws(action: object, effect: str = "Allow") -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": effect, "Action": action, "Resource": "arn:aws:s3:::b/*"}],
        }
    )


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-001"
    assert POLICY.name == "no-wildcard-actions"
    assert RULE.checkov == ("CKV_AWS_1", "CKV_AWS_62", "CKV_AWS_63")


def test_aws_compliant() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _aws(["s3:GetObject", "s3:PutObject"])}) == []
    assert check(POLICY, AWS_POLICY, {"policy": _aws("s3:Get*")}) == []
    assert check(POLICY, AWS_POLICY, {"policy": _aws("*", effect="Deny")}) == []


@pytest.mark.parametrize(("action", "shown"), [("*", "'*'"), (["s3:GetObject", "s3:*"], "'s3:*'")])
def test_aws_wildcards(action: object, shown: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _aws(action)}, "p") == [
        f"IAM policy 'p' policy statement 1 allows wildcard action {shown}; grant named actions only"
    ]


def test_aws_dict_document_and_not_action_with_proxy() -> None:
    document = {"Statement": {"Sid": "All", "Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}}
    assert check(POLICY, AWS_POLICY, {"policy": document}, "p", proxy=True) == [
        "IAM policy 'p' policy statement 'All' allows every action except 'iam:*' (Allow with NotAction); "
        "list the allowed actions instead"
    ]


def test_aws_role_inline_policy() -> None:
    props = {"assumeRolePolicy": "{}", "inlinePolicies": [{"name": "ckpt", "policy": _aws("s3:*")}]}
    assert check(POLICY, AWS_ROLE, props, "r") == [
        "IAM role 'r' inline policy 'ckpt' statement 1 allows wildcard action 's3:*'; grant "
        "named actions only"
    ]


def test_alicloud_policy_document() -> None:
    document = json.dumps(
        {"Version": "1", "Statement": [{"Effect": "Allow", "Action": "oss:*", "Resource": "*"}]}
    )
    assert check(POLICY, ALI_POLICY, {"policyDocument": document}, "p") == [
        "RAM policy 'p' policyDocument statement 1 allows wildcard action 'oss:*'; grant named actions only"
    ]
    assert check(POLICY, ALI_POLICY, {"document": document.replace("oss:*", "oss:GetObject")}, "p") == []


def test_tencent_lower_case_document() -> None:
    document = json.dumps(
        {"version": "2.0", "statement": [{"effect": "allow", "action": ["cos:*"], "resource": ["*"]}]}
    )
    assert check(POLICY, TC_POLICY, {"document": document}, "p") == [
        "CAM policy 'p' document statement 1 allows wildcard action 'cos:*'; grant named actions only"
    ]


def test_unknown_document_and_unknown_action() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": UNKNOWN_STRING_VALUE}, proxy=True) == [
        "could not be judged at preview: the string value at .policy can't be known during preview"
    ]
    document = {"Statement": [{"Effect": "Allow", "Action": [UNKNOWN_STRING_VALUE], "Resource": "*"}]}
    assert check(POLICY, AWS_POLICY, {"policy": document}) == [
        "could not be judged at preview: the string value at .policy.Statement.0.Action.0 can't be known "
        "during preview"
    ]


def test_invalid_json() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": "{not json"}, "p") == [
        "cannot be parsed: IAM policy 'p': the document at .policy is not valid JSON, \"{not json\""
    ]


def test_other_types_ignored() -> None:
    assert check(POLICY, "aws:s3/bucketPolicy:BucketPolicy", {"policy": _aws("*")}) == []


def test_alicloud_deprecated_statements_list_is_judged() -> None:
    props = {
        "policyName": "legacy",
        "statements": [
            {"effect": "Deny", "actions": ["ram:*"], "resources": ["*"]},
            {"effect": "Allow", "actions": ["oss:GetObject", "oss:*"], "resources": ["acs:oss:*:*:data/*"]},
        ],
    }
    assert check(POLICY, "alicloud:ram/policy:Policy", props, "legacy", proxy=True) == [
        "RAM policy 'legacy' statements statement 2 allows wildcard action 'oss:*'; grant named actions only"
    ]
    narrow = {
        "statements": [{"effect": "Allow", "actions": ["oss:GetObject"], "resources": ["acs:oss:*:*:d/*"]}]
    }
    assert check(POLICY, "alicloud:ram/policy:Policy", narrow) == []


@pytest.mark.parametrize(
    ("action", "broad"),
    [
        ("?*", "*"),
        ("*?", "*"),
        ("**", "*"),
        ("iam:?*", "iam:*"),
        ("iam:*e*", "iam:*"),
        ("IAM*", "iam:*"),
        ("ia?:*E*", "iam:*"),
        ("ec2:*?", "ec2:*"),
    ],
)
def test_aws_globs_as_broad_as_a_wildcard(action: str, broad: str) -> None:
    # IAM reads `*` as any run and `?` as one character, case-insensitively: these cover every
    # sensitive action of the service (or of every service), so they are wildcards too.
    assert check(POLICY, AWS_POLICY, {"policy": _aws(["s3:GetObject", action])}, "p") == [
        f"IAM policy 'p' policy statement 1 allows wildcard action '{action}' (as broad as '{broad}'); "
        "grant named actions only"
    ]
    assert RULE.enforcement.value == "mandatory"


@pytest.mark.parametrize(
    "action", ["s3:Get*", "iam:List*", "iam:Get*", "s3:*Object", "iam:*Role*", "iam:Pass*"]
)
def test_aws_narrow_globs_pass(action: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _aws(action)}, "p") == []


def test_alicloud_and_tencent_globs_as_broad_as_a_wildcard() -> None:
    ali = json.dumps(
        {"Version": "1", "Statement": [{"Effect": "Allow", "Action": "ram:?*", "Resource": "*"}]}
    )
    assert check(POLICY, ALI_POLICY, {"policyDocument": ali}, "p") == [
        "RAM policy 'p' policyDocument statement 1 allows wildcard action 'ram:?*' (as broad as 'ram:*'); "
        "grant named actions only"
    ]
    tencent = json.dumps(
        {"version": "2.0", "statement": [{"effect": "allow", "action": ["name/cam:*e*"], "resource": ["*"]}]}
    )
    assert check(POLICY, TC_POLICY, {"document": tencent}, "p") == [
        "CAM policy 'p' document statement 1 allows wildcard action 'name/cam:*e*' (as broad as 'cam:*'); "
        "grant named actions only"
    ]
    narrow = json.dumps(
        {"Version": "1", "Statement": [{"Effect": "Allow", "Action": "oss:Get*", "Resource": "*"}]}
    )
    assert check(POLICY, ALI_POLICY, {"policyDocument": narrow}, "p") == []
