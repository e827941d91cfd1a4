"""GF-OPS-005: a key pending import is not used by what the same deployment creates."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.ops.pending_key_material import POLICY, RULE

from .helpers import ACCOUNT, NotApplicable, res, run_stack

EXTERNAL = "aws:kms/externalKey:ExternalKey"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
ALIAS = "aws:kms/alias:Alias"
KEY_ARN = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/0d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6"
PENDING = "'byok': no keyMaterialBase64"


def byok(**props: Any) -> Any:
    return res(EXTERNAL, "byok", {"arn": KEY_ARN, "keyId": KEY_ARN.rsplit("/", 1)[1], **props})


def template(key: Any, **props: Any) -> Any:
    ebs = {"encrypted": "true", "kmsKeyId": KEY_ARN, "volumeType": "gp3"}
    return res(
        TEMPLATE,
        "gpu-lt",
        {"id": "lt-0abc", "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": ebs}], **props},
        prop_deps={"blockDeviceMappings": [key]},
    )


def use_message(what: str, name: str) -> str:
    return (
        f"{what} '{name}' encrypts with key 'byok', pending import in this deployment ({PENDING}): a key "
        f"without material cannot encrypt, so '{name}' fails to create; deploy the key first, import its "
        "material, then the rest (or give the material as a secret config value)"
    )


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-OPS-005",
        "usable-at-creation",
        ("aws", "alicloud", "tencentcloud"),
    )


def test_key_with_material_given_passes() -> None:
    key = byok(keyMaterialBase64="c2VjcmV0")
    logs = res(LOG_GROUP, "jobs", {"kmsKeyId": KEY_ARN}, prop_deps={"kmsKeyId": [key]})
    assert run_stack(POLICY, [key, logs, template(key)]) == []


def test_log_group_on_a_pending_key() -> None:
    key = byok()
    logs = res(LOG_GROUP, "jobs", {"kmsKeyId": KEY_ARN}, prop_deps={"kmsKeyId": [key]})
    assert run_stack(POLICY, [key, logs]) == [(use_message("log group", "jobs"), logs.urn)]


def test_use_by_literal_arn_without_a_dependency() -> None:
    key = byok()
    sse = res(
        SSE, "ckpt-sse", {"rules": [{"applyServerSideEncryptionByDefault": {"kmsMasterKeyId": KEY_ARN}}]}
    )
    assert run_stack(POLICY, [key, sse]) == [(use_message("bucket encryption", "ckpt-sse"), sse.urn)]


def test_use_through_an_alias() -> None:
    key = byok()
    alias = res(
        ALIAS, "byok-alias", {"name": "alias/byok", "targetKeyId": KEY_ARN}, prop_deps={"targetKeyId": [key]}
    )
    logs = res(
        LOG_GROUP, "jobs", {"kmsKeyId": "arn:aws:kms:us-east-1:1:alias/byok"}, prop_deps={"kmsKeyId": [alias]}
    )
    assert [m for m, _ in run_stack(POLICY, [key, alias, logs])] == [use_message("log group", "jobs")]


def test_shared_training_storage_on_a_pending_key() -> None:
    key = byok()
    lustre = res(
        "aws:fsx/lustreFileSystem:LustreFileSystem",
        "scratch",
        {"kmsKeyId": KEY_ARN, "storageCapacity": 1200},
        prop_deps={"kmsKeyId": [key]},
    )
    assert run_stack(POLICY, [key, lustre]) == [
        (use_message("FSx for Lustre file system", "scratch"), lustre.urn)
    ]


def test_group_that_waits_for_capacity_from_a_pending_template() -> None:
    key = byok()
    lt = template(key)
    group = res(
        ASG,
        "gpu-asg",
        {"minSize": 1, "maxSize": 4, "launchTemplate": {"id": "lt-0abc"}},
        prop_deps={"launchTemplate": [lt]},
    )
    assert run_stack(POLICY, [key, lt, group]) == [
        (use_message("launch template", "gpu-lt"), lt.urn),
        (
            "Auto Scaling group 'gpu-asg' waits up to 10m for capacity, but its launch template 'gpu-lt' "
            "encrypts volumes with a key pending import, so no instance launches and the deployment times "
            'out; set waitForCapacityTimeout to "0" until the material is imported',
            group.urn,
        ),
    ]
    group.props["waitForCapacityTimeout"] = "0"
    assert run_stack(POLICY, [key, lt, group]) == [(use_message("launch template", "gpu-lt"), lt.urn)]
    group.props.update({"waitForCapacityTimeout": "10m", "minSize": 0})
    assert len(run_stack(POLICY, [key, lt, group])) == 1


def test_alibaba_external_key_is_always_pending() -> None:
    key = res("alicloud:kms/key:Key", "restricted", {"origin": "EXTERNAL", "id": "key-hzz62f1cb66fa42qo9m3n"})
    bucket = res(
        "alicloud:oss/bucket:Bucket",
        "datasets",
        {"serverSideEncryptionRule": {"sseAlgorithm": "KMS", "kmsMasterKeyId": "key-hzz62f1cb66fa42qo9m3n"}},
    )
    assert [m for m, _ in run_stack(POLICY, [key, bucket])] == [
        "OSS bucket 'datasets' encrypts with key 'restricted', pending import in this deployment "
        "('restricted': origin EXTERNAL: its material is imported outside Pulumi): a key without material "
        "cannot encrypt, so 'datasets' fails to create; deploy the key first, import its material, then the "
        "rest (or give the material as a secret config value)"
    ]
    key.props["origin"] = "Aliyun_KMS"
    assert run_stack(POLICY, [key, bucket]) == []


def test_tencent_external_key() -> None:
    key = res(
        "tencentcloud:Kms/externalKey:ExternalKey", "cos-byok", {"id": "6b7d1a4e-0000-11ef-8a3f-525400e1b2c3"}
    )
    bucket = res("tencentcloud:Cos/bucket:Bucket", "ckpt", {"kmsId": "6b7d1a4e-0000-11ef-8a3f-525400e1b2c3"})
    assert len(run_stack(POLICY, [key, bucket])) == 1
    key.props["keyMaterialBase64"] = "c2VjcmV0"
    assert run_stack(POLICY, [key, bucket]) == []


def test_a_stack_without_imported_keys_is_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="the stack creates no key whose material is imported"):
        run_stack(POLICY, [res(LOG_GROUP, "jobs", {})])


def test_a_key_tagged_imported_out_of_band_is_usable() -> None:
    # Phase two of a BYOK first deploy: the owner imported the material and the program says so.
    key = byok(tags={"gpufleet:key-material": "imported", "project": "vision"})
    logs = res(LOG_GROUP, "jobs", {"kmsKeyId": KEY_ARN}, prop_deps={"kmsKeyId": [key]})
    assert run_stack(POLICY, [key, logs, template(key)]) == []


@pytest.mark.parametrize("value", ["pending", "", "yes", "Imported "])
def test_any_other_material_tag_value_keeps_the_key_pending(value: str) -> None:
    key = byok(tags={"gpufleet:key-material": value})
    logs = res(LOG_GROUP, "jobs", {"kmsKeyId": KEY_ARN}, prop_deps={"kmsKeyId": [key]})
    assert run_stack(POLICY, [key, logs]) == [(use_message("log group", "jobs"), logs.urn)]


def test_the_tag_makes_an_alibaba_external_key_usable_as_for_aws() -> None:
    # The second phase of an Alibaba BYOK first deploy: the material was imported out of band (no SDK
    # resource can), and the fleet says so with the same tag it writes on AWS keys.
    def stack(tags: dict[str, str]) -> list[tuple[str, str]]:
        key = res(
            "alicloud:kms/key:Key", "oss-byok", {"id": "key-hzz0000", "origin": "EXTERNAL", "tags": tags}
        )
        bucket = res("alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption", "ckpt", {})
        bucket.props["kmsMasterKeyId"] = "key-hzz0000"
        return run_stack(POLICY, [key, bucket])

    assert stack({"gpufleet:key-material": "imported"}) == []
    [(message, _)] = stack({"gpufleet:key-material": "pending"})
    assert "origin EXTERNAL: its material is imported outside Pulumi" in message


@pytest.mark.parametrize(
    ("token", "what"), [("aws:sns/topic:Topic", "topic"), ("aws:sqs/queue:Queue", "queue")]
)
def test_a_topic_or_queue_on_a_pending_key_is_created_but_cannot_carry_messages(
    token: str, what: str
) -> None:
    key = byok()
    holder = res(token, "alerts", {"kmsMasterKeyId": KEY_ARN}, prop_deps={"kmsMasterKeyId": [key]})
    assert run_stack(POLICY, [key, holder]) == [
        (
            f"{what} 'alerts' encrypts with key 'byok', pending import in this deployment ({PENDING}): a key "
            "without material cannot encrypt, so 'alerts' is created but every message sent to it fails "
            "until the material is imported; deploy the key first, import its material, then the rest (or "
            "give the material as a secret config value)",
            holder.urn,
        )
    ]
