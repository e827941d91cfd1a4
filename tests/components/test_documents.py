from __future__ import annotations

import pytest

from gpufleet.components.identity.documents import Statement, lint


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        (Statement(sid="A", actions=("s3:*",), resources=["arn:aws:s3:::b"]), "A: wildcard action 's3:*'"),
        (Statement(sid="B", actions=("*",), resources=["arn:aws:s3:::b"]), "B: wildcard action '*'"),
        (
            Statement(sid="C", actions=("s3:PutObject",), resources=["*"]),
            "C: Resource '*' for resource-scoped actions ['s3:PutObject']",
        ),
        (Statement(sid="D", actions=("sts:AssumeRole",), principals="*"), "D: Allow to any principal"),
        (
            Statement(sid="E", actions=("sts:AssumeRole",), principals={"AWS": ["*"]}),
            "E: wildcard AWS principal",
        ),
    ],
)
def test_lint_reports_each_least_privilege_problem(statement: Statement, problem: str) -> None:
    assert lint([statement]) == [problem]


@pytest.mark.parametrize(
    "statement",
    [
        Statement(sid="Metrics", actions=("cloudwatch:PutMetricData",), resources=["*"]),
        Statement(sid="Deny", effect="Deny", principals="*", actions=("s3:*",), resources=["*"]),
        Statement(
            sid="KeyPolicy",
            principals={"AWS": ["arn:aws:iam::1:root"]},
            actions=("kms:Decrypt",),
            resources=["*"],
        ),
    ],
)
def test_lint_accepts_unscoped_actions_denies_and_resource_policies(statement: Statement) -> None:
    assert lint([statement]) == []


def test_lint_rejects_duplicate_sids() -> None:
    s = Statement(sid="Same", actions=("s3:GetObject",), resources=["arn:aws:s3:::b/*"])
    assert lint([s, s]) == ["duplicate Sid 'Same'"]


def test_statement_wire_shape() -> None:
    s = Statement(
        sid="X",
        effect="Deny",
        principals="*",
        actions=("s3:*",),
        resources=["r"],
        conditions={"Bool": {"aws:SecureTransport": "false"}},
    )
    assert s.to_dict() == {
        "Sid": "X",
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:*"],
        "Resource": ["r"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
