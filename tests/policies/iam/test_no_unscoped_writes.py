from __future__ import annotations

import json

import pytest

from gpufleet.policies.iam.no_unscoped_writes import POLICY, RULE
from gpufleet.policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS

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
        f"RAM policy 'a' policyDocument statement 1 allows oss:PutObject on Resource 'acs:*:*:*:*'; {TAIL}"
    ]
    scoped = ali.replace("acs:*:*:*:*", "acs:oss:*:*:ckpt/*")
    assert check(POLICY, ALI_POLICY, {"policyDocument": scoped}, "a") == []
    tc = json.dumps(
        {"version": "2.0", "statement": [{"effect": "allow", "action": "cvm:StopInstances", "resource": "*"}]}
    )
    assert check(POLICY, TC_POLICY, {"document": tc}, "t") == [
        f"CAM policy 't' document statement 1 allows cvm:StopInstances on Resource '*'; {TAIL}"
    ]


@pytest.mark.parametrize(
    ("action", "resource"),
    [
        ("s3:PutObject", "arn:*"),
        ("s3:PutObject", "arn:aws:s3:::*"),
        ("s3:PutObject", "arn:aws:s3:::*/*"),
        ("logs:PutLogEvents", "arn:aws:logs:*:*:*"),
        ("iam:PutRolePolicy", "arn:aws:iam::123456789012:*"),
        ("iam:PassRole", "arn:aws:iam::123456789012:role*"),
        ("iam:PassRole", "arn:aws:iam::123456789012:role/?*"),
        ("iam:PassRole", "arn:*:iam::*:role/*"),
        ("kms:Decrypt", "arn:aws:kms:us-west-2:123456789012:key/*"),
    ],
)
def test_patterns_that_reach_every_resource_fail(action: str, resource: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc(action, resource)}, "p") == [
        f"IAM policy 'p' policy statement 1 allows {action} on Resource {resource!r}; {TAIL}"
    ]


@pytest.mark.parametrize(
    ("action", "resource"),
    [
        ("s3:PutObject", "arn:aws:s3:::ckpt-*/checkpoints/*"),
        ("s3:PutBucketPolicy", "arn:aws:s3:::*/*"),  # every object is not every bucket
        ("logs:PutLogEvents", "arn:aws:logs:*:*:log-group:/gpufleet/*"),
        ("iam:PassRole", "arn:aws:iam::123456789012:role/training/*"),
        ("iam:PassRole", "arn:aws:iam::123456789012:user/*"),
        ("kms:Decrypt", "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"),
    ],
)
def test_look_alike_scoped_patterns_pass(action: str, resource: str) -> None:
    assert check(POLICY, AWS_POLICY, {"policy": _doc(action, resource)}) == []


def test_only_the_actions_a_pattern_reaches_are_named() -> None:
    props = {
        "policy": _doc(["s3:PutObject", "s3:PutBucketPolicy"], ["arn:aws:s3:::ckpt", "arn:aws:s3:::*/*"])
    }
    assert check(POLICY, AWS_POLICY, props, "p") == [
        f"IAM policy 'p' policy statement 1 allows s3:PutObject on Resource 'arn:aws:s3:::*/*'; {TAIL}"
    ]


def test_run_instances_scoped_by_one_subnet_passes() -> None:
    prefix = "arn:aws:ec2:us-west-2:123456789012"
    kinds = ("instance/*", "volume/*", "network-interface/*", "subnet/*", "security-group/*")
    every = [f"{prefix}:{kind}" for kind in kinds] + ["arn:aws:ec2:us-west-2::image/*"]
    found = check(POLICY, AWS_POLICY, {"policy": _doc("ec2:RunInstances", every)}, "p")
    assert found == [
        "IAM policy 'p' policy statement 1 allows ec2:RunInstances on Resource "
        + ", ".join(repr(r) for r in every)
        + f"; {TAIL}"
    ]
    scoped = [*every[:3], f"{prefix}:subnet/subnet-0abc", *every[4:]]
    assert check(POLICY, AWS_POLICY, {"policy": _doc("ec2:RunInstances", scoped)}) == []
    account = f"{prefix}:*"
    assert check(POLICY, AWS_POLICY, {"policy": _doc("ec2:RunInstances", account)}, "p") == [
        f"IAM policy 'p' policy statement 1 allows ec2:RunInstances on Resource {account!r}; {TAIL}"
    ]


def test_china_clouds_by_pattern() -> None:
    def ali(resource: str) -> str:
        statement = {"Effect": "Allow", "Action": "ram:PassRole", "Resource": resource}
        return json.dumps({"Version": "1", "Statement": [statement]})

    every = "acs:ram:*:1234567890123456:role/*"
    assert check(POLICY, ALI_POLICY, {"policyDocument": ali(every)}, "a") == [
        f"RAM policy 'a' policyDocument statement 1 allows ram:PassRole on Resource {every!r}; {TAIL}"
    ]
    assert check(POLICY, ALI_POLICY, {"policyDocument": ali("acs:ram:*:1234567890123456:role/ecs-*")}) == []

    def tc(resource: str) -> str:
        statement = {"effect": "allow", "action": "name/cos:PutObject", "resource": resource}
        return json.dumps({"version": "2.0", "statement": [statement]})

    every = "qcs::cos:ap-guangzhou:uid/1250000000:*"
    assert check(POLICY, TC_POLICY, {"document": tc(every)}, "t") == [
        f"CAM policy 't' document statement 1 allows cos:PutObject on Resource {every!r}; {TAIL}"
    ]
    scoped = "qcs::cos:ap-guangzhou:uid/1250000000:vision-ckpt-1250000000/*"
    assert check(POLICY, TC_POLICY, {"document": tc(scoped)}) == []
