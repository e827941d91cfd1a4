"""A graph of one resource per exported shape, with the flaws checkov knows, in the engine's wire form
(camelCase inputs, numbers as floats) as the offline engine records it."""

from __future__ import annotations

from typing import Any

from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph, make_secret

STACK = "fixture"
PREFIX = f"urn:pulumi:{STACK}::proj::"


def urn(token: str, name: str) -> str:
    return f"{PREFIX}{token}::{name}"


def resource(
    token: str,
    name: str,
    inputs: dict[str, Any],
    *,
    id: str | None = None,
    outputs: dict[str, Any] | None = None,
    deps: dict[str, list[str]] | None = None,
    custom: bool = True,
) -> Resource:
    return Resource(
        urn=urn(token, name),
        type=token,
        name=name,
        custom=custom,
        inputs=inputs,
        outputs={**inputs, **(outputs or {}), "id": id or f"{name}-id"},
        id=id or f"{name}-id",
        property_dependencies={k: tuple(v) for k, v in (deps or {}).items()},
    )


SG = "aws:ec2/securityGroup:SecurityGroup"
BUCKET = "aws:s3/bucket:Bucket"


def fixture_graph() -> ResourceGraph:
    sg = resource(
        SG,
        "ssh-open",
        {
            "description": "admin access",
            "ingress": [
                {
                    "protocol": "tcp",
                    "fromPort": 22.0,
                    "toPort": 22.0,
                    "cidrBlocks": ["0.0.0.0/0"],
                    "description": "ssh",
                }
            ],
            "egress": [],
            "tags": {"Team": "ml", "cost-center": "cc-1"},
        },
        id="sg-0123",
        outputs={"arn": "arn:aws:ec2:us-east-1:123456789012:security-group/sg-0123"},
    )
    instance = resource(
        "aws:ec2/instance:Instance",
        "imdsv1",
        {
            "ami": "ami-0abc",
            "instanceType": "g5.xlarge",
            "metadataOptions": {"httpTokens": "optional", "httpPutResponseHopLimit": 1.0},
            "rootBlockDevice": {"encrypted": True, "volumeSize": 200.0},
            "ebsBlockDevices": [{"deviceName": "/dev/sdb", "encrypted": False, "volumeSize": 100.5}],
            "ephemeralBlockDevices": [],
            "vpcSecurityGroupIds": ["sg-0123"],
            "userData": None,
            "keyName": UNKNOWN_STRING,
        },
        deps={"vpcSecurityGroupIds": [sg.urn]},
    )
    bucket = resource(
        BUCKET,
        "ckpt",
        {"tags": {"purpose": "checkpoints"}, "forceDestroy": False},
        id="ckpt-bucket-1a2b",
        outputs={"bucket": "ckpt-bucket-1a2b", "arn": "arn:aws:s3:::ckpt-bucket-1a2b"},
    )
    block = resource(
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        "ckpt-public-access",
        {
            "bucket": "ckpt-bucket-1a2b",
            "blockPublicAcls": True,
            "blockPublicPolicy": True,
            "ignorePublicAcls": True,
            "restrictPublicBuckets": True,
        },
        deps={"bucket": [bucket.urn]},
    )
    role = resource(
        "aws:iam/role:Role",
        "node-role",
        {
            "assumeRolePolicy": {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "sts:AssumeRole",
                        "Principal": {"Service": "ec2.amazonaws.com"},
                    }
                ],
            },
            "inlinePolicies": [
                {
                    "name": "all",
                    "policy": {
                        "Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
                    },
                }
            ],
        },
    )
    role_policy = resource(
        "aws:iam/rolePolicy:RolePolicy",
        "node-admin",
        {
            "role": "node-role-id",
            "policy": {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
            },
        },
        deps={"role": [role.urn]},
    )
    asg = resource(
        "aws:autoscaling/group:Group",
        "pool",
        {
            "minSize": 0.0,
            "maxSize": 4.0,
            "vpcZoneIdentifiers": ["subnet-1", "subnet-2"],
            "tags": [{"key": "team", "value": "ml", "propagateAtLaunch": True}],
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": "lt-1", "version": "$Latest"},
                    "overrides": [{"instanceType": "g5.xlarge"}, {"instanceType": "g6.xlarge"}],
                }
            },
        },
    )
    oss = resource(
        "alicloud:oss/bucket:Bucket",
        "ali-ckpt",
        {
            "bucket": "ali-ckpt",
            "serverSideEncryptionRule": {"sseAlgorithm": "AES256"},
            "lifecycleRules": [{"enabled": True, "prefix": "ckpt/", "expirations": [{"days": 30.0}]}],
            "tags": {"Env": "dev"},
        },
    )
    ali_vm = resource(
        "alicloud:ecs/instance:Instance",
        "ali-gpu",
        {
            "instanceType": "ecs.gn7i-c8g1.2xlarge",
            "imageId": "ubuntu_22",
            "internetMaxBandwidthOut": 10.0,
            "password": make_secret("hunter2"),
            "dataDisks": [{"size": 100.0, "encrypted": False}],
        },
    )
    cbs = resource(
        "tencentcloud:Cbs/storage:Storage",
        "tc-disk",
        {
            "storageType": "CLOUD_PREMIUM",
            "storageSize": 100.0,
            "availabilityZone": "ap-guangzhou-3",
            "encrypt": False,
        },
    )
    rules = resource(
        "tencentcloud:Security/groupRuleSet:GroupRuleSet",
        "tc-rules",
        {
            "securityGroupId": "sg-tc",
            "ingresses": [{"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}],
        },
    )
    cos = resource(
        "tencentcloud:Cos/bucket:Bucket",
        "tc-ckpt",
        {"bucket": "tc-ckpt-1250000000", "acl": "private", "encryptionAlgorithm": "AES256"},
    )
    deployment = resource(
        "kubernetes:apps/v1:Deployment",
        "trainer",
        {
            "metadata": {"name": "trainer", "namespace": "ml"},
            "spec": {
                "replicas": 1.0,
                "selector": {"matchLabels": {"app": "trainer"}},
                "template": {
                    "metadata": {"labels": {"app": "trainer"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "t",
                                "image": "nvcr.io/nvidia/pytorch:24.01-py3",
                                "securityContext": {"privileged": True},
                                "resources": {"limits": {"nvidia.com/gpu": 1.0}},
                            }
                        ]
                    },
                },
            },
        },
    )
    lam = resource("aws:lambda/function:Function", "fn", {"runtime": "python3.12"})
    component = resource("gpufleet:fleet:HybridGpuFleet", "fleet", {}, custom=False)
    provider = resource("pulumi:providers:aws", "default", {"region": "us-east-1"})
    return ResourceGraph(
        project="proj",
        stack=STACK,
        resources=[
            component,
            provider,
            sg,
            instance,
            bucket,
            block,
            role,
            role_policy,
            asg,
            oss,
            ali_vm,
            cbs,
            rules,
            cos,
            deployment,
            lam,
        ],
    )
