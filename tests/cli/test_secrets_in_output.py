"""A secret the program uses (a CIDR, an instance type, an IAM action read with
`config.require_secret`) is never shown: not in any report format of `check`, not in `cost`, `advise`
or `plan`. Where a message would quote it, it says `[secret]`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet import evaluate
from gpufleet.checkov import command as checkov_command
from gpufleet.engine import run_program
from tests.cli.helpers import invoke
from tests.engine.projects import write_project

CIDR = "0.0.0.0/0"
INSTANCE_TYPE = "p4d.24xlarge"
ACTION = "iam:PassRole"
SECRETS = (CIDR, INSTANCE_TYPE, ACTION)

PROGRAM = """
import json

import pulumi
import pulumi_aws as aws

action = pulumi.Config().require_secret("action")
ssh = aws.ec2.SecurityGroup(
    "ssh",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp", from_port=22, to_port=22, cidr_blocks=[pulumi.Output.secret("0.0.0.0/0")]
        )
    ],
)
aws.ec2.Instance(
    "box",
    ami="ami-0123456789abcdef0",
    instance_type=pulumi.Output.secret("p4d.24xlarge"),
    vpc_security_group_ids=[ssh.id],
)
aws.iam.Policy(
    "wide",
    policy=action.apply(
        lambda a: json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": [a], "Resource": "*"}]}
        )
    ),
)
"""
STACK = "config:\n  aws:region: us-east-1\n  scratch:action: iam:PassRole\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("secrets") / "p", PROGRAM, stacks={"dev": STACK})


def _assert_hidden(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} shown in:\n{text}"


@pytest.mark.parametrize("fmt", ["json", "text", "sarif", "junit", "markdown"])
def test_check_reports_never_show_a_secret(project: Path, fmt: str) -> None:
    run = invoke("check", str(project), "-s", "dev", "--format", fmt, "--no-checkov")
    assert run.exit_code == 1, run.stdout + run.stderr
    _assert_hidden(run.stdout, run.stderr)
    assert "[secret]" in run.stdout


def test_check_json_says_secret_where_the_message_quoted_the_value(project: Path) -> None:
    run = invoke("check", str(project), "-s", "dev", "--format", "json", "--no-checkov")
    [stack] = json.loads(run.stdout)["stacks"]
    messages = {v["rule_id"]: v["message"] for v in stack["violations"]}
    assert "ingress from [secret] (ingress rule 1)" in messages["GF-ACC-001"]
    assert "TCP 22" in messages["GF-ACC-001"]  # the port is no secret: only the CIDR is
    assert "uses [secret] (A100)" in messages["GF-COST-003"]
    assert "privilege-escalation actions [secret] on '*'" in messages["GF-IAM-006"]
    # The instance type was priced all the same; the cost block names it `[secret]`.
    assert stack["cost"]["monthly_estimate"] > 0
    _assert_hidden(json.dumps(stack["cost"]))


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_cost_never_shows_a_secret_instance_type(project: Path, fmt: str) -> None:
    run = invoke("cost", str(project), "-s", "dev", "--format", fmt)
    assert run.exit_code == 0, run.stdout + run.stderr
    _assert_hidden(run.stdout, run.stderr)
    assert "[secret]" in run.stdout
    if fmt == "json":
        [pool] = json.loads(run.stdout)["pools"]
        assert pool["instance_type"] == "[secret]"
        assert pool["monthly_estimate"] > 0  # priced all the same


def test_advise_never_shows_a_secret_instance_type(project: Path) -> None:
    run = invoke("advise", "buy-vs-rent", str(project), "-s", "dev")
    assert run.exit_code == 0, run.stdout + run.stderr
    _assert_hidden(run.stdout, run.stderr)
    assert "box ([secret])" in run.stdout


def test_plan_and_plan_json_never_show_a_secret(project: Path, tmp_path: Path) -> None:
    graph_file = tmp_path / "graph.json"
    run = invoke("plan", str(project), "-s", "dev", "--json", str(graph_file))
    assert run.exit_code == 0, run.stdout + run.stderr
    _assert_hidden(run.stdout, run.stderr, graph_file.read_text())
    assert "type=[secret]" in run.stdout
    # The config value the program reads as a secret is shown as one too.
    assert json.loads(graph_file.read_text())["config"]["scratch:action"] == "[secret]"


def test_checkov_findings_are_redacted(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = run_program(project, "dev")
    result = evaluate.StackResult(stack="dev", project="scratch", resources=len(graph))

    def blocks(self: object, graphs: object) -> list[dict[str, object]]:
        finding = {"check_id": "CKV_X", "check_name": f"ingress from {CIDR} on {INSTANCE_TYPE}"}
        return [{"status": "ran", "passed": 0, "failed": 1, "findings": [finding]}]

    monkeypatch.setattr(checkov_command.Judge, "blocks", blocks)
    checkov_command.attach([result], [graph], Path("checkov"), enabled=True, skips={}, pack_seconds=[0.0])
    assert result.checkov["findings"][0]["check_name"] == "ingress from [secret] on [secret]"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_preflight_never_shows_a_secret_instance_type(project: Path, fmt: str) -> None:
    run = invoke("preflight", str(project), "-s", "dev", "--offline", "--format", fmt)
    assert run.exit_code == 0, run.stdout + run.stderr
    _assert_hidden(run.stdout, run.stderr)
    assert "[secret]" in run.stdout  # the pool that needs the quota, named by its type
