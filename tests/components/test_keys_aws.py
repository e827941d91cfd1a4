from __future__ import annotations

import pytest

from gpufleet.components.keys.aws import FleetKey, FleetKeyArgs

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
        "ArnLike": {
            "kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/gpufleet/*"
        }
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


WEST = "us-west-2"
PRIMARY_ARN = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/mrk-1234abcd"


def test_multi_region_byok_primary_lets_the_account_replicate_it(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: FleetKey(
            "fk",
            FleetKeyArgs(encryption="byok", account_id=ACCOUNT, region=REGION, tags=TAGS, multi_region=True),
        )
    )
    inputs = mocks.one("aws:kms/externalKey:ExternalKey", "fk-key").inputs
    assert inputs["multiRegion"] is True
    admin = statements_by_sid(inputs)["AccountAdministersKey"]["Action"]
    assert {"kms:ReplicateKey", "kms:UpdatePrimaryRegion"} <= set(admin)


def test_single_region_keys_leave_multi_region_unset_and_cannot_replicate(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build("byok"))
    inputs = mocks.one("aws:kms/externalKey:ExternalKey", "fk-key").inputs
    # Unset, not false: an existing key sees no diff.
    assert "multiRegion" not in inputs
    admin = statements_by_sid(inputs)["AccountAdministersKey"]["Action"]
    assert "kms:ReplicateKey" not in admin


def test_byok_replica_key_lives_in_its_region_with_a_regional_policy(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: FleetKey(
            "west",
            FleetKeyArgs(
                encryption="byok",
                account_id=ACCOUNT,
                region=WEST,
                tags=TAGS,
                home=False,
                replica_of=PRIMARY_ARN,
            ),
        )
    )
    assert sorted((r.type, r.name) for r in mocks.custom()) == [
        ("aws:kms/alias:Alias", "west-alias"),
        ("aws:kms/replicaExternalKey:ReplicaExternalKey", "west-key"),
    ]
    key = mocks.one("aws:kms/replicaExternalKey:ReplicaExternalKey", "west-key").inputs
    assert (key["primaryKeyArn"], key["region"], key["deletionWindowInDays"]) == (PRIMARY_ARN, WEST, 30)
    assert "keyMaterialBase64" not in key
    assert key["tags"] == TAGS
    alias = mocks.one("aws:kms/alias:Alias", "west-alias").inputs
    assert (alias["name"], alias["region"]) == ("alias/west", WEST)
    statements = statements_by_sid(key)
    # The trail and the budget alerts are the home key's; a second region's key serves its region only.
    assert sorted(statements) == [
        "AccountAdministersKey",
        "AutoScalingGrantsForVolumes",
        "AutoScalingUsesKeyForVolumes",
        "LogsEncryptLogGroups",
    ]
    assert statements["LogsEncryptLogGroups"]["Principal"] == {"Service": [f"logs.{WEST}.amazonaws.com"]}
    assert statements["LogsEncryptLogGroups"]["Condition"] == {
        "ArnLike": {
            "kms:EncryptionContext:aws:logs:arn": f"arn:aws:logs:{WEST}:{ACCOUNT}:log-group:/gpufleet/*"
        }
    }
    assert "kms:ReplicateKey" not in statements["AccountAdministersKey"]["Action"]


def test_second_region_sse_kms_key_is_a_new_rotating_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: FleetKey(
            "west",
            FleetKeyArgs(encryption="sse-kms", account_id=ACCOUNT, region=WEST, tags=TAGS, home=False),
        )
    )
    key = mocks.one("aws:kms/key:Key", "west-key").inputs
    assert (key["enableKeyRotation"], key["region"]) == (True, WEST)
    assert "multiRegion" not in key
    assert "CloudTrailEncryptsLogs" not in statements_by_sid(key)


def test_replica_args_are_checked() -> None:
    with pytest.raises(ValueError) as raised:
        FleetKeyArgs(
            encryption="sse-kms",
            account_id=ACCOUNT,
            region=WEST,
            tags=TAGS,
            multi_region=True,
            replica_of=PRIMARY_ARN,
        )
    message = str(raised.value)
    assert "replica_of: only byok keys are replicated" in message
    assert "multi_region: a replica cannot itself be a multi-Region primary" in message
    assert "home: a replica key serves a second region; set home=False" in message


