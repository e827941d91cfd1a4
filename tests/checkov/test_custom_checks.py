"""Our CKV_GPUF_* checks, run by checkov itself on exported fixtures: each fails its flawed resource
and passes its sound one (needs checkov)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov.merge import judge
from gpufleet.checkov.run import CUSTOM_CHECKS_DIR
from gpufleet.graph import ResourceGraph
from tests.checkov.fixtures import resource, urn

pytestmark = pytest.mark.checkov

INSTANCE = "alicloud:ecs/instance:Instance"
ROLE = "alicloud:ram/role:Role"
RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
COS = "tencentcloud:Cos/bucket:Bucket"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def _trust(principal: Any) -> dict[str, Any]:
    return {
        "Version": "1",
        "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}],
    }


def _deployment(name: str, container: dict[str, Any]) -> Any:
    return resource(
        DEPLOYMENT,
        name,
        {
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [{"name": "c", "image": "nvcr.io/nvidia/cuda:12.4.1-base", **container}]
                    },
                },
            },
        },
    )


def graph() -> ResourceGraph:
    return ResourceGraph(
        project="proj",
        stack="custom",
        resources=[
            resource(
                INSTANCE,
                "public-vm",
                {"instanceType": "ecs.gn7i", "internetMaxBandwidthOut": 5.0, "systemDiskEncrypted": True},
            ),
            resource(
                INSTANCE,
                "private-vm",
                {
                    "instanceType": "ecs.gn7i",
                    "internetMaxBandwidthOut": 0.0,
                    "systemDiskEncrypted": True,
                    "dataDisks": [{"size": 100.0, "encrypted": True}],
                },
            ),
            resource(
                INSTANCE,
                "plain-disk-vm",
                {
                    "instanceType": "ecs.gn7i",
                    "systemDiskEncrypted": True,
                    "dataDisks": [{"size": 100.0, "encrypted": False}],
                },
            ),
            resource(ROLE, "open-role", {"assumeRolePolicyDocument": _trust({"RAM": ["acs:ram::*:root"]})}),
            resource(
                ROLE, "ecs-role", {"assumeRolePolicyDocument": _trust({"Service": ["ecs.aliyuncs.com"]})}
            ),
            resource(
                RULE,
                "ssh-world",
                {
                    "type": "ingress",
                    "ipProtocol": "tcp",
                    "portRange": "20/30",
                    "cidrIp": "0.0.0.0/0",
                    "securityGroupId": "sg-1",
                },
            ),
            resource(
                RULE,
                "https-world",
                {
                    "type": "ingress",
                    "ipProtocol": "tcp",
                    "portRange": "443/443",
                    "cidrIp": "0.0.0.0/0",
                    "securityGroupId": "sg-1",
                },
            ),
            resource(COS, "cos-plain", {"bucket": "a-125", "acl": "public-read"}),
            resource(
                COS,
                "cos-kms",
                {"bucket": "b-125", "acl": "private", "encryptionAlgorithm": "KMS", "kmsId": "key-1"},
            ),
            _deployment(
                "all-gpus",
                {
                    "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
                    "resources": {"requests": {"nvidia.com/gpu": 1.0}},
                },
            ),
            _deployment("one-gpu", {"resources": {"limits": {"nvidia.com/gpu": 1.0}}}),
        ],
    )


@pytest.fixture(scope="module")
def outcome(checkov_bin: Path) -> dict[str, Any]:
    (block,) = judge([graph()], checkov_bin)
    return block


def _failed(block: dict[str, Any], check_id: str) -> set[str]:
    return {f["name"] for f in block["findings"] if f["check_id"] == check_id}


@pytest.mark.parametrize(
    ("check_id", "failing"),
    [
        ("CKV_GPUF_1", {"public-vm"}),
        ("CKV_GPUF_2", {"plain-disk-vm"}),
        ("CKV_GPUF_3", {"open-role"}),
        ("CKV_GPUF_4", {"ssh-world"}),
        ("CKV_GPUF_5", {"cos-plain"}),
        ("CKV_GPUF_6", {"cos-plain"}),
        ("CKV_GPUF_7", {"all-gpus"}),
        ("CKV_GPUF_8", {"all-gpus"}),
    ],
)
def test_each_check_fails_only_its_flawed_resource(
    outcome: dict[str, Any], check_id: str, failing: set[str]
) -> None:
    assert _failed(outcome, check_id) == failing


def test_findings_carry_urns(outcome: dict[str, Any]) -> None:
    (finding,) = [f for f in outcome["findings"] if f["check_id"] == "CKV_GPUF_3"]
    assert finding["urn"] == urn(ROLE, "open-role")
    assert finding["check_name"] == "Ensure Alibaba Cloud RAM roles trust named principals, never any account"


def test_one_class_per_file() -> None:
    files = sorted(p.name for p in CUSTOM_CHECKS_DIR.glob("*.py") if not p.name.startswith("_"))
    assert len(files) == 11
    for path in CUSTOM_CHECKS_DIR.glob("*.py"):
        if path.name.startswith("_"):
            continue
        text = path.read_text(encoding="utf-8")
        assert text.count("\nclass ") == 1, path.name
        assert f"class {path.stem}(" in text, path.name
