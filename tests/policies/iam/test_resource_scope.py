"""The resource-scope matcher: which patterns reach every resource an action acts on."""

from __future__ import annotations

import random
import re
import time

import pytest

from gpufleet.policies.documents import Statement, action_matches, glob_match
from gpufleet.policies.iam.resource_scope import covers_all, probes, reaching
from gpufleet.policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS

EVERY = [
    # (pattern, cloud, action)
    ("*", "aws", "s3:PutObject"),
    ("?*", "aws", "s3:PutObject"),
    ("arn:*", "aws", "iam:PassRole"),
    ("arn:aws:*", "aws", "iam:PassRole"),
    ("arn:aws:s3:::*", "aws", "s3:PutObject"),
    ("arn:aws:s3:::*", "aws", "s3:PutBucketPolicy"),
    ("arn:aws:s3:::*/*", "aws", "s3:PutObject"),
    ("ARN:AWS:S3:::*/*", "aws", "s3:DeleteObject"),
    ("arn:aws:logs:*:*:*", "aws", "logs:PutLogEvents"),
    ("arn:aws:logs:*:*:*", "aws", "logs:PutRetentionPolicy"),
    ("arn:aws:logs:us-west-2:123456789012:log-group:*", "aws", "logs:DeleteLogGroup"),
    ("arn:aws:logs:us-west-2:123456789012:log-group:*:*", "aws", "logs:DeleteLogGroup"),
    ("arn:aws:iam::123456789012:*", "aws", "iam:PassRole"),
    ("arn:aws:iam::*:role/*", "aws", "iam:PassRole"),
    ("arn:aws:iam::123456789012:role*", "aws", "iam:PassRole"),
    ("arn:aws:iam::123456789012:role/?*", "aws", "iam:PassRole"),
    ("arn:*:iam::*:role/*", "aws", "iam:PassRole"),
    ("arn:aws-cn:iam::*:role/*", "aws", "sts:AssumeRole"),
    ("arn:aws:iam::123456789012:policy/*", "aws", "iam:CreatePolicyVersion"),
    ("arn:aws:iam::123456789012:user/*", "aws", "iam:CreateAccessKey"),
    ("arn:aws:kms:*:123456789012:key/*", "aws", "kms:ScheduleKeyDeletion"),
    ("arn:aws:ec2:us-west-2:123456789012:instance/*", "aws", "ec2:TerminateInstances"),
    ("arn:aws:ec2:us-west-2:123456789012:*", "aws", "ec2:RunInstances"),
    ("arn:aws:ssm:*:*:parameter/*", "aws", "ssm:PutParameter"),
    ("acs:*:*:*:*", "alicloud", "oss:PutObject"),
    ("acs:oss:*:*:*", "alicloud", "oss:PutObject"),
    ("acs:oss:*:*:*/*", "alicloud", "oss:DeleteObject"),
    ("acs:ecs:*:*:instance/*", "alicloud", "ecs:DeleteInstance"),
    ("acs:ram:*:1234567890123456:role/*", "alicloud", "ram:PassRole"),
    ("acs:ram::1234567890123456:*", "alicloud", "ram:AttachPolicyToRole"),
    ("qcs::cos:*:*:*", "tencentcloud", "cos:PutObject"),
    ("qcs::cos:ap-guangzhou:uid/1250000000:*", "tencentcloud", "cos:PutObject"),
    ("qcs::cam::uin/100000000001:roleName/*", "tencentcloud", "cam:PassRole"),
    ("qcs::cvm:*:*:*", "tencentcloud", "cvm:StopInstances"),
    ("acs:kms:*:*:key/*", "alicloud", "kms:Decrypt"),
    ("qcs::cvm:ap-guangzhou:uin/100000000001:instance/*", "tencentcloud", "cvm:StopInstances"),
    ("qcs::cos:*:*:*/*", "tencentcloud", "cos:PutBucketPolicy"),
]

