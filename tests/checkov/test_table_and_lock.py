"""The token table's data file, its generator, and the lock file writer."""

from __future__ import annotations

import json

import pytest

from gpufleet.checkov.generate_table import TABLE_PATH, merge_bridge_metadata
from gpufleet.checkov.lockfile import lock_lines
from gpufleet.checkov.naming import snake_case, tf_identifier
from gpufleet.checkov.table_source import table


def test_table_json_is_generated_from_its_source() -> None:
    assert json.loads(TABLE_PATH.read_text(encoding="utf-8")) == table()


def test_bridge_metadata_adds_renames_and_catches_wrong_types() -> None:
    data = table()
    metadata = {
        "renames": {
            "resources": {"aws:ec2/instance:Instance": "aws_instance", "aws:kms/key:Key": "aws_kms_keyring"},
            "renamedProperties": {
                "aws:ec2/instance:Instance": {
                    "capacityReservationSpecification": "capacity_reservation_specification",
                    "secondaryPrivateIps": "secondary_private_ip",
                }
            },
        }
    }
    problems = merge_bridge_metadata(data, metadata)
    assert problems == ["aws:kms/key:Key: table says aws_kms_key, bridge metadata says aws_kms_keyring"]
    renames = data["resources"]["aws:ec2/instance:Instance"]["renames"]
    assert renames["secondaryPrivateIps"] == "secondary_private_ip"
    assert "capacityReservationSpecification" not in renames  # plain snake_case needs no entry
    assert renames["ebsBlockDevices"] == "ebs_block_device"


@pytest.mark.parametrize(
    ("camel", "snake"),
    [
        ("httpPutResponseHopLimit", "http_put_response_hop_limit"),
        ("ipv6CidrBlock", "ipv6_cidr_block"),
        ("kmsKeyID", "kms_key_id"),
        ("enableDnsHostnames", "enable_dns_hostnames"),
        ("id", "id"),
    ],
)
def test_snake_case(camel: str, snake: str) -> None:
    assert snake_case(camel) == snake


def test_tf_identifier() -> None:
    assert tf_identifier("gpufleet-dev-bucket") == "gpufleet-dev-bucket"
    assert tf_identifier("a b/c:d") == "a_b_c_d"
    assert tf_identifier("1st") == "_1st"


def test_lock_lines_pin_every_distribution_with_its_hash() -> None:
    report = {
        "install": [
            {
                "metadata": {"name": "Checkov", "version": "3.3.30"},
                "download_info": {"archive_info": {"hashes": {"sha256": "ab" * 32}}},
            },
            {
                "metadata": {"name": "asteval", "version": "1.0.6"},
                "download_info": {"archive_info": {"hashes": {"sha256": "cd" * 32}}},
            },
        ]
    }
    assert lock_lines(report) == [
        f"asteval==1.0.6 --hash=sha256:{'cd' * 32}",
        f"checkov==3.3.30 --hash=sha256:{'ab' * 32}",
    ]
    with pytest.raises(ValueError, match=r"asteval 1\.0\.6: pip reported no sha256 hash"):
        lock_lines({"install": [{"metadata": {"name": "asteval", "version": "1.0.6"}, "download_info": {}}]})


def test_nested_type_renames_go_to_the_resource_they_belong_to() -> None:
    data = table()
    metadata = {
        "renames": {
            "resources": {
                "alicloud:oss/bucket:Bucket": "alicloud_oss_bucket",
                "alicloud:oss/bucketReplication:BucketReplication": "alicloud_oss_bucket_replication",
            },
            "renamedProperties": {
                # Synthetic renames: what is tested is which resource each one goes to.
                "alicloud:oss/BucketWebsite:BucketWebsite": {"errorDocument": "error_document_block"},
                # Belongs to bucketReplication (a longer class-name prefix): merged there, not into bucket.
                "alicloud:oss/BucketReplicationPrefixSet:BucketReplicationPrefixSet": {"prefixes": "prefix"},
                # No property of the installed SDK (a snapshot of another version): not merged.
                "alicloud:oss/BucketReplicationDestination:BucketReplicationDestination": {"zones": "zone"},
            },
        }
    }
    assert merge_bridge_metadata(data, metadata) == []
    renames = data["resources"]["alicloud:oss/bucket:Bucket"]["renames"]
    assert renames["errorDocument"] == "error_document_block"
    assert "prefixes" not in renames
    replication = data["resources"]["alicloud:oss/bucketReplication:BucketReplication"]["renames"]
    assert replication == {"prefixes": "prefix"}


def test_auto_aliasing_checks_types_too() -> None:
    data = table()
    metadata = {
        "auto-aliasing": {
            "resources": {
                "tencentcloud_cos_bucket": {"current": "tencentcloud:Cos/bucket:Bucket"},
                "tencentcloud_cbs_disk": {"current": "tencentcloud:Cbs/storage:Storage"},
            }
        }
    }
    assert merge_bridge_metadata(data, metadata) == [
        "tencentcloud:Cbs/storage:Storage: table says tencentcloud_cbs_storage, "
        "bridge metadata says tencentcloud_cbs_disk"
    ]
