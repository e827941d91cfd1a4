"""Ids, ARNs and names the mocks derive from a secret input use the secret's value, never its wire
wrapper (`arn:aws:s3:::{'4dabf…': …, 'value': …}`); the echoed input stays a secret."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime.mocks import MockResourceArgs

from gpufleet.engine import run_program
from gpufleet.graph import SECRET_SIG_KEY
from gpufleet.mocks import FleetMocks
from tests.cli.helpers import invoke
from tests.engine.projects import write_project

SIG = "1b47061264138c4ac30d75fd1eb44270"


def _secret(value: Any) -> dict[str, Any]:
    return {SECRET_SIG_KEY: SIG, "value": value}


@pytest.mark.parametrize(
    ("token", "inputs", "field", "expected"),
    [
        ("aws:s3/bucket:Bucket", {"bucket": _secret("bucket-hunter2")}, "arn", "arn:aws:s3:::bucket-hunter2"),
        (
            "aws:iam/role:Role",
            {"name": _secret("role-hunter2")},
            "arn",
            "arn:aws:iam::123456789012:role/role-hunter2",
        ),
        ("alicloud:ram/role:Role", {"roleName": _secret("ram-hunter2")}, "name", "ram-hunter2"),
        (
            "tencentcloud:Cos/bucket:Bucket",
            {"bucket": _secret("cos-hunter2")},
            "cosBucketUrl",
            "cos-hunter2.cos.ap-guangzhou.myqcloud.com",
        ),
    ],
)
def test_derived_values_use_the_secret_value(
    token: str, inputs: dict[str, Any], field: str, expected: str
) -> None:
    mocks = FleetMocks({"aws:region": "us-east-1", "tencentcloud:region": "ap-guangzhou"})
    resource_id, outputs = mocks.new_resource(MockResourceArgs(token, "x", inputs, custom=True))
    assert outputs[field] == expected
    assert SECRET_SIG_KEY not in str(resource_id)
    for key, value in inputs.items():
        # The echoed input keeps its wrapper: the program still sees a secret.
        assert outputs[key] == value


def test_kubernetes_metadata_name_from_a_secret() -> None:
    mocks = FleetMocks({})
    metadata = {"name": _secret("ns-hunter2")}
    resource_id, outputs = mocks.new_resource(
        MockResourceArgs("kubernetes:core/v1:Namespace", "ns", {"metadata": metadata}, custom=True)
    )
    assert resource_id == "ns-hunter2"
    assert outputs["metadata"]["name"] == metadata["name"]
    assert isinstance(outputs["metadata"]["uid"], str)


def test_a_program_never_sees_the_wrapper_and_plan_json_hides_the_value(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_aws as aws

        bucket = aws.s3.Bucket("b", bucket=pulumi.Output.secret("bucket-hunter2"))
        pulumi.export("arn", bucket.arn)
        """,
        stacks={"dev": "config:\\n  aws:region: us-east-1\\n"},
    )
    graph = run_program(root, "dev")
    [resource] = [r for r in graph if r.type == "aws:s3/bucket:Bucket"]
    assert resource.outputs["arn"] == "arn:aws:s3:::bucket-hunter2"
    assert resource.id == "bucket-hunter2"
    graph_file = tmp_path / "graph.json"
    run = invoke("plan", str(root), "-s", "dev", "--json", str(graph_file))
    assert run.exit_code == 0, run.stderr
    text = graph_file.read_text()
    assert "hunter2" not in text and SECRET_SIG_KEY not in text
    assert '"arn": "arn:aws:s3:::[secret]"' in text
