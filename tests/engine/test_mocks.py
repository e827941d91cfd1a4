"""The synthetic answers: ids and ARNs per cloud, policy documents, invokes."""

from __future__ import annotations

import json
from typing import Any

from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs

from gpufleet.invokes.aws import render_policy_statement
from gpufleet.mocks import FleetMocks, encode_documents


def _new(
    mocks: FleetMocks, token: str, name: str, inputs: dict[str, object], provider: str = ""
) -> tuple[Any, dict[str, Any]]:
    return mocks.new_resource(MockResourceArgs(token, name, inputs, provider=provider, custom=True))


def test_aws_ids_and_arns_follow_the_service_formats() -> None:
    mocks = FleetMocks({"aws:region": "eu-west-1"})
    key_id, key = _new(mocks, "aws:kms/key:Key", "ckpt-key", {})
    assert key["arn"] == f"arn:aws:kms:eu-west-1:123456789012:key/{key_id}"
    assert key["keyId"] == key_id
    bucket_id, bucket = _new(mocks, "aws:s3/bucketV2:BucketV2", "ckpt", {})
    assert bucket_id == bucket["bucket"] and bucket_id.startswith("ckpt-")
    assert bucket["arn"] == f"arn:aws:s3:::{bucket_id}"
    _id, named = _new(mocks, "aws:s3/bucket:Bucket", "named", {"bucket": "my-bucket"})
    assert named["arn"] == "arn:aws:s3:::my-bucket"
    sg_id, sg = _new(mocks, "aws:ec2/securityGroup:SecurityGroup", "gpu", {})
    assert sg_id.startswith("sg-")
    assert sg["arn"] == f"arn:aws:ec2:eu-west-1:123456789012:security-group/{sg_id}"
    role_id, role = _new(mocks, "aws:iam/role:Role", "node", {"name": "gpu-node"})
    assert role_id == "gpu-node"
    assert role["arn"] == "arn:aws:iam::123456789012:role/gpu-node"
    _lid, log = _new(mocks, "aws:cloudwatch/logGroup:LogGroup", "audit", {"name": "/gpufleet/audit"})
    assert log["arn"] == "arn:aws:logs:eu-west-1:123456789012:log-group:/gpufleet/audit"
    sse_id, sse = _new(
        mocks,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "sse",
        {"bucket": "my-bucket"},
    )
    assert sse_id == "my-bucket"
    assert "arn" not in sse
    _aid, attachment = _new(mocks, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "a", {"role": "r"})
    assert "arn" not in attachment


def test_ids_are_stable_and_distinct() -> None:
    mocks = FleetMocks({"aws:region": "us-east-1"})
    first, _ = _new(mocks, "aws:ec2/launchTemplate:LaunchTemplate", "pool-a", {})
    again, _ = _new(mocks, "aws:ec2/launchTemplate:LaunchTemplate", "pool-a", {})
    other, _ = _new(mocks, "aws:ec2/launchTemplate:LaunchTemplate", "pool-b", {})
    assert first == again != other
    assert first.startswith("lt-")


def test_explicit_provider_region_wins() -> None:
    mocks = FleetMocks({"aws:region": "us-east-1"})
    provider_id, _ = mocks.new_resource(
        MockResourceArgs("pulumi:providers:aws", "west", {"region": "us-west-2"}, custom=True)
    )
    ref = f"urn:pulumi:dev::p::pulumi:providers:aws::west::{provider_id}"
    _key_id, key = _new(mocks, "aws:kms/key:Key", "k", {}, provider=ref)
    assert key["arn"].startswith("arn:aws:kms:us-west-2:")


