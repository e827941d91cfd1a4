"""The Tencent Cloud checkpoint replica under the recording mocks: a destination COS bucket hardened like
the source in the replica region, the source bucket's replica_role and replica_rules, versioning on both,
and the CAM role COS replicates as."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest

from gpufleet.components.sites.tencentcloud import TencentSite
from gpufleet.components.spec import FleetSpec
from gpufleet.components.storage.tencentcloud import TencentBucketArgs
from gpufleet.components.storage.tencentcloud_replica import CosReplicaArgs, role_identity
from gpufleet.invokes.tencentcloud import TENCENT_APP_ID, TENCENT_UIN
from tests.components.tencent_support import SITE, TAGS, TencentMocks, site_args, spec
from tests.storage.conftest import ProviderRecorder, Runner

BUCKET = "tencentcloud:Cos/bucket:Bucket"
REGION = "ap-guangzhou"
REPLICA = "ap-shanghai"
SOURCE_NAME = f"gf-dev-ckpt-779ec5-{TENCENT_APP_ID}"
REPLICA_NAME = f"gf-dev-ckpt-a-35fb12-{TENCENT_APP_ID}"
ROLE = f"{SITE}-ckpt-replication"


class Mocks(ProviderRecorder, TencentMocks):
    pass


def replica_spec(**checkpoints: Any) -> FleetSpec:
    return spec(checkpoints={"replica_regions": {"tencentcloud": REPLICA}, **checkpoints})


def built(run_pulumi: Runner, fleet_spec: FleetSpec | None = None, **extra: Any) -> Mocks:
    mocks = Mocks()
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="tc-test", preview=False)
    args = site_args(fleet_spec or replica_spec(), **extra)
    run_pulumi(lambda: TencentSite(SITE, args, pulumi.ResourceOptions()))
    return mocks


def test_source_bucket_replicates_every_object_to_the_replica(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    source = mocks.one(BUCKET, f"{SITE}-checkpoints-bucket").inputs
    assert source["bucket"] == SOURCE_NAME
    assert source["versioningEnable"] is True
    assert source["replicaRole"] == f"qcs::cam::uin/{TENCENT_UIN}:roleName/{ROLE}"
    assert source["replicaRules"] == [
        {
            "id": "checkpoint-replica",
            "status": "Enabled",
            "destinationBucket": f"qcs::cos:{REPLICA}::{REPLICA_NAME}",
            "destinationStorageClass": "STANDARD",
        }
    ]
    assert mocks.region_of(f"{SITE}-checkpoints-bucket") == REGION


def test_destination_bucket_is_hardened_like_the_source_in_the_replica_region(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    source = mocks.one(BUCKET, f"{SITE}-checkpoints-bucket").inputs
    replica = mocks.one(BUCKET, f"{SITE}-replica-bucket-bucket").inputs
    assert mocks.region_of(f"{SITE}-replica-bucket-bucket") == REPLICA
    assert replica["bucket"] == REPLICA_NAME
    assert (replica["acl"], replica["encryptionAlgorithm"], replica["kmsId"]) == (
        "private",
        "KMS",
        f"{SITE}-replica-key-key-id",
    )
    assert source["kmsId"] == f"{SITE}-key-key-id"
    assert replica["versioningEnable"] is True  # COS replicates only into a versioned bucket
    for field in ("lifecycleRules", "tags", "forceClean"):
        assert replica[field] == source[field], field
    assert "replicaRules" not in replica and "replicaRole" not in replica
    key = mocks.one("tencentcloud:Kms/key:Key", f"{SITE}-replica-key-key").inputs
    assert (key["isEnabled"], key["keyRotationEnabled"]) == (True, True)
    assert mocks.region_of(f"{SITE}-replica-key-key") == REPLICA
    policy = json.loads(
        mocks.one("tencentcloud:Cos/bucketPolicy:BucketPolicy", f"{SITE}-replica-bucket-tls-only").inputs[
            "policy"
        ]
    )
    [statement] = policy["Statement"]
    assert statement["Condition"] == {"bool_equal": {"cos:secure-transport": "false"}}
    base = f"qcs::cos:{REPLICA}:uid/{TENCENT_APP_ID}:{REPLICA_NAME}"
    assert statement["Resource"] == [f"{base}/", f"{base}/*"]
    assert mocks.region_of(f"{SITE}-replica-bucket-tls-only") == REPLICA


def test_the_role_trusts_cos_only_and_is_scoped_to_both_buckets_and_keys(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi)
    role = mocks.one("tencentcloud:Cam/role:Role", f"{SITE}-replica-role").inputs
    assert role["name"] == ROLE
    assert role["consoleLogin"] is False
    assert json.loads(role["document"]) == {
        "version": "2.0",
        "statement": [
            {
                "action": ["name/sts:AssumeRole"],
                "effect": "allow",
                "principal": {"service": ["cos.qcloud.com"]},
            }
        ],
    }
    document = json.loads(
        mocks.one("tencentcloud:Cam/policy:Policy", f"{SITE}-replica-policy").inputs["document"]
    )
    source = f"qcs::cos:{REGION}:uid/{TENCENT_APP_ID}:{SOURCE_NAME}"
    replica = f"qcs::cos:{REPLICA}:uid/{TENCENT_APP_ID}:{REPLICA_NAME}"
    kms = f"uin/{TENCENT_UIN}:key/creatorUin/{TENCENT_UIN}"
    assert document == {
        "version": "2.0",
        "statement": [
            {
                "effect": "allow",
                "action": ["name/cos:GetObject", "name/cos:HeadObject", "name/cos:GetBucket"],
                "resource": [f"{source}/", f"{source}/*"],
            },
            {
                "effect": "allow",
                "action": [
                    "name/cos:PutObject",
                    "name/cos:DeleteObject",
                    "name/cos:InitiateMultipartUpload",
                    "name/cos:UploadPart",
                    "name/cos:CompleteMultipartUpload",
                    "name/cos:AbortMultipartUpload",
                ],
                "resource": [f"{replica}/", f"{replica}/*"],
            },
            {
                "effect": "allow",
                "action": ["name/kms:Decrypt"],
                "resource": [f"qcs::kms:{REGION}:{kms}/{SITE}-key-key-id"],
            },
            {
                "effect": "allow",
                "action": ["name/kms:Encrypt", "name/kms:GenerateDataKey"],
                "resource": [f"qcs::kms:{REPLICA}:{kms}/{SITE}-replica-key-key-id"],
            },
        ],
    }
    attach = mocks.one("tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment", f"{SITE}-replica-attach")
    assert attach.inputs == {"roleId": f"{SITE}-replica-role-id", "policyId": f"{SITE}-replica-policy-id"}


def test_no_replica_without_the_spec_field(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi, spec())
    [bucket] = mocks.of_type(BUCKET)
    assert "replicaRules" not in bucket.inputs and "replicaRole" not in bucket.inputs
    assert mocks.of_type("tencentcloud:Cam/role:Role") != []  # the nodes' role only
    assert [r.name for r in mocks.of_type("tencentcloud:Cam/role:Role")] == [f"{SITE}-identity-nodes"]


def test_byok_config_imports_the_same_material_into_the_replica_key(run_pulumi: Runner) -> None:
    fleet_spec = replica_spec(encryption="byok", byok_material="config", classification="restricted")
    mocks = built(run_pulumi, fleet_spec, byok_material_base64="bWF0ZXJpYWw=")
    keys = {k.name: k.inputs for k in mocks.of_type("tencentcloud:Kms/externalKey:ExternalKey")}
    assert sorted(keys) == [f"{SITE}-key-key", f"{SITE}-replica-key-key"]
    material = keys[f"{SITE}-replica-key-key"]["keyMaterialBase64"]
    assert material == keys[f"{SITE}-key-key"]["keyMaterialBase64"]
    assert material["value"] == "bWF0ZXJpYWw="  # and kept a secret
    assert mocks.region_of(f"{SITE}-replica-key-key") == REPLICA


def test_byok_pending_builds_both_keys_alone(run_pulumi: Runner) -> None:
    mocks = built(run_pulumi, replica_spec(encryption="byok", byok_material="pending"))
    keys = sorted(k.name for k in mocks.of_type("tencentcloud:Kms/externalKey:ExternalKey"))
    assert keys == [f"{SITE}-key-key", f"{SITE}-replica-key-key"]
    assert mocks.of_type(BUCKET) == []


def test_role_identity_and_args_checks() -> None:
    assert role_identity("100000000001", "r") == "qcs::cam::uin/100000000001:roleName/r"
    bucket = TencentBucketArgs(name_part="b", app_id="1", region=REGION, key_id="k", tags=TAGS)
    with pytest.raises(ValueError, match=r"bucket\.region: ap-guangzhou is the source's region"):
        CosReplicaArgs(
            source_name_part="a",
            source_key_id="k",
            source_region=REGION,
            owner_uin="1",
            uin="1",
            role_name="r",
            tags=TAGS,
            bucket=bucket,
        )
