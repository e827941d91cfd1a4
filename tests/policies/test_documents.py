from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from gpufleet.policies.documents import (
    UNKNOWN,
    DocumentError,
    Principal,
    action_matches,
    covered_actions,
    is_any_resource,
    is_wildcard_action,
    parse_document,
)

AWS_DOC = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "Write",
            "Effect": "Allow",
            "Action": ["s3:PutObject", "s3:Get*"],
            "Resource": "arn:aws:s3:::ckpt/*",
            "Condition": {"Bool": {"aws:SecureTransport": "true"}},
        },
        {"Effect": "Deny", "NotAction": "s3:*", "NotResource": ["arn:aws:s3:::ckpt"]},
        {
            "Effect": "Allow",
            "Action": "sts:AssumeRole",
            "Principal": {"AWS": ["arn:aws:iam::1:root", "*"], "Service": "ec2.amazonaws.com"},
        },
    ],
}


def test_aws_json_string_and_dict_parse_the_same() -> None:
    from_string = parse_document(json.dumps(AWS_DOC))
    from_dict = parse_document(AWS_DOC)
    assert from_string == from_dict
    assert from_string is not None
    assert from_string.dialect == "aws"
    assert from_string.version == "2012-10-17"
    first, second, third = from_string.statements
    assert first.sid == "Write"
    assert first.is_allow
    assert first.actions == ("s3:PutObject", "s3:Get*")
    assert first.resources == ("arn:aws:s3:::ckpt/*",)
    assert first.conditions == {"Bool": {"aws:SecureTransport": ("true",)}}
    assert first.condition_keys() == {"aws:securetransport"}
    assert not first.on_any_resource
    assert second.effect == "deny"
    assert second.not_actions == ("s3:*",)
    assert second.on_any_resource  # NotResource: every other resource
    assert third.principals == (
        Principal("AWS", "arn:aws:iam::1:root"),
        Principal("AWS", "*"),
        Principal("Service", "ec2.amazonaws.com"),
    )
    assert [p.is_wildcard for p in third.principals] == [False, True, False]
    assert [s.sid for s in from_string.allows()] == ["Write", None]


def test_proxied_document() -> None:
    proxied = unknown_checking_proxy({"policy": AWS_DOC})
    assert parse_document(proxied["policy"]) == parse_document(AWS_DOC)


def test_single_statement_object_and_principal_star() -> None:
    document = parse_document({"Statement": {"Effect": "Allow", "Action": "*", "Principal": "*"}})
    assert document is not None
    (statement,) = document.statements
    assert statement.actions == ("*",)
    assert statement.principals == (Principal("*", "*"),)
    assert statement.principals[0].is_wildcard


def test_alicloud_ram_document() -> None:
    document = parse_document(
        json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "oss:*",
                        "Resource": ["acs:oss:*:*:ckpt", "acs:oss:*:*:ckpt/*"],
                    },
                    {
                        "Effect": "Allow",
                        "Action": "sts:AssumeRole",
                        "Principal": {"RAM": ["acs:ram::1:root"]},
                    },
                ],
            }
        )
    )
    assert document is not None
    assert document.dialect == "alicloud"
    assert document.statements[1].principals == (Principal("RAM", "acs:ram::1:root"),)


def test_tencent_cam_document_lower_case() -> None:
    document = parse_document(
        {
            "version": "2.0",
            "statement": [
                {
                    "effect": "allow",
                    "action": ["name/cos:PutObject", "cos:GetObject"],
                    "resource": ["qcs::cos:ap-guangzhou:uid/1:ckpt-1/*"],
                    "principal": {"qcs": ["qcs::cam::uin/1:root"]},
                    "condition": {"ip_equal": {"qcs:ip": "10.0.0.0/8"}},
                }
            ],
        }
    )
    assert document is not None
    assert document.dialect == "tencentcloud"
    (statement,) = document.statements
    assert statement.is_allow
    assert statement.principals == (Principal("qcs", "qcs::cam::uin/1:root"),)
    assert statement.condition_keys() == {"qcs:ip"}
    assert statement.grants("cos:getobject")


