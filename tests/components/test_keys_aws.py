from __future__ import annotations

import pytest

from components.keys.aws import FleetKey, FleetKeyArgs

from .builders import ACCOUNT, REGION, TAGS
from .conftest import Runner, document, statements_by_sid


def _build(encryption: str):  # type: ignore[no-untyped-def]
    return lambda: FleetKey(
        "fk",
        FleetKeyArgs(
            encryption=encryption,  # type: ignore[arg-type]
            account_id=ACCOUNT,
            region=REGION,
            tags=TAGS,
        ),
    )


def test_sse_kms_key_rotates_and_has_an_alias(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build("sse-kms"))
    assert sorted((r.type, r.name) for r in mocks.custom()) == [
        ("aws:kms/alias:Alias", "fk-alias"),
        ("aws:kms/key:Key", "fk-key"),
    ]
    key = mocks.one("aws:kms/key:Key", "fk-key").inputs
    assert key["enableKeyRotation"] is True
    assert key["deletionWindowInDays"] == 30
    assert mocks.one("aws:kms/alias:Alias", "fk-alias").inputs["name"] == "alias/fk"
    assert mocks.one("gpufleet:keys:FleetKey", "fk").custom is False


def test_byok_key_is_an_external_key_without_rotation(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build("byok"))
    assert mocks.of_type("aws:kms/key:Key") == []
    key = mocks.one("aws:kms/externalKey:ExternalKey", "fk-key").inputs
    assert "enableKeyRotation" not in key
    assert "keyMaterialBase64" not in key  # material is imported out of band, never stored in state


def test_key_policy_names_the_account_and_scopes_services(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build("sse-kms"))
    inputs = mocks.one("aws:kms/key:Key", "fk-key").inputs
    statements = statements_by_sid(inputs)
    assert document(inputs)["Version"] == "2012-10-17"
    for statement in statements.values():
        assert statement["Effect"] == "Allow"
        assert statement["Principal"] != "*"
        for values in statement["Principal"].values():
            assert "*" not in values
        assert "kms:*" not in statement["Action"]
    assert statements["AccountAdministersKey"]["Principal"] == {"AWS": [f"arn:aws:iam::{ACCOUNT}:root"]}
    assert statements["LogsEncryptLogGroups"]["Principal"] == {"Service": [f"logs.{REGION}.amazonaws.com"]}
    assert statements["LogsEncryptLogGroups"]["Condition"] == {
        "ArnLike": {"kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:*"}
    }
    assert statements["CloudTrailEncryptsLogs"]["Condition"] == {
        "StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": f"arn:aws:cloudtrail:*:{ACCOUNT}:trail/*"},
        "StringEquals": {"aws:SourceAccount": ACCOUNT},
    }
    assert statements["AutoScalingGrantsForVolumes"]["Condition"] == {
        "Bool": {"kms:GrantIsForAWSResource": "true"}
    }


def test_key_args_report_every_problem_at_once() -> None:
    with pytest.raises(ValueError, match="missing cost tag 'env'") as raised:
        FleetKeyArgs(
            encryption="aes",  # type: ignore[arg-type]
            account_id=ACCOUNT,
            region=REGION,
            tags={"project": "p", "team": "t", "cost-center": "c"},
            deletion_window_days=3,
        )
    message = str(raised.value)
    assert "encryption: 'aes' is not one of 'sse-kms', 'byok'" in message
    assert "deletion_window_days: 3 is outside 7..30" in message
