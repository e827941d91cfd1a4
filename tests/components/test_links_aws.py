"""The AWS link under the recording mocks: exact resources, both tunnels' crypto, the secret key, and
routes to the on-prem ranges only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.components.links.aws import AwsLink
from gpufleet.components.links.base import LinkArgs
from tests.components.conftest import Runner
from tests.components.links_support import BGP_KEY, ONPREM, PSK, TAGS, VPN, is_secret, link_args

VGW = "aws:ec2/vpnGateway:VpnGateway"
CGW = "aws:ec2/customerGateway:CustomerGateway"
VPN_CONNECTION = "aws:ec2/vpnConnection:VpnConnection"
VPN_ROUTE = "aws:ec2/vpnConnectionRoute:VpnConnectionRoute"
ROUTE = "aws:ec2/route:Route"
DX_GATEWAY = "aws:directconnect/gateway:Gateway"
VIF = "aws:directconnect/privateVirtualInterface:PrivateVirtualInterface"
DX_ASSOCIATION = "aws:directconnect/gatewayAssociation:GatewayAssociation"
ROUTES = [
    (ROUTE, "l-rt0-10-60-0-0-16"),
    (ROUTE, "l-rt0-10-70-0-0-20"),
    (ROUTE, "l-rt1-10-60-0-0-16"),
    (ROUTE, "l-rt1-10-70-0-0-20"),
]
DEDICATED = {
    "kind": "dedicated",
    "connection_id": "dxcon-ffabc123",
    "vlan": 301,
    "cloud_address": "169.254.10.1/30",
    "onprem_address": "169.254.10.2/30",
    "bgp_asn": 65010,
    "bgp_auth_config": "bgpKey",
}


def test_static_vpn_builds_exactly_its_resources(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AwsLink("l", link_args("aws", VPN)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:AwsLink", "l"),
            (VGW, "l-vgw"),
            (CGW, "l-cgw"),
            (VPN_CONNECTION, "l-vpn"),
            (VPN_ROUTE, "l-vpn-10-60-0-0-16"),
            (VPN_ROUTE, "l-vpn-10-70-0-0-20"),
            *ROUTES,
        ]
    )
    vgw = mocks.one(VGW, "l-vgw").inputs
    assert (vgw["vpcId"], vgw["amazonSideAsn"], vgw["region"]) == ("vpc-aws", "64512", "us-east-1")
    assert vgw["tags"] == {**TAGS, "Name": "l-vgw"}
    cgw = mocks.one(CGW, "l-cgw").inputs
    assert (cgw["ipAddress"], cgw["type"], cgw["bgpAsn"]) == ("203.0.113.10", "ipsec.1", "65000")
    routes = {r.name: r.inputs["destinationCidrBlock"] for r in mocks.of_type(VPN_ROUTE)}
    assert routes == {"l-vpn-10-60-0-0-16": "10.60.0.0/16", "l-vpn-10-70-0-0-20": "10.70.0.0/20"}
    assert {r.inputs["vpnConnectionId"] for r in mocks.of_type(VPN_ROUTE)} == {"l-vpn-id"}


def test_both_tunnels_are_set_explicitly_with_the_secret_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AwsLink("l", link_args("aws", VPN)))
    vpn = mocks.one(VPN_CONNECTION, "l-vpn").inputs
    assert (vpn["customerGatewayId"], vpn["vpnGatewayId"], vpn["type"]) == ("l-cgw-id", "l-vgw-id", "ipsec.1")
    assert vpn["staticRoutesOnly"] is True
    for tunnel in (1, 2):
        prefix = f"tunnel{tunnel}"
        assert vpn[f"{prefix}IkeVersions"] == ["ikev2"]
        for phase in (1, 2):
            assert vpn[f"{prefix}Phase{phase}EncryptionAlgorithms"] == ["AES256-GCM-16"]
            assert vpn[f"{prefix}Phase{phase}IntegrityAlgorithms"] == ["SHA2-384"]
            assert vpn[f"{prefix}Phase{phase}DhGroupNumbers"] == [20, 21]
        assert is_secret(vpn[f"{prefix}PresharedKey"], PSK), vpn[f"{prefix}PresharedKey"]
    assert PSK not in {str(v) for k, v in vpn.items() if not k.endswith("PresharedKey")}


def test_routes_reach_the_onprem_ranges_in_every_table_and_nothing_else(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AwsLink("l", link_args("aws", VPN)))
    routes = {
        r.name: (r.inputs["routeTableId"], r.inputs["destinationCidrBlock"], r.inputs["gatewayId"])
        for r in mocks.of_type(ROUTE)
    }
    assert routes == {
        "l-rt0-10-60-0-0-16": ("rtb-aws-0", "10.60.0.0/16", "l-vgw-id"),
        "l-rt0-10-70-0-0-20": ("rtb-aws-0", "10.70.0.0/20", "l-vgw-id"),
        "l-rt1-10-60-0-0-16": ("rtb-aws-1", "10.60.0.0/16", "l-vgw-id"),
        "l-rt1-10-70-0-0-20": ("rtb-aws-1", "10.70.0.0/20", "l-vgw-id"),
    }
    assert mocks.of_type("aws:ec2/vpnGatewayRoutePropagation:VpnGatewayRoutePropagation") == []


def test_bgp_vpn_uses_the_onprem_asn_and_no_static_routes(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AwsLink("l", link_args("aws", {**VPN, "bgp_asn": 65010})))
    assert mocks.one(CGW, "l-cgw").inputs["bgpAsn"] == "65010"
    assert mocks.one(VPN_CONNECTION, "l-vpn").inputs["staticRoutesOnly"] is False
    assert mocks.of_type(VPN_ROUTE) == []
    assert len(mocks.of_type(ROUTE)) == 4


def test_dedicated_link_uses_the_named_connection(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AwsLink("l", link_args("aws", DEDICATED)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:AwsLink", "l"),
            (VGW, "l-vgw"),
            (DX_GATEWAY, "l-dxgw"),
            (VIF, "l-vif"),
            (DX_ASSOCIATION, "l-dxgw-vgw"),
            *ROUTES,
        ]
    )
    dx_gateway = mocks.one(DX_GATEWAY, "l-dxgw").inputs
    assert (dx_gateway["amazonSideAsn"], dx_gateway["tags"]) == ("64513", TAGS)
    vif = mocks.one(VIF, "l-vif").inputs
    assert {k: vif[k] for k in ("connectionId", "dxGatewayId", "vlan", "addressFamily", "bgpAsn")} == {
        "connectionId": "dxcon-ffabc123",
        "dxGatewayId": "l-dxgw-id",
        "vlan": 301,
        "addressFamily": "ipv4",
        "bgpAsn": 65010,
    }
    assert (vif["amazonAddress"], vif["customerAddress"]) == ("169.254.10.1/30", "169.254.10.2/30")
    assert is_secret(vif["bgpAuthKey"], BGP_KEY)
    association = mocks.one(DX_ASSOCIATION, "l-dxgw-vgw").inputs
    assert association["associatedGatewayId"] == "l-vgw-id"
    # What AWS advertises to on-prem: the VPC's range only.
    assert association["allowedPrefixes"] == ["10.40.0.0/16"]


def test_missing_secret_config_stops_the_program_naming_the_key(run_pulumi: Runner) -> None:
    args = link_args("aws", {**VPN, "psk_config": "notSetPsk"})
    with pytest.raises(Exception, match="gpufleet:notSetPsk"):
        run_pulumi(lambda: AwsLink("l", args))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"onprem_ranges": ["0.0.0.0/0"]}, "onprem_ranges: 0.0.0.0/0 is wider than /8"),
        ({"onprem_ranges": ["10.40.128.0/20"]}, "10.40.128.0/20 overlaps the site.s VPC range"),
        ({"onprem_ranges": []}, "onprem_ranges: name at least one on-prem range"),
        ({"onprem_ranges": ["10.60.0.0/16", "10.60.0.0/16"]}, "overlaps 10.60.0.0/16: list each"),
        ({"onprem_ranges": ["10.60.0.1/16"]}, "'10.60.0.1/16' is not an IPv4 network like 10.60.0.0/16"),
        ({"site": "no-network"}, "site: aws:us-east-1 has no network of its own"),
        ({"site": "no-count"}, "site.route_table_count: is required with route_table_ids"),
        ({"tags": {"project": "vision"}}, "tags: missing cost tag 'team'"),
    ],
)  # fmt: skip
def test_bad_arguments_name_the_field(run_pulumi: Runner, change: dict[str, object], expected: str) -> None:
    def build() -> None:
        base = link_args("aws", VPN)
        values: dict[str, object] = {
            "site": base.site, "link": base.link, "onprem_ranges": ONPREM, "tags": TAGS, **change
        }  # fmt: skip
        if change.get("site") == "no-network":
            values["site"] = replace(base.site, vpc_id=None, vpc_cidr=None, route_table_ids=None)
        if change.get("site") == "no-count":
            values["site"] = replace(base.site, route_table_count=None)
        with pytest.raises(ValueError, match=expected.replace("/", ".")):
            LinkArgs(**values)  # type: ignore[arg-type]

    run_pulumi(build)
