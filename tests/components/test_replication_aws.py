"""Two-way checkpoint replication between the home bucket and its copy in a second region."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.storage.aws import (
    CheckpointBucket,
    CheckpointBucketArgs,
    CheckpointReplication,
    CheckpointReplicationArgs,
    ReplicatedBucket,
)

from .builders import ACCOUNT, KEY_ARN, REGION, TAGS
from .conftest import Runner, document, statements_by_sid

WEST = "us-west-2"
WEST_KEY_ARN = f"arn:aws:kms:{WEST}:{ACCOUNT}:key/mrk-1234abcd"
HOME_ARN = "arn:aws:s3:::home-bucket-0a1b2c3"
WEST_ARN = "arn:aws:s3:::west-bucket-0a1b2c3"
REPLICATION = "aws:s3/bucketReplicationConfig:BucketReplicationConfig"


def _build() -> None:
    home = CheckpointBucket(
        "home",
        CheckpointBucketArgs(kms_key_arn=KEY_ARN, tags=TAGS, classification="restricted", region=REGION),
    )
    west = CheckpointBucket(
        "west",
        CheckpointBucketArgs(kms_key_arn=WEST_KEY_ARN, tags=TAGS, classification="restricted", region=WEST),
    )
    CheckpointReplication(
        "repl",
        CheckpointReplicationArgs(
            primary=ReplicatedBucket(bucket=home, kms_key_arn=KEY_ARN, region=REGION),
            replica=ReplicatedBucket(bucket=west, kms_key_arn=WEST_KEY_ARN, region=WEST),
            tags=TAGS,
            account_id=ACCOUNT,
        ),
    )


def _rule(destination_arn: str, key_arn: str) -> dict[str, Any]:
    return {
        "id": "replicate-everything",
        "status": "Enabled",
        "priority": 1,
        "filter": {"prefix": ""},
        "deleteMarkerReplication": {"status": "Enabled"},
        "sourceSelectionCriteria": {
            "sseKmsEncryptedObjects": {"status": "Enabled"},
            "replicaModifications": {"status": "Enabled"},
        },
        "destination": {
            "bucket": destination_arn,
            "storageClass": "STANDARD",
            "encryptionConfiguration": {"replicaKmsKeyId": key_arn},
        },
    }


def test_children_are_a_role_its_policy_and_one_configuration_per_direction(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build)
    own = sorted((r.type, r.name) for r in mocks.registrations if r.name.startswith("repl"))
    assert own == [
        ("aws:iam/role:Role", "repl-role"),
        ("aws:iam/rolePolicy:RolePolicy", "repl-permissions"),
        (REPLICATION, "repl-to-primary"),
        (REPLICATION, "repl-to-replica"),
        ("gpufleet:storage:CheckpointReplication", "repl"),
    ]
    role = mocks.one("aws:iam/role:Role", "repl-role").inputs
    assert role["tags"] == TAGS
    assert "region" not in role  # IAM is global


def test_each_direction_replicates_deletes_and_kms_objects_into_the_other_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build)
    role_arn = f"arn:aws:iam:{REGION}:{ACCOUNT}:role/repl-role-0a1b2c3"
    to_replica = mocks.one(REPLICATION, "repl-to-replica").inputs
    assert to_replica == {
        "bucket": "home-bucket-0a1b2c3",
        "role": role_arn,
        "region": REGION,
        "rules": [_rule(WEST_ARN, WEST_KEY_ARN)],
    }
    to_primary = mocks.one(REPLICATION, "repl-to-primary").inputs
    assert to_primary == {
        "bucket": "west-bucket-0a1b2c3",
        "role": role_arn,
        "region": WEST,
        "rules": [_rule(HOME_ARN, KEY_ARN)],
    }


def test_role_is_trusted_by_s3_only_for_this_account(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build)
    trust = document(mocks.one("aws:iam/role:Role", "repl-role").inputs, "assumeRolePolicy")
    # aws:SourceAccount: another account's replication configuration cannot borrow the role.
    assert trust["Statement"] == [
        {
            "Sid": "S3AssumesRoleForReplication",
            "Effect": "Allow",
            "Action": ["sts:AssumeRole"],
            "Principal": {"Service": ["s3.amazonaws.com"]},
            "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
        }
    ]


def test_permissions_name_both_buckets_and_both_keys_and_nothing_else(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build)
    statements = statements_by_sid(mocks.one("aws:iam/rolePolicy:RolePolicy", "repl-permissions").inputs)
    objects = [f"{HOME_ARN}/*", f"{WEST_ARN}/*"]
    assert statements["ReadReplicationConfiguration"]["Action"] == [
        "s3:GetReplicationConfiguration",
        "s3:ListBucket",
    ]
    assert statements["ReadReplicationConfiguration"]["Resource"] == [HOME_ARN, WEST_ARN]
    assert statements["ReadSourceVersions"]["Resource"] == objects
    assert statements["WriteReplicas"] == {
        "Sid": "WriteReplicas",
        "Effect": "Allow",
        "Action": ["s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags"],
        "Resource": objects,
    }
    for label, key, region, bucket in (
        ("Primary", KEY_ARN, REGION, HOME_ARN),
        ("Replica", WEST_KEY_ARN, WEST, WEST_ARN),
    ):
        condition = {
            "StringEquals": {"kms:ViaService": f"s3.{region}.amazonaws.com"},
            "StringLike": {"kms:EncryptionContext:aws:s3:arn": [bucket, f"{bucket}/*"]},
        }
        assert statements[f"Decrypt{label}Objects"] == {
            "Sid": f"Decrypt{label}Objects",
            "Effect": "Allow",
            "Action": ["kms:Decrypt"],
            "Resource": [key],
            "Condition": condition,
        }
        assert statements[f"Encrypt{label}Replicas"]["Action"] == ["kms:Encrypt", "kms:GenerateDataKey"]
        assert statements[f"Encrypt{label}Replicas"]["Resource"] == [key]
        assert statements[f"Encrypt{label}Replicas"]["Condition"] == condition
    every_resource = {r for s in statements.values() for r in s["Resource"]}
    assert every_resource == {HOME_ARN, WEST_ARN, *objects, KEY_ARN, WEST_KEY_ARN}
    assert all(not a.endswith("*") for s in statements.values() for a in s["Action"])


def test_replica_is_hardened_like_the_primary_in_its_own_region(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build)

    def settings(prefix: str) -> dict[str, Any]:
        found = {}
        for registration in mocks.custom():
            if registration.name.startswith(f"{prefix}-"):
                inputs = {k: v for k, v in registration.inputs.items() if k not in ("bucket", "policy")}
                found[registration.name.removeprefix(f"{prefix}-")] = inputs
        return found

    home, west = settings("home"), settings("west")
    assert sorted(west) == ["bucket", "encryption", "lifecycle", "policy", "public-access", "versioning"]
    assert all(inputs["region"] == WEST for inputs in west.values())
    encryption = west["encryption"]["rules"][0]["applyServerSideEncryptionByDefault"]
    assert encryption == {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": WEST_KEY_ARN}
    # S3 does not replicate lifecycle actions: the replica expires its own copies on the same days.
    for name in ("lifecycle", "public-access", "versioning"):
        assert {**west[name], "region": REGION} == home[name], name
    assert west["bucket"]["tags"] == home["bucket"]["tags"]
    west_policy = statements_by_sid(mocks.one("aws:s3/bucketPolicy:BucketPolicy", "west-policy").inputs)
    assert west_policy["DenyInsecureTransport"]["Resource"] == [WEST_ARN, f"{WEST_ARN}/*"]
    # The replica accepts uploads under its own region's key only.
    assert west_policy["DenyOtherKmsKeys"]["Condition"] == {
        "StringNotEqualsIfExists": {"s3:x-amz-server-side-encryption-aws-kms-key-id": WEST_KEY_ARN}
    }


def test_args_refuse_a_replica_in_the_same_region() -> None:
    with pytest.raises(ValueError) as raised:
        _args_in(REGION, REGION)
    assert "replica.region: us-east-1 is the primary's region too" in str(raised.value)
    with pytest.raises(ValueError, match=r"replica.region: 'uswest2' is not an AWS region name"):
        _args_in(REGION, "uswest2")


def _args_in(primary_region: str, replica_region: str) -> CheckpointReplicationArgs:
    # Region checks run before any bucket output is read, so placeholders stand in for the buckets.
    bucket: Any = object()
    return CheckpointReplicationArgs(
        primary=ReplicatedBucket(bucket=bucket, kms_key_arn=KEY_ARN, region=primary_region),
        replica=ReplicatedBucket(bucket=bucket, kms_key_arn=WEST_KEY_ARN, region=replica_region),
        tags=TAGS,
        account_id=ACCOUNT,
    )