def test_missing_and_invalid_documents() -> None:
    assert parse_document(None) is None
    assert parse_document("") is None
    with pytest.raises(DocumentError, match="not valid JSON"):
        parse_document("{nope")
    with pytest.raises(DocumentError, match="not a JSON object"):
        parse_document("[1]")
    with pytest.raises(DocumentError, match="has no Statement"):
        parse_document({"Version": "2012-10-17"})


def test_unknowns() -> None:
    with pytest.raises(UnknownValueError):
        parse_document(UNKNOWN_STRING_VALUE, "policy")
    with pytest.raises(UnknownValueError) as error:
        parse_document({"Statement": [{"Effect": "Allow", "Action": UNKNOWN_STRING_VALUE}]}, "policy")
    assert error.value.message == "string value at .policy.Statement.0.Action can't be known during preview"
    # An unknown resource or principal is a reference, never a wildcard.
    document = parse_document(
        {"Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": [UNKNOWN_STRING_VALUE]}]}
    )
    assert document is not None
    assert document.statements[0].resources == (UNKNOWN,)
    assert not document.statements[0].on_any_resource


@pytest.mark.parametrize(
    ("pattern", "action", "expected"),
    [
        ("s3:Put*", "s3:PutObject", True),
        ("S3:PUT*", "s3:putobject", True),
        ("s3:Put*", "s3:GetObject", False),
        ("*", "iam:PassRole", True),
        ("iam:*Policy", "iam:AttachRolePolicy", True),
        ("iam:Get?ole", "iam:GetRole", True),
        ("s3:PutObject", "s3:PutObjectAcl", False),
    ],
)
def test_action_matches(pattern: str, action: str, expected: bool) -> None:
    assert action_matches(pattern, action) is expected


def test_wildcard_helpers() -> None:
    assert is_wildcard_action("*")
    assert is_wildcard_action("s3:*")
    assert not is_wildcard_action("s3:Get*")
    assert is_any_resource("*")
    assert is_any_resource("acs:*:*:*:*")
    assert is_any_resource("arn:aws:*:*:*:*")
    assert not is_any_resource("arn:aws:s3:::*")
    assert not is_any_resource("qcs::cos:ap-guangzhou:uid/1:b/*")


def test_not_action_grants_everything_else() -> None:
    document = parse_document({"Statement": [{"Effect": "Allow", "NotAction": ["iam:*"], "Resource": "*"}]})
    assert document is not None
    statement = document.statements[0]
    assert covered_actions(statement, ["iam:PassRole", "s3:PutObject"]) == ["s3:PutObject"]


@given(st.from_regex(r"[a-z0-9]{1,8}:[A-Za-z]{1,12}", fullmatch=True))
def test_service_wildcard_covers_every_action_of_its_service(action: str) -> None:
    service = action.split(":", 1)[0]
    assert action_matches(f"{service}:*", action)
    assert action_matches(action.upper(), action)


def test_dialects_that_claim_one_unnamed_document_are_refused_naming_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import types

    from gpufleet.policies import documents

    def dialect(name: str, lower: bool, version: str | None) -> types.ModuleType:
        module = types.ModuleType(name)
        module.LOWER_CASE_KEYS = lower  # type: ignore[attr-defined]
        module.VERSION = version  # type: ignore[attr-defined]
        return module

    monkeypatch.setattr(
        documents,
        "DIALECTS",
        {"aws": dialect("d.one", False, None), "alicloud": dialect("d.two", False, None)},
    )
    with pytest.raises(ValueError, match=r"d\.one and d\.two both give LOWER_CASE_KEYS = False"):
        documents._recognised()
    monkeypatch.setattr(documents, "DIALECTS", {"aws": dialect("d.one", False, None)})
    with pytest.raises(ValueError, match=r"none of d\.one gives LOWER_CASE_KEYS = True"):
        documents._recognised()
