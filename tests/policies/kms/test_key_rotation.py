from __future__ import annotations

from collections.abc import Mapping

import pytest

from gpufleet.policies.kms.alicloud import ALI_KEY
from gpufleet.policies.kms.aws import AWS_EXTERNAL_KEY, AWS_KEY, AWS_REPLICA_EXTERNAL_KEY, AWS_REPLICA_KEY
from gpufleet.policies.kms.key_rotation import POLICY, RULE
from gpufleet.policies.kms.tencentcloud import TC_EXTERNAL_KEY, TC_KEY

from .helpers import UNKNOWN, NotApplicable, run_resource


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.checkov) == ("GF-KMS-001", "kms-key-rotation", ("CKV_AWS_7",))


@pytest.mark.parametrize(
    ("kind", "props"),
    [
        (AWS_KEY, {"enableKeyRotation": True}),
        (ALI_KEY, {"automaticRotation": "Enabled", "rotationInterval": "365d"}),
        (TC_KEY, {"keyRotationEnabled": True}),
    ],
)
def test_rotating_keys_pass(kind: str, props: Mapping[str, object]) -> None:
    assert run_resource(POLICY, kind, props, name="k") == []


@pytest.mark.parametrize(
    ("kind", "props", "message"),
    [
        (AWS_KEY, {}, "AWS KMS key 'k' does not rotate (enableKeyRotation is not true); enable rotation"),
        (
            AWS_KEY,
            {"enableKeyRotation": False, "customerMasterKeySpec": "SYMMETRIC_DEFAULT"},
            "AWS KMS key 'k' does not rotate (enableKeyRotation is not true); enable rotation",
        ),
        (ALI_KEY, {}, "Alibaba KMS key 'k' has automaticRotation unset (Disabled); set it to Enabled"),
        (
            ALI_KEY,
            {"automaticRotation": "Disabled", "origin": "Aliyun_KMS"},
            "Alibaba KMS key 'k' has automaticRotation Disabled; set it to Enabled",
        ),
        (
            TC_KEY,
            {"keyRotationEnabled": False},
            "Tencent KMS key 'k' does not rotate (keyRotationEnabled is not true); enable rotation",
        ),
    ],
)
def test_negatives(kind: str, props: Mapping[str, object], message: str) -> None:
    assert run_resource(POLICY, kind, props, name="k") == [message]


@pytest.mark.parametrize(
    ("kind", "props", "reason"),
    [
        (AWS_EXTERNAL_KEY, {}, "imported key material"),
        (AWS_REPLICA_EXTERNAL_KEY, {}, "imported key material"),
        (TC_EXTERNAL_KEY, {}, "imported key material"),
        (AWS_REPLICA_KEY, {}, "rotates with its primary key"),
        (AWS_KEY, {"customerMasterKeySpec": "RSA_2048"}, "spec RSA_2048"),
        (AWS_KEY, {"customKeyStoreId": "cks-1"}, "custom key store"),
        (ALI_KEY, {"origin": "EXTERNAL"}, "origin EXTERNAL"),
        (ALI_KEY, {"keySpec": "EC_P256"}, "asymmetric"),
        # A signing key written without keyRotationEnabled was reported as not rotating.
        (TC_KEY, {"keyUsage": "ASYMMETRIC_SIGN_VERIFY_ECC"}, "asymmetric"),
        (TC_KEY, {"keyUsage": "ASYMMETRIC_DECRYPT_SM2", "keyRotationEnabled": False}, "asymmetric"),
    ],
)
def test_not_applicable(kind: str, props: Mapping[str, object], reason: str) -> None:
    with pytest.raises(NotApplicable, match=reason):
        run_resource(POLICY, kind, props, name="k")


def test_other_resources_are_ignored() -> None:
    assert run_resource(POLICY, "aws:s3/bucket:Bucket", {}) == []


def test_unknown_and_proxy() -> None:
    found = run_resource(POLICY, AWS_KEY, {"enableKeyRotation": UNKNOWN}, proxy=True)
    assert len(found) == 1
    assert found[0].startswith("could not be judged at preview")
    assert run_resource(POLICY, TC_KEY, {"keyRotationEnabled": True}, proxy=True) == []
