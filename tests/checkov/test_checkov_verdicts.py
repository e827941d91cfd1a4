"""checkov's own verdicts on the exported fixture, by check id and Pulumi URN (needs checkov)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov.merge import judge
from tests.checkov.fixtures import BUCKET, SG, fixture_graph, urn

pytestmark = pytest.mark.checkov


@pytest.fixture(scope="module")
def block(checkov_bin: Path) -> dict[str, Any]:
    (result,) = judge([fixture_graph()], checkov_bin)
    return result


def _failed(block: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["check_id"], f["urn"]) for f in block["findings"]}


def test_checkov_ran_over_every_exported_resource(block: dict[str, Any]) -> None:
    assert block["status"] == "ran"
    assert block["note"] == "not exported (no Terraform type known): aws:lambda/function:Function"
    assert block["exported"] == {
        "resources": 12,
        "kubernetes_objects": 1,
        "unmapped_types": {"aws:lambda/function:Function": 1},
    }
    assert block["failed"] == len(block["findings"])
    assert block["passed"] > 0
    assert all(f["urn"] for f in block["findings"])


def test_findings_on_objects_checkov_derives_map_to_their_source(block: dict[str, Any]) -> None:
    # checkov judges the Deployment's pod template as a Pod of its own (`Pod.ml.trainer.app-trainer`).
    derived = [f for f in block["findings"] if f["resource"].startswith("Pod.ml.trainer")]
    assert derived
    assert {f["urn"] for f in derived} == {urn("kubernetes:apps/v1:Deployment", "trainer")}


@pytest.mark.parametrize(
    ("check_id", "token", "name"),
    [
        ("CKV_AWS_24", SG, "ssh-open"),  # SSH open to the world
        ("CKV_AWS_79", "aws:ec2/instance:Instance", "imdsv1"),  # IMDSv1 allowed
        ("CKV_AWS_8", "aws:ec2/instance:Instance", "imdsv1"),  # an unencrypted EBS block device
        ("CKV2_AWS_61", BUCKET, "ckpt"),  # no lifecycle configuration
        ("CKV_AWS_62", "aws:iam/rolePolicy:RolePolicy", "node-admin"),  # "*" on "*": full admin
        ("CKV_AWS_63", "aws:iam/rolePolicy:RolePolicy", "node-admin"),  # "*" as an action
        ("CKV_ALI_6", "alicloud:oss/bucket:Bucket", "ali-ckpt"),  # not encrypted with a KMS key
        ("CKV_TC_1", "tencentcloud:Cbs/storage:Storage", "tc-disk"),  # unencrypted CBS
        ("CKV_K8S_16", "kubernetes:apps/v1:Deployment", "trainer"),  # privileged container
    ],
)
def test_known_flaws_found_on_the_right_resource(
    block: dict[str, Any], check_id: str, token: str, name: str
) -> None:
    assert (check_id, urn(token, name)) in _failed(block)


def test_graph_checks_follow_references(block: dict[str, Any]) -> None:
    # The public-access block refers to the bucket by a Terraform reference, so the bucket passes the
    # graph check that wants one; with a literal bucket name it would fail.
    assert ("CKV2_AWS_6", urn(BUCKET, "ckpt")) not in _failed(block)
    # The instance uses the security group: it is attached.
    assert ("CKV2_AWS_5", urn(SG, "ssh-open")) not in _failed(block)


def test_skipped_checks_are_not_run(checkov_bin: Path) -> None:
    (result,) = judge([fixture_graph()], checkov_bin, skip_checks={"CKV_AWS_24": "fixture"})
    assert ("CKV_AWS_24", urn(SG, "ssh-open")) not in _failed(result)
    assert ("CKV_AWS_79", urn("aws:ec2/instance:Instance", "imdsv1")) in _failed(result)
    assert result["skipped_checks"] == {"CKV_AWS_24": "fixture"}


def test_explain_overlap_on_the_same_resources(checkov_bin: Path) -> None:
    from gpufleet.checkov.command import attach
    from gpufleet.evaluate import Finding, StackResult

    result = StackResult(stack="fixture", project="proj", resources=15)
    result.violations = [
        Finding(
            "GF-ACC-001",
            "no-ssh-rdp-ingress",
            "mandatory",
            "high",
            "crossguard",
            urn(SG, "ssh-open"),
            SG,
            "ssh",
            "",
        )
    ]
    attach(
        [result],
        [fixture_graph()],
        checkov_bin,
        enabled=True,
        skips={},
        pack_seconds=[0.01],
        overlap_rules=[("GF-ACC-001", ("CKV_AWS_24", "CKV_AWS_25")), ("GF-ACC-004", ("CKV_AWS_79",))],
    )
    ssh, imds = result.checkov["overlap"]
    assert (ssh["rule_id"], ssh["agree_fail"], ssh["gpufleet_only"], ssh["checkov_only"]) == (
        "GF-ACC-001",
        1,
        [],
        [],
    )
    # The pack was told of no IMDS violation here: checkov alone flags the IMDSv1 instance.
    assert imds["checkov_only"] == [
        {"urn": urn("aws:ec2/instance:Instance", "imdsv1"), "checks": ["CKV_AWS_79"]}
    ]
    assert "_passed" not in result.checkov
