"""`aws.iam.get_policy` under the offline engine: an AWS-managed name is the AWS policy's real ARN, so
attaching AdministratorAccess looked up by name is judged as attaching it by ARN; a name the engine
cannot resolve is a placeholder, and `check` says so beside its verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import invoke
from tests.engine.projects import write_project

PROGRAM = """
import json

import pulumi_aws as aws

role = aws.iam.Role(
    "runner",
    assume_role_policy=json.dumps(
        {{
            "Version": "2012-10-17",
            "Statement": [
                {{
                    "Effect": "Allow",
                    "Principal": {{"Service": "ec2.amazonaws.com"}},
                    "Action": "sts:AssumeRole",
                }}
            ],
        }}
    ),
)
managed = aws.iam.get_policy({lookup})
aws.iam.RolePolicyAttachment("runner-policy", role=role.name, policy_arn=managed.arn)
"""


def _check(tmp_path: Path, lookup: str) -> tuple[int, str, dict[str, object]]:
    """Exit status, the text report `check` prints, and its JSON report."""
    root = write_project(tmp_path / "p", PROGRAM.format(lookup=lookup))
    out = tmp_path / "out"
    run = invoke("check", str(root), "-s", "dev", "--format", "text,json", "-o", str(out))
    report = json.loads((out / "gpufleet.json").read_text())
    return run.exit_code, (out / "gpufleet.txt").read_text(), report


def _iam_003(report: dict[str, object]) -> list[tuple[str, str]]:
    [stack] = report["stacks"]  # type: ignore[index]
    return [(v["enforcement"], v["message"]) for v in stack["violations"] if v["rule_id"] == "GF-IAM-003"]


@pytest.mark.parametrize(
    ("lookup", "shown"),
    [
        ('name="AdministratorAccess"', "AdministratorAccess"),
        ('name="poweruseraccess"', "PowerUserAccess"),
        ('name="SystemAdministrator"', "SystemAdministrator"),
        ('arn="arn:aws:iam::aws:policy/IAMFullAccess"', "IAMFullAccess"),
    ],
)
def test_a_broad_aws_managed_policy_looked_up_is_a_mandatory_finding(
    tmp_path: Path, lookup: str, shown: str
) -> None:
    code, _stdout, report = _check(tmp_path, lookup)
    # Offline the lookup used to answer a synthetic customer-managed ARN, and the attachment passed.
    assert _iam_003(report) == [
        (
            "mandatory",
            f"IAM role policy attachment 'runner-policy' attaches the broad managed policy '{shown}'; "
            "attach a least-privilege policy instead",
        )
    ]
    assert code == 1


def test_a_narrow_aws_managed_policy_passes(tmp_path: Path) -> None:
    _code, stdout, report = _check(tmp_path, 'name="AmazonSSMManagedInstanceCore"')
    assert _iam_003(report) == []
    assert "getPolicy" not in stdout


def test_an_unresolved_policy_name_is_a_placeholder_said_by_check(tmp_path: Path) -> None:
    _code, stdout, report = _check(tmp_path, 'name="team-boundary"')
    assert _iam_003(report) == []
    note = (
        "invoke aws:iam/getPolicy:getPolicy: 'team-boundary' is no AWS-managed policy known offline; the "
        "program got the placeholder arn:aws:iam::"
    )
    assert f"  note: {note}" in stdout
    [stack] = report["stacks"]  # type: ignore[index]
    assert any(n.startswith(note) for n in stack["notes"])
