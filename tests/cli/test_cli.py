"""The command line end to end on the third-party fixture: plan, check, errors, version."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpufleet import __version__, evaluate
from gpufleet.cli import app, key_settings
from gpufleet.evaluate import Finding, StackResult
from gpufleet.graph import Resource, ResourceGraph
from tests.engine.projects import PHOTO_ARCHIVE, write_project

runner = CliRunner()


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), prog_name="gpufleet")


def test_version_and_help() -> None:
    result = _invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"gpufleet {__version__}"
    for command in ("plan", "check"):
        helped = _invoke(command, "--help")
        assert helped.exit_code == 0
        assert "Examples:" in helped.stdout
        assert f"gpufleet {command}" in helped.stdout


def test_plan_groups_by_component_and_shows_key_settings(tmp_path: Path) -> None:
    graph_file = tmp_path / "graph.json"
    result = _invoke("plan", str(PHOTO_ARCHIVE), "-s", "dev", "--json", str(graph_file))
    assert result.exit_code == 0, result.stdout + result.stderr
    text = result.stdout
    assert "synthetic" in text
    assert "stack dev (project photo-archive): 8 resources in 1 component" in text
    assert "component photo:archive:Uploads uploads" in text
    assert "aws:kms/key:Key archive-key  rotation=true" in text
    assert "ingress ports=443/8443/22" in text
    assert "sse=aws:kms" in text
    assert "note: config photo-archive:db_password is a secret (secure:)" in text
    # the component's children are drawn under it
    lines = text.splitlines()
    component = next(i for i, line in enumerate(lines) if "component photo:archive:Uploads" in line)
    assert "aws:iam/role:Role uploads-role" in lines[component + 1]
    assert "aws:iam/rolePolicy:RolePolicy uploads-put" in lines[component + 2]
    data = json.loads(graph_file.read_text())
    assert data["project"] == "photo-archive" and data["stack"] == "dev" and data["synthetic"] is True
    assert len(data["resources"]) == 10
    assert not (tmp_path / "graph.json.tmp").exists()


def test_key_settings_table_walks_lists_and_skips_missing() -> None:
    template = Resource(
        urn="urn:pulumi:dev::p::aws:ec2/launchTemplate:LaunchTemplate::lt",
        type="aws:ec2/launchTemplate:LaunchTemplate",
        name="lt",
        custom=True,
        inputs={
            "instanceType": "g5.2xlarge",
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2},
            "blockDeviceMappings": [{"ebs": {"encrypted": "true", "volumeType": "gp3"}}],
        },
    )
    assert key_settings(template) == (
        "type=g5.2xlarge  IMDS=required  hop limit=2  disk encrypted=true  volume=gp3"
    )
    other = Resource(urn="u", type="aws:sns/topic:Topic", name="t", custom=True, inputs={"name": "x"})
    assert key_settings(other) == ""


def test_key_settings_label_says_which_input_it_shows() -> None:
    # An external key's `keyUsage` is its usage, not its origin (which is always EXTERNAL).
    key = Resource(
        urn="u",
        type="aws:kms/externalKey:ExternalKey",
        name="k",
        custom=True,
        inputs={"keyUsage": "ENCRYPT_DECRYPT", "enabled": True},
    )
    assert key_settings(key) == "usage=ENCRYPT_DECRYPT  enabled=true"


def test_bad_input_exits_2_with_one_paragraph_and_no_traceback(tmp_path: Path) -> None:
    unknown = _invoke("plan", str(PHOTO_ARCHIVE), "-s", "org/staging")
    assert unknown.exit_code == 2
    assert "Traceback" not in unknown.output
    assert "stack name 'org/staging' is not valid" in unknown.stderr

    failing = write_project(tmp_path / "failing", "raise RuntimeError('no GPU quota in region')\n")
    result = _invoke("plan", str(failing), "-s", "dev")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "RuntimeError: no GPU quota in region" in result.stderr

    missing = write_project(tmp_path / "missing", "import pulumi_gcp\n")
    result = _invoke("check", str(missing), "-s", "dev")
    assert result.exit_code == 2
    assert "imports 'pulumi_gcp'" in result.stderr and "not installed" in result.stderr

    bad_yaml = write_project(tmp_path / "yaml", "", stacks={"dev": "config: [\n"})
    result = _invoke("plan", str(bad_yaml), "-s", "dev")
    assert result.exit_code == 2
    assert "is not valid YAML" in result.stderr

    neither = _invoke("check", str(PHOTO_ARCHIVE))
    assert neither.exit_code == 2
    assert "pass exactly one of --stack/-s STACK or --all-stacks" in neither.stderr

    bad_format = _invoke("check", str(PHOTO_ARCHIVE), "-s", "dev", "--format", "pdf")
    assert bad_format.exit_code == 2
    assert "--format 'pdf' is not a report format" in bad_format.stderr


def _finding(enforcement: str, urn: str) -> Finding:
    return Finding(
        rule_id="GF-STOR-001",
        policy="bucket-customer-managed-key",
        enforcement=enforcement,
        severity="high",
        engine="crossguard",
        urn=urn,
        resource_type="aws:s3/bucket:Bucket",
        message="bucket is not encrypted with a customer-managed key",
        remediation="add SSE-KMS",
    )


@pytest.mark.parametrize(("enforcement", "code"), [("mandatory", 1), ("advisory", 0)])
def test_check_json_document_and_exit_code(
    monkeypatch: pytest.MonkeyPatch, enforcement: str, code: int
) -> None:
    seen: list[tuple[str, int, Mapping[str, Any] | None]] = []

    def fake_evaluate(
        graph: ResourceGraph,
        policies: Sequence[object],
        policy_config: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> StackResult:
        from gpufleet.policies.waivers import Settings

        # The waiver settings come from the project's policy config (no `waivers` object: the defaults).
        assert options == {
            "strict": False,
            "engine_rule": True,
            "waivers_from": Settings(file="policy-config.json"),
            "ignored_waivers": (),
        }
        seen.append((graph.stack, len(graph), policy_config))
        bucket = graph.of_type("aws:s3/bucket:Bucket")[0]
        return StackResult(
            stack=graph.stack,
            project=graph.project,
            resources=len(graph.custom_resources()),
            violations=[_finding(enforcement, bucket.urn)],
        )

    monkeypatch.setattr(evaluate, "evaluate_stack", fake_evaluate)
    # One after the other (`seen` is filled in this process, not in a worker's).
    result = _invoke("check", str(PHOTO_ARCHIVE), "--all-stacks", "--jobs", "1")
    assert result.exit_code == code, result.output
    document = json.loads(result.stdout)
    assert document["version"] == 1
    assert [s["stack"] for s in document["stacks"]] == ["dev", "prod"]
    assert document["stacks"][0]["resources"] == 8
    assert document["stacks"][0]["violations"][0] == {
        "rule_id": "GF-STOR-001",
        "policy": "bucket-customer-managed-key",
        "enforcement": enforcement,
        "severity": "high",
        "engine": "crossguard",
        "urn": "urn:pulumi:dev::photo-archive::aws:s3/bucket:Bucket::archive",
        "resource_type": "aws:s3/bucket:Bucket",
        "message": "bucket is not encrypted with a customer-managed key",
        "remediation": "add SSE-KMS",
    }
    assert [(stack, size) for stack, size, _ in seen] == [("dev", 10), ("prod", 10)]


def test_check_writes_reports_to_output_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def fake_evaluate(
        graph: ResourceGraph, policies: object, policy_config: object = None, **options: bool
    ) -> StackResult:
        return StackResult(stack=graph.stack, project=graph.project, resources=len(graph))

    monkeypatch.setattr(evaluate, "evaluate_stack", fake_evaluate)
    out_dir = tmp_path / "reports"
    result = _invoke(
        "check", str(PHOTO_ARCHIVE), "-s", "prod", "--format", "json", "--output-dir", str(out_dir)
    )
    assert result.exit_code == 0, result.output
    document = json.loads((out_dir / "gpufleet.json").read_text())
    # The contract's checkov keys; the block adds its status, note and timings (tests/checkov).
    checkov = document["stacks"][0].pop("checkov")
    assert (checkov["passed"], checkov["failed"], checkov["findings"]) == (0, 0, [])
    # No waiver, none applied (tests/waivers).
    waived = document["stacks"][0].pop("waived")
    assert (waived["findings"], waived["waivers"]) == ([], [])
    assert document == {
        "version": 1,
        "stacks": [
            {
                "stack": "prod",
                "project": "photo-archive",
                "resources": 10,
                "violations": [],
                "opaque": [],
                # The program declares no GPU pool and no budget: nothing to price.
                "cost": {
                    "currency": "USD",
                    "hourly_min": 0,
                    "hourly_max": 0,
                    "monthly_estimate": 0,
                    "budget": None,
                    "budget_used_percent": None,
                },
            }
        ],
    }
    assert sorted(p.name for p in out_dir.iterdir()) == ["gpufleet.json"]


def test_check_with_the_real_policies() -> None:
    result = _invoke("check", str(PHOTO_ARCHIVE), "-s", "dev")
    document = json.loads(result.stdout)
    stack = document["stacks"][0]
    assert stack["stack"] == "dev" and stack["project"] == "photo-archive"
    mandatory = [v for v in stack["violations"] if v["enforcement"] == "mandatory"]
    assert result.exit_code == (1 if mandatory else 0)
    # the program sets none of the cost tags (project, team, cost-center, env)
    assert {v["rule_id"] for v in stack["violations"]} >= {"GF-COST-001"}


def test_python_dash_m_gpufleet() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "gpufleet", "--version"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"gpufleet {__version__}"


def test_failing_program_in_a_fresh_process_prints_one_line(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        "import ipaddress\nimport pulumi_aws as aws\n"
        "vpc = aws.ec2.Vpc('net', cidr_block=ipaddress.ip_network('10.40.0.0/16'))\n"
        "aws.ec2.Subnet('a', vpc_id=vpc.id, cidr_block='10.40.0.0/24')\n",
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    completed = subprocess.run(
        [sys.executable, "-m", "gpufleet", "plan", str(root), "-s", "dev"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [
        "error: the program __main__.py failed while registering aws:ec2/vpc:Vpc 'net': unexpected input "
        "of type IPv4Network for cidr_block in Vpc"
    ]
