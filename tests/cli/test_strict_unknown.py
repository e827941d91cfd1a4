"""`check --strict`, the CI gate: a mandatory rule that cannot judge a value unknown until apply fails
the run, naming the resource and the property; without --strict it stays the engine's advisory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import invoke
from tests.engine.projects import write_project

# The ingress CIDR is an output the provider computes when it creates the bastion: unknown at preview.
PROGRAM = """
import asyncio

import pulumi
import pulumi_aws as aws


def computed_at_apply(resource: pulumi.Resource) -> pulumi.Output[str]:
    loop = asyncio.get_event_loop()
    value, known = loop.create_future(), loop.create_future()
    value.set_result(None)
    known.set_result(False)
    return pulumi.Output({resource}, value, known)


bastion = aws.ec2.Instance("bastion", ami="ami-0123456789abcdef0", instance_type="t3.micro")
aws.ec2.SecurityGroup(
    "ssh",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp", from_port=22, to_port=22, cidr_blocks=[computed_at_apply(bastion)]
        )
    ],
)
"""
STACK = "config:\n  aws:region: us-east-1\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("strict") / "p", PROGRAM, stacks={"dev": STACK})


def _ssh_findings(*options: str, project: Path) -> tuple[int, list[dict[str, Any]]]:
    run = invoke("check", str(project), "-s", "dev", "--rules", "GF-ACC-001", "--no-checkov", *options)
    [stack] = json.loads(run.stdout)["stacks"]
    return run.exit_code, [v for v in stack["violations"] if v["urn"].endswith("::ssh")]


def test_without_strict_an_unknown_cidr_is_advisory(project: Path) -> None:
    code, [finding] = _ssh_findings(project=project)
    assert code == 0
    assert finding["enforcement"] == "advisory"
    assert finding["message"].startswith("can't run policy 'no-ssh-rdp-ingress'")
    assert ".ingress.0.cidr can't be known during preview" in finding["message"]


def test_with_strict_an_unknown_cidr_fails_the_mandatory_rule(project: Path) -> None:
    code, [finding] = _ssh_findings("--strict", project=project)
    assert code == 1
    assert (finding["rule_id"], finding["enforcement"]) == ("GF-ACC-001", "mandatory")
    assert finding["message"].startswith(
        "'ssh' could not be judged at preview: the string value at .ingress.0.cidr can't be known during "
        "preview; it is unknown until apply, and --strict fails a mandatory rule"
    )


def test_with_strict_a_rule_set_to_advisory_stays_advisory(project: Path) -> None:
    code, [finding] = _ssh_findings("--strict", "--enforce", "GF-ACC-001=advisory", project=project)
    assert code == 0
    assert finding["enforcement"] == "advisory"


def test_with_strict_the_text_report_names_resource_property_and_apply(project: Path) -> None:
    run = invoke(
        "check", str(project), "-s", "dev", "--rules", "GF-ACC-001", "--no-checkov", "--strict", "-f", "text"
    )
    assert run.exit_code == 1
    assert "GF-ACC-001 no-ssh-rdp-ingress [mandatory] (1)" in run.stdout
    assert "- ssh (aws:ec2/securityGroup:SecurityGroup): 'ssh' could not be judged at preview" in run.stdout
    assert ".ingress.0.cidr" in run.stdout
    assert "unknown until apply" in run.stdout
