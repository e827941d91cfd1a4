"""The Alibaba Cloud checkpoint replica under the recording mocks: a destination bucket hardened like the
source in the replica region, the RAM role OSS replicates as, and the replication rule's exact inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.components.spec import FleetSpec
from gpufleet.components.storage.alicloud import OssCheckpointBucketArgs
from gpufleet.components.storage.alicloud_replica import OssReplicaArgs, replication_policy, trust_policy
from tests.components.alicloud_builders import FLEET, REGION, TAGS, build_site, spec_of
from tests.storage.conftest import ProviderRecordingMocks, Runner

REPLICA = "cn-shanghai"
PREFIX = f"{FLEET}-{REGION}"
SOURCE_BUCKET = f"{PREFIX}-checkpoints-bucket-0a1b2c3"
REPLICA_BUCKET = f"{PREFIX}-replica-bucket-bucket-0a1b2c3"
ROLE = f"{PREFIX}-ckpt-replication"


def replica_spec(**changes: Any) -> FleetSpec:
    storage = {"checkpoints": {"replica_regions": {"alicloud": REPLICA}, **changes}}
    return spec_of(storage=storage)


def built(run_pulumi: Runner, spec: FleetSpec | None = None) -> ProviderRecordingMocks:
    return run_pulumi(lambda: build_site(spec or replica_spec()))


def test_destination_bucket_is_hardened_like_the_source_in_the_replica_region(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    source = mocks.one("alicloud:oss/bucket:Bucket", f"{PREFIX}-checkpoints-bucket").inputs
    replica = mocks.one("alicloud:oss/bucket:Bucket", f"{PREFIX}-replica-bucket-bucket").inputs
    assert mocks.region_of(f"{PREFIX}-checkpoints-bucket") == REGION
    assert mocks.region_of(f"{PREFIX}-replica-bucket-bucket") == REPLICA
    # Its own key, of the replica region; everything else as the source has it.
    assert replica["serverSideEncryptionRule"] == {
        "sseAlgorithm": "KMS",
        "kmsMasterKeyId": f"{PREFIX}-replica-key-key-id",
    }
    assert source["serverSideEncryptionRule"]["kmsMasterKeyId"] == f"{PREFIX}-key-key-id"
    assert mocks.region_of(f"{PREFIX}-replica-key-key") == REPLICA
    replica_key = mocks.one("alicloud:kms/key:Key", f"{PREFIX}-replica-key-key").inputs
    assert replica_key["automaticRotation"] == "Enabled"
    for field in ("versioning", "lifecycleRules", "tags", "storageClass"):
        assert replica[field] == source[field], field
    assert replica["versioning"] == {"status": "Enabled"}
    assert replica["tags"]["purpose"] == "checkpoints"
    name = f"{PREFIX}-replica-bucket"
    assert mocks.one("alicloud:oss/bucketAcl:BucketAcl", f"{name}-acl").inputs["acl"] == "private"
    block = mocks.one("alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock", f"{name}-public-access")
    assert block.inputs == {"bucket": REPLICA_BUCKET, "blockPublicAccess": True}
    policy = json.loads(
        mocks.one("alicloud:oss/bucketPolicy:BucketPolicy", f"{name}-tls-only").inputs["policy"]
    )
    assert policy["Statement"][0]["Condition"] == {"Bool": {"acs:SecureTransport": ["false"]}}
    assert policy["Statement"][0]["Resource"] == [
        f"acs:oss:*:*:{REPLICA_BUCKET}",
        f"acs:oss:*:*:{REPLICA_BUCKET}/*",
    ]
    https = mocks.one("alicloud:oss/bucketHttpsConfig:BucketHttpsConfig", f"{name}-https").inputs
    assert https["tlsVersions"] == ["TLSv1.2", "TLSv1.3"]
    for child in ("acl", "public-access", "tls-only", "https"):
        assert mocks.region_of(f"{name}-{child}") == REPLICA


def test_replication_rule_inputs(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    rule = mocks.one("alicloud:oss/bucketReplication:BucketReplication", f"{PREFIX}-replica-replication")
    assert rule.inputs == {
        "bucket": SOURCE_BUCKET,
        "action": "ALL",
        "historicalObjectReplication": "enabled",
        "destination": {"bucket": REPLICA_BUCKET, "location": "oss-cn-shanghai"},
        "syncRole": ROLE,
        "encryptionConfiguration": {"replicaKmsKeyId": f"{PREFIX}-replica-key-key-id"},
        "sourceSelectionCriteria": {"sseKmsEncryptedObjects": {"status": "Enabled"}},
    }
    # The rule lives on the source bucket, in the source's region.
    assert mocks.region_of(f"{PREFIX}-replica-replication") == REGION


def test_the_role_trusts_oss_only_and_is_scoped_to_both_buckets_and_keys(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    role = mocks.one("alicloud:ram/role:Role", f"{PREFIX}-replica-role").inputs
    assert role["roleName"] == ROLE
    assert json.loads(role["assumeRolePolicyDocument"]) == {
        "Version": "1",
        "Statement": [
            {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": ["oss.aliyuncs.com"]}}
        ],
    }
    policy = mocks.one("alicloud:ram/policy:Policy", f"{PREFIX}-replica-policy").inputs
    assert policy["policyName"] == f"{ROLE}-access"
    statements = {s["Sid"]: s for s in json.loads(policy["policyDocument"])["Statement"]}
    assert statements == {
        "ReadSource": {
            "Sid": "ReadSource",
            "Effect": "Allow",
            "Action": ["oss:ReplicateList", "oss:ReplicateGet"],
            "Resource": [f"acs:oss:*:*:{SOURCE_BUCKET}", f"acs:oss:*:*:{SOURCE_BUCKET}/*"],
        },
        "WriteReplica": {
            "Sid": "WriteReplica",
            "Effect": "Allow",
            "Action": ["oss:ReplicateList", "oss:ReplicateGet", "oss:ReplicatePut", "oss:ReplicateDelete"],
            "Resource": [f"acs:oss:*:*:{REPLICA_BUCKET}", f"acs:oss:*:*:{REPLICA_BUCKET}/*"],
        },
        "DecryptSource": {
            "Sid": "DecryptSource",
            "Effect": "Allow",
            "Action": ["kms:Decrypt", "kms:DescribeKey"],
            "Resource": [f"acs:kms:{REGION}:*:key/{PREFIX}-key-key-id"],
        },
        "EncryptReplica": {
            "Sid": "EncryptReplica",
            "Effect": "Allow",
            "Action": ["kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
            "Resource": [f"acs:kms:{REPLICA}:*:key/{PREFIX}-replica-key-key-id"],
        },
    }
    attach = mocks.one("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", f"{PREFIX}-replica-attach")
    assert attach.inputs == {"roleName": ROLE, "policyName": f"{ROLE}-access", "policyType": "Custom"}


def test_no_replica_without_the_spec_field(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi, spec_of())
    assert mocks.of_type("alicloud:oss/bucketReplication:BucketReplication") == []
    assert [r.name for r in mocks.of_type("alicloud:oss/bucket:Bucket")] == [f"{PREFIX}-checkpoints-bucket"]
    assert [r.name for r in mocks.of_type("alicloud:kms/key:Key")] == [f"{PREFIX}-key-key"]


def test_byok_pending_builds_both_keys_alone(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi, replica_spec(encryption="byok", byok_material="pending"))
    keys = mocks.of_type("alicloud:kms/key:Key")
    assert sorted((k.name, k.inputs["origin"]) for k in keys) == [
        (f"{PREFIX}-key-key", "EXTERNAL"),
        (f"{PREFIX}-replica-key-key", "EXTERNAL"),
    ]
    assert mocks.region_of(f"{PREFIX}-replica-key-key") == REPLICA
    assert mocks.of_type("alicloud:oss/bucket:Bucket") == []
    assert mocks.of_type("alicloud:oss/bucketReplication:BucketReplication") == []


def test_byok_imported_tags_the_replica_key_as_imported(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi, replica_spec(encryption="byok", byok_material="imported"))
    key = mocks.one("alicloud:kms/key:Key", f"{PREFIX}-replica-key-key").inputs
    assert (key["origin"], key["tags"]["gpufleet:key-material"]) == ("EXTERNAL", "imported")


def test_documents() -> None:
    assert json.loads(trust_policy())["Statement"][0]["Principal"] == {"Service": ["oss.aliyuncs.com"]}
    document = json.loads(
        replication_policy(
            source="a",
            destination="b",
            source_key="k1",
            source_region="cn-hangzhou",
            key="k2",
            region="cn-beijing",
        )
    )
    actions = [a for s in document["Statement"] for a in s["Action"]]
    resources = [r for s in document["Statement"] for r in s["Resource"]]
    assert "*" not in actions and not any(a.endswith(":*") for a in actions)
    assert "*" not in resources


def test_args_refuse_the_source_region() -> None:
    bucket = OssCheckpointBucketArgs(kms_key_id="k", tags=TAGS)
    with pytest.raises(ValueError, match="region: cn-hangzhou is the source's region"):
        OssReplicaArgs(
            source_bucket="a",
            source_key_id="k",
            source_region="cn-hangzhou",
            region="cn-hangzhou",
            key_id="k2",
            provider=None,  # type: ignore[arg-type]
            role_name="r",
            tags=TAGS,
            bucket=bucket,
        )
