from __future__ import annotations

import json

from policies.iam.no_unscoped_writes import POLICY, RULE
from policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS

from .helpers import check

AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ALI_POLICY = "alicloud:ram/policy:Policy"
TC_POLICY = "tencentcloud:Cam/policy:Policy"
TAIL = "these actions accept resource-level scoping: name the resources"


def _doc(action: object, resource: object = "*", **extra: object) -> str:
    statement = {"Effect": "Allow", "Action": action, "Resource": resource, **extra}
    if "NotResource" in extra:
        del statement["Resource"]
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-002"
    assert "s3:PutObject" in SCOPED_WRITE_ACTIONS["aws"]
    assert "ssm:UpdateInstanceInformation" not in SCOPED_WRITE_ACTIONS["aws"]


def test_compliant_scoped_and_unscopable() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc("s3:PutObject", "arn:aws:s3:::ckpt/*")}) == []
    # The SSM agent's own actions have no resource-level scoping (AmazonSSMManagedInstanceCore uses "*").
    ssm = ["ssm:UpdateInstanceInformation", "ssmmessages:CreateControlChannel", "ec2:DescribeInstances"]
    assert check(POLICY, AWS_POLICY, {"policy": _doc(ssm)}) == []


def test_write_on_star() -> None:
    assert check(POLICY, AWS_ROLE_POLICY, {"policy": _doc(["s3:GetObject", "s3:PutObject"])}, "w") == [
        f"IAM role policy 'w' policy statement 1 allows s3:PutObject on Resource '*'; {TAIL}"
    ]


def test_pattern_lists_first_five() -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc("kms:*")}, "k") == [
        "IAM policy 'k' policy statement 1 allows kms:Encrypt, kms:Decrypt, kms:GenerateDataKey, "
        "kms:GenerateDataKeyWithoutPlaintext, kms:ReEncryptFrom and 9 more on Resource '*'; " + TAIL
    ]


def test_not_resource_counts_and_proxy() -> None:
    props = {"policy": _doc("iam:passrole", NotResource="arn:aws:iam::1:role/admin")}
    assert check(POLICY, AWS_POLICY, props, "p", proxy=True) == [
        f"IAM policy 'p' policy statement 1 allows iam:PassRole on NotResource (every other resource); {TAIL}"
    ]


def test_alicloud_and_tencent() -> None:
    ali = json.dumps(
        {
            "Version": "1",
            "Statement": [{"Effect": "Allow", "Action": "oss:PutObject", "Resource": "acs:*:*:*:*"}],
        }
    )
    assert check(POLICY, ALI_POLICY, {"policyDocument": ali}, "a") == [
        f"RAM policy 'a' policyDocument statement 1 allows oss:PutObject on Resource '*'; {TAIL}"
    ]
    scoped = ali.replace("acs:*:*:*:*", "acs:oss:*:*:ckpt/*")
    assert check(POLICY, ALI_POLICY, {"policyDocument": scoped}, "a") == []
    tc = json.dumps(
        {"version": "2.0", "statement": [{"effect": "allow", "action": "cvm:StopInstances", "resource": "*"}]}
    )
    assert check(POLICY, TC_POLICY, {"document": tc}, "t") == [
        f"CAM policy 't' document statement 1 allows cvm:StopInstances on Resource '*'; {TAIL}"
    ]
