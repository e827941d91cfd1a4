"""NaN and infinity never reach a JSON output: a program's non-finite inputs are kept as protobuf's string
markers and named in a note, and a cost that overflows to infinity is written as null with a note."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import invoke
from tests.engine.projects import write_project

STACK = "config:\n  aws:region: us-east-1\n"


def _strict(text: str) -> object:
    def reject(constant: str) -> object:
        raise AssertionError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=reject)


def test_nan_inputs_are_markers_named_in_a_note(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_aws as aws

        aws.ec2.SecurityGroup(
            "sg",
            ingress=[{"from_port": float("nan"), "to_port": float("-inf"), "protocol": "tcp",
                      "cidr_blocks": ["10.0.0.0/8"]}],
        )
        pulumi.export("ratio", float("inf"))
        """,
        stacks={"dev": STACK},
    )
    graph_file = tmp_path / "graph.json"
    run = invoke("plan", str(root), "-s", "dev", "--json", str(graph_file))
    assert run.exit_code == 0, run.stderr
    graph = _strict(graph_file.read_text())
    assert isinstance(graph, dict)
    [sg] = [r for r in graph["resources"] if r["type"] == "aws:ec2/securityGroup:SecurityGroup"]
    assert sg["inputs"]["ingress"][0]["fromPort"] == "NaN"
    assert sg["inputs"]["ingress"][0]["toPort"] == "-Infinity"
    assert graph["outputs"]["ratio"] == "Infinity"
    assert (
        "aws:ec2/securityGroup:SecurityGroup 'sg': inputs.ingress[0].fromPort, inputs.ingress[0].toPort are "
        "not a finite number (NaN or infinity), which JSON and the Pulumi engine cannot carry; kept as the "
        'string "NaN" or "Infinity", so policies judge it as malformed: fix the program'
    ) in graph["notes"]
    assert any(
        n.startswith("pulumi:pulumi:Stack 'scratch-dev': outputs.ratio is not a finite")
        for n in graph["notes"]
    )

    check = invoke("check", str(root), "-s", "dev", "--format", "json")
    assert check.exit_code in (0, 1), check.stderr
    _strict(check.stdout)


def test_an_overflowing_cost_is_null_with_a_note(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_aws as aws

        lt = aws.ec2.LaunchTemplate("lt", instance_type="g5.xlarge", image_id="ami-123")
        aws.autoscaling.Group("asg", max_size=10**307, min_size=0, availability_zones=["us-east-1a"],
                              launch_template={"id": lt.id, "version": "$Latest"})
        """,
        stacks={"dev": STACK},
    )
    run = invoke("check", str(root), "-s", "dev", "--format", "json")
    assert run.exit_code == 1, run.stderr
    document = _strict(run.stdout)
    assert isinstance(document, dict)
    cost = document["stacks"][0]["cost"]
    assert cost["monthly_estimate"] is None
    assert cost["notes"] == [
        "cost.monthly_estimate: not a finite number (NaN or beyond a double, e.g. from a size of 10**307); "
        "written as null"
    ]
    sarif = invoke("check", str(root), "-s", "dev", "--format", "sarif")
    _strict(sarif.stdout)