SCOPED = [
    ("arn:aws:s3:::ckpt/*", "aws", "s3:PutObject"),
    ("arn:aws:s3:::ckpt", "aws", "s3:PutBucketPolicy"),
    ("arn:aws:s3:::*/*", "aws", "s3:PutBucketPolicy"),  # every object, but no bucket
    ("arn:aws:s3:::ckpt-*/checkpoints/*", "aws", "s3:PutObject"),
    ("arn:aws:logs:us-west-2:123456789012:log-group:/training/*", "aws", "logs:PutLogEvents"),
    ("arn:aws:logs:us-west-2:123456789012:log-group:/training/*", "aws", "logs:DeleteLogGroup"),
    ("arn:aws:iam::123456789012:role/training/*", "aws", "iam:PassRole"),
    ("arn:aws:iam::123456789012:role/ci", "aws", "iam:PassRole"),
    ("arn:aws:iam::123456789012:user/*", "aws", "iam:PassRole"),  # users are not roles
    ("arn:aws:iam::*:role/*", "aws", "iam:CreatePolicyVersion"),  # roles are not policies
    ("arn:aws:s3:::*", "aws", "iam:PassRole"),  # another service
    ("arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab", "aws", "kms:Decrypt"),
    ("arn:aws:ec2:us-west-2:123456789012:instance/*", "aws", "ec2:RunInstances"),
    ("arn:aws:ec2:us-west-2:123456789012:instance/i-0abc", "aws", "ec2:StopInstances"),
    ("acs:oss:*:*:vision-ckpt/*", "alicloud", "oss:PutObject"),
    ("acs:ram:*:1234567890123456:role/ecs-*", "alicloud", "ram:PassRole"),
    ("qcs::cos:ap-guangzhou:uid/1250000000:vision-ckpt-1250000000/*", "tencentcloud", "cos:PutObject"),
    ("qcs::cam::uin/100000000001:roleName/gpu-node", "tencentcloud", "cam:PassRole"),
    ("qcs::cvm:ap-guangzhou:uin/100000000001:instance/ins-0abc", "tencentcloud", "cvm:StopInstances"),
    ("qcs::cos:ap-guangzhou:uid/1250000000:vision-ckpt-1250000000/*", "tencentcloud", "cos:PutBucketPolicy"),
    ("<unknown at preview>", "aws", "s3:PutObject"),
]


@pytest.mark.parametrize(("pattern", "cloud", "action"), EVERY)
def test_patterns_that_reach_every_resource(pattern: str, cloud: str, action: str) -> None:
    assert covers_all(pattern, cloud, action)


@pytest.mark.parametrize(("pattern", "cloud", "action"), SCOPED)
def test_patterns_that_scope(pattern: str, cloud: str, action: str) -> None:
    assert not covers_all(pattern, cloud, action)


def test_run_instances_is_scoped_by_naming_one_of_its_resources() -> None:
    account = "arn:aws:ec2:us-west-2:123456789012"
    wildcards = tuple(
        f"{account}:{kind}/*"
        for kind in ("instance", "volume", "network-interface", "subnet", "security-group")
    )
    every = Statement(
        "allow", ("ec2:RunInstances",), resources=(*wildcards, "arn:aws:ec2:us-west-2::image/*")
    )
    assert reaching(every, "aws", "ec2:RunInstances") == (*wildcards, "arn:aws:ec2:us-west-2::image/*")
    scoped = Statement(
        "allow", ("ec2:RunInstances",), resources=(*wildcards, "arn:aws:ec2:us-west-2::image/ami-0abc")
    )
    assert reaching(scoped, "aws", "ec2:RunInstances") == ()


def test_probes_name_the_service_of_each_resource() -> None:
    assert probes("aws", "sts:AssumeRole") == (("iam", "role/zq9probe"), ("iam", "role/zq9path/zq9probe"))
    assert probes("aws", "ssm:SendCommand") == (("ec2", "instance/i-0zq9probe"), ("ssm", "document/zq9probe"))
    assert probes("alicloud", "kms:Encrypt") == (("kms", "key/0zq9probe-0000"),)
    assert probes("tencentcloud", "cvm:DescribeInstances") == (("cvm", "zq9type/zq9probe"),)


def test_every_scoped_write_action_has_its_resource_kinds() -> None:
    fallback = [
        action
        for cloud, actions in SCOPED_WRITE_ACTIONS.items()
        for action in actions
        if probes(cloud, action) == ((action.split(":")[0], "zq9type/zq9probe"),)
    ]
    assert fallback == []


def test_alibaba_run_instances_is_scoped_by_one_vswitch() -> None:
    every = ("acs:ecs:*:*:instance/*", "acs:ecs:*:*:image/*", "acs:ecs:*:*:securitygroup/*", "acs:vpc:*:*:*")
    assert reaching(Statement("allow", resources=every), "alicloud", "ecs:RunInstances") == every
    scoped = (*every[:3], "acs:vpc:*:*:vswitch/vsw-bp1a2b3c")
    assert reaching(Statement("allow", resources=scoped), "alicloud", "ecs:RunInstances") == ()


def _reference(pattern: str, text: str) -> bool:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, text, re.IGNORECASE | re.DOTALL) is not None


def test_glob_match_agrees_with_a_regular_expression() -> None:
    rng = random.Random(9)
    for _ in range(3000):
        pattern = "".join(rng.choice("aB*?:/") for _ in range(rng.randint(0, 7)))
        text = "".join(rng.choice("abAB:/") for _ in range(rng.randint(0, 8)))
        assert glob_match(pattern, text) is _reference(pattern, text), (pattern, text)


def test_many_wildcards_do_not_stall_the_pack() -> None:
    started = time.monotonic()
    for hostile in ("*" * 300 + "q", "*?" * 150 + "q", "arn:aws:iam::1:" + "*z" * 100 + "*q"):
        assert not covers_all(hostile, "aws", "ec2:RunInstances")
        assert not action_matches(hostile, "iam:PassRole")
    assert time.monotonic() - started < 2