def test_logs_use_the_key_for_the_fleets_log_groups_only(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: FleetKey(
            "fk",
            FleetKeyArgs(
                encryption="sse-kms",
                account_id=ACCOUNT,
                region=REGION,
                tags=TAGS,
                log_group_prefix="/gpufleet/gpufleet-dev/",
            ),
        )
    )
    statements = statements_by_sid(mocks.one("aws:kms/key:Key", "fk-key").inputs)
    assert statements["LogsEncryptLogGroups"]["Condition"] == {
        "ArnLike": {
            "kms:EncryptionContext:aws:logs:arn": (
                f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/gpufleet/gpufleet-dev/*"
            )
        }
    }


def test_byok_material_from_config_is_imported_at_creation(run_pulumi: Runner) -> None:
    material = "q" * 43 + "="
    mocks = run_pulumi(
        lambda: FleetKey(
            "bk",
            FleetKeyArgs(
                encryption="byok", account_id=ACCOUNT, region=REGION, tags=TAGS, key_material_base64=material
            ),
        )
    )
    # The SDK marks the material secret: it reaches the engine (and the state) encrypted.
    assert mocks.one("aws:kms/externalKey:ExternalKey", "bk-key").inputs["keyMaterialBase64"] == {
        "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
        "value": material,
    }


def test_key_args_refuse_material_for_generated_keys_and_bad_prefixes() -> None:
    with pytest.raises(ValueError) as raised:
        FleetKeyArgs(
            encryption="sse-kms",
            account_id=ACCOUNT,
            region=REGION,
            tags=TAGS,
            key_material_base64="abc",
            log_group_prefix="gpufleet/*",
            alias="gpufleet",
        )
    assert str(raised.value) == (
        "FleetKeyArgs: key_material_base64: only byok keys take imported material; log_group_prefix: "
        "'gpufleet/*' must start with '/', no wildcards; alias: 'gpufleet' must start with 'alias/'"
    )


def _imported_byok_with_a_user() -> None:
    import pulumi_aws as aws

    key = FleetKey(
        "fk",
        FleetKeyArgs(encryption="byok", account_id=ACCOUNT, region=REGION, tags=TAGS, material_imported=True),
    )
    aws.cloudwatch.LogGroup("logs", name="/gpufleet/fk/agent", kms_key_id=key.key_arn, tags=TAGS)


def test_imported_byok_key_is_used_only_once_enabled() -> None:
    from gpufleet.components.keys.aws import KeyMaterialError, _usable

    arn = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1234"
    assert _usable("fk", REGION, arn, "Enabled") == arn
    assert _usable("fk", REGION, arn, None) == arn  # state not given: nothing to judge
    assert _usable("fk", REGION, arn, "fk-key-key-state") == arn  # an offline placeholder
    with pytest.raises(KeyMaterialError) as raised:
        _usable("fk", REGION, arn, "PendingImport")
    # A first deploy with byok_material: imported and no material in: the key is built (the pending
    # phase, in effect), and the deploy stops before anything is encrypted with it.
    assert str(raised.value) == (
        f"fk: the BYOK key {arn} ({REGION}) is PendingImport: its material is not imported, so nothing "
        "that uses it was created. Import the material into it and its replicas (docs/first-deploy.md, "
        "section 3, step 2) and run pulumi up again. A first deploy sets "
        "storage.checkpoints.byok_material: pending, which builds the keys only"
    )
    with pytest.raises(KeyMaterialError, match=r"is Disabled, not Enabled"):
        _usable("fk", REGION, arn, "Disabled")


def test_what_uses_an_imported_byok_key_waits_for_its_state(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: None)
    mocks.key_states["fk-key"] = "Enabled"
    run_pulumi(_imported_byok_with_a_user)
    logs = mocks.one("aws:cloudwatch/logGroup:LogGroup", "logs").inputs
    assert logs["kmsKeyId"] == f"arn:aws:kms:{REGION}:{ACCOUNT}:key/fk-key-key-id"
