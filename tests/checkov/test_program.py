"""A real program (tests/checkov/program) written with the three bridged SDKs and pulumi-kubernetes, run
by the offline engine: the SDKs' own wire names reach the export in Terraform's shape, and checkov's
verdicts land on the program's resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov.export import Export, export_graph
from gpufleet.checkov.merge import judge
from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph

PROGRAM = Path(__file__).with_name("program")


@pytest.fixture(scope="module")
def graph() -> ResourceGraph:
    return run_program(PROGRAM, "dev")


@pytest.fixture(scope="module")
def export(graph: ResourceGraph) -> Export:
    return export_graph(graph)


def _values(export: Export, address: str) -> dict[str, Any]:
    (found,) = [
        r for r in export.plan["planned_values"]["root_module"]["resources"] if r["address"] == address
    ]
    values: dict[str, Any] = found["values"]
    return values


def test_every_resource_is_exported(export: Export) -> None:
    assert sorted(export.addresses) == [
        "alicloud_oss_bucket.ali-ckpt",
        "aws_iam_role.node",
        "aws_iam_role_policy.node-admin",
        "aws_instance.imdsv1",
        "aws_security_group.ssh-open",
        "tencentcloud_cbs_storage.tc-disk",
        "tencentcloud_security_group_rule_set.tc-rules",
    ]
    assert list(export.objects) == ["Deployment.ml.trainer"]
    assert dict(export.unmapped) == {}


def test_sdk_wire_names_become_terraform_names(export: Export) -> None:
    instance = _values(export, "aws_instance.imdsv1")
    assert instance["metadata_options"] == [{"http_tokens": "optional"}]
    assert instance["ebs_block_device"] == [
        {"volume_size": 100, "encrypted": False, "device_name": "/dev/sdb"}
    ]
    assert _values(export, "alicloud_oss_bucket.ali-ckpt")["lifecycle_rule"] == [
        {"expiration": [{"days": 30}], "enabled": True, "prefix": "ckpt/"}
    ]
    assert _values(export, "tencentcloud_security_group_rule_set.tc-rules")["ingress"] == [
        {"protocol": "ALL", "cidr_block": "0.0.0.0/0", "action": "ACCEPT"}
    ]
    policy = _values(export, "aws_iam_role_policy.node-admin")["policy"]
    assert isinstance(policy, str) and '"Action":"*"' in policy


def test_ids_from_other_resources_are_references(export: Export) -> None:
    configured = {
        r["address"]: r["expressions"] for r in export.plan["configuration"]["root_module"]["resources"]
    }
    assert configured == {
        "aws_instance.imdsv1": {
            "vpc_security_group_ids": {
                "references": ["aws_security_group.ssh-open.id", "aws_security_group.ssh-open"]
            }
        },
        "aws_iam_role_policy.node-admin": {
            "role": {"references": ["aws_iam_role.node.id", "aws_iam_role.node"]}
        },
    }


@pytest.mark.checkov
def test_checkov_verdicts_on_the_program(graph: ResourceGraph, checkov_bin: Path) -> None:
    (block,) = judge([graph], checkov_bin)
    failed = {(f["check_id"], f["name"]) for f in block["findings"]}
    for expected in [
        ("CKV_AWS_24", "ssh-open"),
        ("CKV_AWS_79", "imdsv1"),
        ("CKV_AWS_8", "imdsv1"),
        ("CKV_AWS_63", "node-admin"),
        ("CKV_TC_1", "tc-disk"),
        ("CKV_TC_8", "tc-rules"),
        ("CKV_GPUF_7", "trainer"),
        ("CKV_K8S_43", "trainer"),
    ]:
        assert expected in failed
    # The security group is attached (through a reference), the role has its policy: no false edges.
    assert ("CKV2_AWS_5", "ssh-open") not in failed
    assert all(
        f["urn"] and f["urn"].startswith("urn:pulumi:dev::checkov-export::") for f in block["findings"]
    )
