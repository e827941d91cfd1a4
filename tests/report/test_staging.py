"""The report and graph writers stage under names of their own (a fixed `.tmp` name collides between
concurrent runs), and the graph file never holds a secret in plain text."""

from __future__ import annotations

from pathlib import Path

from gpufleet.evaluate import StackResult
from gpufleet.graph import SECRET_SIG_KEY, Resource, ResourceGraph
from gpufleet.report import write_reports

SECRET = {SECRET_SIG_KEY: "1b47061264138c4ac30d75fd1eb44270", "value": "hunter2-token"}


def test_write_reports_does_not_use_a_fixed_staging_name(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    # Another run's staging file under the old fixed name (here a directory: it cannot be overwritten).
    (out / "gpufleet.json.tmp").mkdir()
    rendered = write_reports([StackResult(stack="dev", project="p", resources=0)], ["json"], out)
    assert (out / "gpufleet.json").read_text() == rendered["json"]
    assert sorted(p.name for p in out.iterdir()) == ["gpufleet.json", "gpufleet.json.tmp"]


def test_graph_write_stages_uniquely_and_redacts(tmp_path: Path) -> None:
    graph = ResourceGraph(
        project="p",
        stack="dev",
        resources=[
            Resource(
                urn="urn:pulumi:dev::p::aws:ssm/parameter:Parameter::token",
                type="aws:ssm/parameter:Parameter",
                name="token",
                custom=True,
                inputs={"value": SECRET},
                outputs={
                    "value": SECRET,
                    "arn": "arn:aws:ssm:us-east-1:123456789012:parameter/hunter2-token",
                },
            )
        ],
    )
    path = tmp_path / "graph.json"
    (tmp_path / "graph.json.tmp").mkdir()
    graph.write(path)
    text = path.read_text()
    assert "hunter2" not in text and SECRET_SIG_KEY not in text
    [resource] = ResourceGraph.read(path)
    assert resource.inputs == {"value": "[secret]"}
    assert resource.outputs["arn"] == "arn:aws:ssm:us-east-1:123456789012:parameter/[secret]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.json", "graph.json.tmp"]
