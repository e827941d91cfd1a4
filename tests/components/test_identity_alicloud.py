"""PoolIdentity: a RAM role only ECS may assume, with one policy naming each resource it may touch."""

from __future__ import annotations

import json

import pytest

from gpufleet.components.identity.alicloud import PoolIdentity, PoolIdentityArgs
from tests.components.alicloud_builders import TAGS
from tests.components.conftest import RecordingMocks, Runner, statements_by_sid

ARGS = {
    "role_name": "gpufleet-cn-dev-cn-hangzhou-a10",
    "region": "cn-hangzhou",
    "bucket_name": "ckpt-bucket",
    "key_id": "key-hzz0001",
    "log_project": "gpufleet-cn-dev-cn-hangzhou",
    "log_store": "gpufleet-nodes",
    "queue_name": "gpufleet-cn-dev-cn-hangzhou-a10",
    "tags": TAGS,
}


def build(run_pulumi: Runner, **changes: object) -> RecordingMocks:
    args = PoolIdentityArgs(**{**ARGS, **changes})  # type: ignore[arg-type]
    return run_pulumi(lambda: PoolIdentity("ident", args))


def test_role_trusts_ecs_only_and_has_no_access_key(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi)
    assert mocks.names_by_type() == [
        ("alicloud:ram/policy:Policy", "ident-policy"),
        ("alicloud:ram/role:Role", "ident-role"),
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "ident-attach"),
        ("gpufleet:identity:PoolIdentity", "ident"),
    ]
    role = mocks.one("alicloud:ram/role:Role", "ident-role").inputs
    assert role["roleName"] == "gpufleet-cn-dev-cn-hangzhou-a10"
    assert json.loads(role["assumeRolePolicyDocument"])["Statement"] == [
        {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": ["ecs.aliyuncs.com"]}}
    ]
    attach = mocks.one("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "ident-attach").inputs
    assert attach == {
        "roleName": "gpufleet-cn-dev-cn-hangzhou-a10",
        "policyName": "gpufleet-cn-dev-cn-hangzhou-a10-access",
        "policyType": "Custom",
    }


def test_policy_names_the_prefixes_the_key_the_log_store_and_the_queue(run_pulumi: Runner) -> None:
    policy = build(run_pulumi).one("alicloud:ram/policy:Policy", "ident-policy").inputs
    by_sid = statements_by_sid(policy, "policyDocument")
    assert by_sid["ListFleetPrefixes"]["Resource"] == ["acs:oss:*:*:ckpt-bucket"]
    assert by_sid["ListFleetPrefixes"]["Condition"] == {
        "StringLike": {"oss:Prefix": ["data/*", "checkpoints/*"]}
    }
    assert by_sid["ReadDataAndCheckpoints"]["Resource"] == [
        "acs:oss:*:*:ckpt-bucket/data/*",
        "acs:oss:*:*:ckpt-bucket/checkpoints/*",
    ]
    assert by_sid["WriteCheckpoints"] == {
        "Sid": "WriteCheckpoints",
        "Effect": "Allow",
        "Action": ["oss:PutObject", "oss:AbortMultipartUpload", "oss:ListParts"],
        "Resource": ["acs:oss:*:*:ckpt-bucket/checkpoints/*"],
    }
    assert by_sid["UseFleetKey"]["Resource"] == ["acs:kms:cn-hangzhou:*:key/key-hzz0001"]
    assert by_sid["WriteNodeLogs"]["Resource"] == [
        "acs:log:cn-hangzhou:*:project/gpufleet-cn-dev-cn-hangzhou/logstore/gpufleet-nodes"
    ]
    assert by_sid["TakeWorkFromPoolQueue"]["Resource"] == [
        "acs:mns:cn-hangzhou:*:/queues/gpufleet-cn-dev-cn-hangzhou-a10",
        "acs:mns:cn-hangzhou:*:/queues/gpufleet-cn-dev-cn-hangzhou-a10/messages",
    ]
    resources = [r for s in by_sid.values() for r in s["Resource"]]
    assert "*" not in resources
    assert all("*" not in a for s in by_sid.values() for a in s["Action"])


def test_custom_prefixes_scope_the_policy(run_pulumi: Runner) -> None:
    policy = build(run_pulumi, data_prefix="datasets/", checkpoint_prefix="ckpt/").one(
        "alicloud:ram/policy:Policy", "ident-policy"
    )
    by_sid = statements_by_sid(policy.inputs, "policyDocument")
    assert by_sid["WriteCheckpoints"]["Resource"] == ["acs:oss:*:*:ckpt-bucket/ckpt/*"]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"role_name": "r" * 65}, "must be 1 to 64 characters"),
        ({"data_prefix": "*"}, "data_prefix: '\\*' must be a key prefix"),
        ({"checkpoint_prefix": "/abs/"}, "checkpoint_prefix: '/abs/' must be a key prefix"),
    ],
)
def test_bad_arguments_are_refused(changes: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        PoolIdentityArgs(**{**ARGS, **changes})  # type: ignore[arg-type]
