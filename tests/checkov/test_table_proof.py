"""Every entry of table.json, all three clouds, proven against what is installed: the token is a resource
of the SDK, every renamed property is one of the SDK's wire names (the resource's or its nested types'),
every Terraform name is the singular the bridge pluralised, and every Terraform type is the bridge's name
for the token (or one of the few it names otherwise, listed here from the providers' bridge metadata).
Each proof is also run on a corrupted copy, to show it fails."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpufleet.checkov.generate_table import TABLE_PATH, merge_bridge_metadata
from gpufleet.checkov.sdk_schema import bridge_terraform_types, sdk_problems, sdk_properties, sdk_tokens
from gpufleet.checkov.table_source import table

# Terraform types the bridge does not derive from the token's name, each as the providers' bridge
# metadata has it (pulumi-aws `renames.resources`; pulumi-alicloud commit 9d2b1e47cc `renames.resources`).
NAMED_OTHERWISE = {
    "aws:autoscaling/tag:Tag": "aws_autoscaling_group_tag",
    "aws:cloudtrail/trail:Trail": "aws_cloudtrail",
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": "aws_iam_openid_connect_provider",
    "aws:s3/bucketObjectv2:BucketObjectv2": "aws_s3_object",
    "aws:s3/bucketReplicationConfig:BucketReplicationConfig": "aws_s3_bucket_replication_configuration",
    "aws:s3/inventory:Inventory": "aws_s3_bucket_inventory",
    "aws:sqs/redriveAllowPolicy:RedriveAllowPolicy": "aws_sqs_queue_redrive_allow_policy",
    "aws:sqs/redrivePolicy:RedrivePolicy": "aws_sqs_queue_redrive_policy",
    "alicloud:cs/nodePool:NodePool": "alicloud_cs_kubernetes_node_pool",
    "alicloud:vpc/network:Network": "alicloud_vpc",
    "alicloud:vpc/switch:Switch": "alicloud_vswitch",
}


def _shipped() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return data


def _type_problems(data: dict[str, Any]) -> list[str]:
    problems = []
    for token, entry in data["resources"].items():
        expected = NAMED_OTHERWISE.get(token)
        if expected is not None and entry["type"] != expected:
            problems.append(f"{token}: {entry['type']}, the bridge metadata says {expected}")
        elif expected is None and entry["type"] not in bridge_terraform_types(token):
            problems.append(f"{token}: {entry['type']} is not the bridge's name for it")
    return problems


def test_every_entry_agrees_with_the_installed_sdks() -> None:
    data = _shipped()
    by_cloud = {
        p: sum(t.startswith(f"{p}:") for t in data["resources"]) for p in ("aws", "alicloud", "tencentcloud")
    }
    assert by_cloud == {"aws": 148, "alicloud": 73, "tencentcloud": 61}
    assert all(sdk_properties(token) for token in data["resources"])
    assert sdk_problems(data) == []
    # 74 entries carry renames, 187 renames in all: each one was checked above.
    assert sum(len(e["renames"]) for e in data["resources"].values()) == 187


def test_the_sdk_proof_fails_on_corrupted_entries() -> None:
    data = copy.deepcopy(_shipped())
    resources = data["resources"]
    resources["aws:ec2/vpnConnexion:VpnConnexion"] = resources.pop("aws:ec2/vpnConnection:VpnConnection")
    ali = resources["alicloud:vpn/connection:Connection"]["renames"]
    ali["localSubnet"] = ali.pop("localSubnets")  # not the SDK's wire name
    ali["remoteSubnets"] = "remote_subnets"  # only the snake_case: the bridge pluralised nothing
    resources["tencentcloud:Vpn/connection:Connection"]["renames"]["securityGroupPolicies"] = "security_group"
    resources["aws:ec2/instance:Instance"]["renames"]["ebsBlockDevices"] = "ebs_block_devices_x"
    assert sdk_problems(data) == [
        "aws:ec2/instance:Instance: ebsBlockDevices is not the bridge's plural of ebs_block_devices_x",
        "alicloud:vpn/connection:Connection: remoteSubnets -> remote_subnets is only its snake_case "
        "(no entry needed)",
        "alicloud:vpn/connection:Connection: localSubnet is no property of the resource or its nested types",
        "tencentcloud:Vpn/connection:Connection: securityGroupPolicies is not the bridge's plural of "
        "security_group",
        "aws:ec2/vpnConnexion:VpnConnexion: no resource of the installed SDKs has this token",
    ]


def test_every_terraform_type_is_the_bridges_name_for_its_token() -> None:
    data = _shipped()
    assert _type_problems(data) == []
    assert set(NAMED_OTHERWISE) <= set(data["resources"])


def test_the_type_proof_fails_on_corrupted_entries() -> None:
    data = copy.deepcopy(_shipped())
    resources = data["resources"]
    resources["aws:ec2/vpnConnection:VpnConnection"]["type"] = "aws_vpn_connexion"
    resources["alicloud:vpc/network:Network"]["type"] = "alicloud_network"
    resources["tencentcloud:Dcx/instance:Instance"]["type"] = "tencentcloud_dc"
    assert sorted(_type_problems(data)) == [
        "alicloud:vpc/network:Network: alicloud_network, the bridge metadata says alicloud_vpc",
        "aws:ec2/vpnConnection:VpnConnection: aws_vpn_connexion is not the bridge's name for it",
        "tencentcloud:Dcx/instance:Instance: tencentcloud_dc is not the bridge's name for it",
    ]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("aws:ec2/vpnConnection:VpnConnection", "aws_vpn_connection"),
        (
            "aws:directconnect/privateVirtualInterface:PrivateVirtualInterface",
            "aws_dx_private_virtual_interface",
        ),
        ("aws:s3/bucketV2:BucketV2", "aws_s3_bucket"),
        (
            "alicloud:expressconnect/virtualBorderRouter:VirtualBorderRouter",
            "alicloud_express_connect_virtual_border_router",
        ),
        ("tencentcloud:Eip/instance:Instance", "tencentcloud_eip"),
        ("tencentcloud:Ccn/attachmentV2:AttachmentV2", "tencentcloud_ccn_attachment_v2"),
    ],
)
def test_bridge_terraform_names(token: str, expected: str) -> None:
    assert expected in bridge_terraform_types(token)


def test_sdk_reader_sees_nested_and_deprecated_properties() -> None:
    assert "aws:ec2/vpnConnection:VpnConnection" in sdk_tokens()
    names = sdk_properties("alicloud:vpn/connection:Connection")
    assert names is not None
    # A nested type's property (ConnectionIkeConfigArgs) and the resource's own.
    assert {"ikeEncAlg", "localSubnets", "tunnelOptionsSpecifications"} <= names
    # A property behind `@_utilities.deprecated(...)`: pulumi-aws 7's inline CORS rules on the bucket.
    bucket = sdk_properties("aws:s3/bucket:Bucket")
    assert bucket is not None and "corsRules" in bucket
    # Nested types belong to the longest resource name: VpnConnectionRoute's are not VpnConnection's.
    route = sdk_properties("aws:ec2/vpnConnectionRoute:VpnConnectionRoute")
    assert route is not None and "tunnel1LogOptions" not in route
    assert sdk_properties("aws:ec2/vpnConnexion:VpnConnexion") is None


def test_collection_fields_in_auto_aliasing_become_renames() -> None:
    data = table()
    renames = data["resources"]["alicloud:vpn/connection:Connection"]["renames"]
    for name in ("localSubnets", "tunnelOptionsSpecifications"):
        del renames[name]
    metadata = {
        "auto-aliasing": {
            "resources": {
                "alicloud_vpn_connection": {
                    "current": "alicloud:vpn/connection:Connection",
                    "fields": {
                        "local_subnet": {"maxItemsOne": False},
                        "ike_config": {"maxItemsOne": True},
                        "tunnel_options_specification": {
                            "maxItemsOne": False,
                            "elem": {"fields": {"tunnel_ike_config": {"maxItemsOne": True}}},
                        },
                    },
                }
            }
        },
        "renames": {
            "renamedProperties": {
                # A snapshot of another SDK version: a property the installed SDK lacks is not added.
                "alicloud:vpn/connection:Connection": {"fieldSearches": "field_search"}
            }
        },
    }
    assert merge_bridge_metadata(data, metadata) == []
    assert renames["localSubnets"] == "local_subnet"
    assert renames["tunnelOptionsSpecifications"] == "tunnel_options_specification"
    assert "fieldSearches" not in renames
    assert "ikeConfig" not in renames


@pytest.mark.checkov
def test_aws_terraform_types_are_known_to_checkov(checkov_bin: Path) -> None:
    """checkov ships the list of AWS Terraform resource types: every AWS type of the table is in it."""
    interpreter = checkov_bin.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()
    listing = subprocess.run(
        [
            interpreter,
            "-c",
            "import json, checkov.common.checks_infra.resources_types as r;"
            "print(json.dumps(r.resources_types['aws']))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    known = set(json.loads(listing.stdout))
    types = {e["type"] for t, e in _shipped()["resources"].items() if t.startswith("aws:")}
    assert len(types) == 142
    assert sorted(types - known) == []
    assert "aws_vpn_connexion" not in known


def test_generator_refuses_a_table_the_sdks_disagree_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpufleet.checkov import generate_table

    output = tmp_path / "table.json"
    assert generate_table.main(["--output", str(output)]) == 0
    assert json.loads(output.read_text(encoding="utf-8")) == table()

    def corrupted() -> dict[str, Any]:
        data = table()
        data["resources"]["aws:ec2/vpnConnection:VpnConnection"]["renames"]["vgwTelemetry"] = "vgw_telemetry"
        return data

    monkeypatch.setattr(generate_table, "table", corrupted)
    output.unlink()
    assert generate_table.main(["--output", str(output)]) == 1
    assert not output.exists()
    assert capsys.readouterr().err == (
        "aws:ec2/vpnConnection:VpnConnection: vgwTelemetry is no property of the resource or its nested "
        "types\n"
    )