def test_policy_documents_become_json_strings_but_other_objects_do_not() -> None:
    document = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*"}]}
    mixed = {"instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 0}}
    encoded = encode_documents({"policy": document, "mixedInstancesPolicy": mixed, "n": 1})
    assert json.loads(encoded["policy"]) == document
    assert encoded["mixedInstancesPolicy"] == mixed
    mocks = FleetMocks({"aws:region": "us-east-1"})
    _id, role = _new(mocks, "aws:iam/role:Role", "r", {"assumeRolePolicy": document, "tags": {"a": "b"}})
    assert json.loads(role["assumeRolePolicy"]) == document
    assert role["tagsAll"] == {"a": "b"}
    # in a preview the SDK keeps no input as an output: structured inputs come back as they are
    _gid, group = _new(
        mocks, "aws:autoscaling/group:Group", "g", {"mixedInstancesPolicy": mixed, "maxSize": 4.0}
    )
    assert group["mixedInstancesPolicy"] == mixed
    assert group["maxSize"] == 4 and isinstance(group["maxSize"], int)


def test_render_policy_statement_like_the_provider() -> None:
    statement = {
        "effect": "Deny",
        "actions": ["s3:*"],
        "resources": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"],
        "principals": [{"type": "*", "identifiers": ["*"]}],
        "conditions": [{"test": "Bool", "variable": "aws:SecureTransport", "values": ["false"]}],
    }
    assert render_policy_statement(statement) == {
        "Effect": "Deny",
        "Action": "s3:*",
        "Resource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"],
        "Principal": "*",
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }


def test_invokes() -> None:
    mocks = FleetMocks({"aws:region": "ap-northeast-1", "alicloud:region": "cn-shanghai"})

    def call(token: str, args: dict[str, object]) -> dict[str, Any]:
        result, failures = mocks.call(MockCallArgs(token, args, ""))
        assert failures == []
        return result

    assert call("aws:index/getCallerIdentity:getCallerIdentity", {})["accountId"] == "123456789012"
    assert call("aws:index/getRegion:getRegion", {})["region"] == "ap-northeast-1"
    assert call("aws:index/getPartition:getPartition", {})["partition"] == "aws"
    assert call("aws:ec2/getAmiIds:getAmiIds", {"owners": ["amazon"]})["ids"][0].startswith("ami-")
    assert call("aws:ec2/getVpc:getVpc", {"default": True})["cidrBlock"] == "10.0.0.0/16"
    assert len(call("aws:ec2/getSubnets:getSubnets", {})["ids"]) == 3
    assert call("aws:ssm/getParameter:getParameter", {"name": "/app/flag"})["value"] == "offline-value"
    zones = call("alicloud:index/getZones:getZones", {})
    assert zones["ids"] == ["cn-shanghai-h", "cn-shanghai-i", "cn-shanghai-j"]
    assert call("kubernetes:helm:template", {}) == {}
    assert mocks.notes == []
    engine = call("aws:rds/getEngineVersion:getEngineVersion", {"engine": "postgres"})
    # the argument is echoed as the provider does; every other declared field is a typed placeholder
    assert engine["engine"] == "postgres"
    assert engine["version"] == "getEngineVersion-version"
    assert engine["defaultOnly"] is False
    assert engine["exportableLogTypes"] == ["getEngineVersion-exportable-log-types"]
    assert mocks.notes == [
        "invoke aws:rds/getEngineVersion:getEngineVersion has no offline answer: "
        "the program got typed placeholders (synthetic values of the declared result types)"
    ]


def test_alicloud_tencent_kubernetes_ids() -> None:
    mocks = FleetMocks({"alicloud:region": "cn-hangzhou", "tencentcloud:region": "ap-guangzhou"})
    vpc_id, _ = _new(mocks, "alicloud:vpc/network:Network", "net", {})
    assert vpc_id.startswith("vpc-bp1")
    _rid, role = _new(mocks, "alicloud:ram/role:Role", "node", {"roleName": "gpu-node"})
    assert role["arn"] == "acs:ram::1234567890123456:role/gpu-node"
    ins_id, _ = _new(mocks, "tencentcloud:Instance/instance:Instance", "gpu", {})
    assert ins_id.startswith("ins-")
    cos_id, cos = _new(mocks, "tencentcloud:Cos/bucket:Bucket", "ckpt", {})
    assert cos_id == "ckpt-1250000000" == cos["bucket"]
    ns_id, ns = _new(mocks, "kubernetes:core/v1:Namespace", "train", {"metadata": {"name": "train"}})
    assert ns_id == "train" and ns["metadata"]["uid"]
    quota_id, _ = _new(
        mocks, "kubernetes:core/v1:ResourceQuota", "q", {"metadata": {"name": "gpu", "namespace": "train"}}
    )
    assert quota_id == "train/gpu"
