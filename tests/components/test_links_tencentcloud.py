"""The Tencent Cloud link under the recording mocks: exact resources, explicit crypto (the API
defaults are IKEv1, 3DES, MD5 and GROUP1), the secret key, and routes to the on-prem ranges only."""

from __future__ import annotations

from gpufleet.components.links.tencentcloud import TencentLink
from tests.components.conftest import Runner
from tests.components.links_support import BGP_KEY, PSK, TAGS, VPN, is_secret, link_args

GATEWAY = "tencentcloud:Vpn/gateway:Gateway"
CGW = "tencentcloud:Vpn/customerGateway:CustomerGateway"
CONNECTION = "tencentcloud:Vpn/connection:Connection"
GATEWAY_ROUTE = "tencentcloud:Vpn/gatewayRoute:GatewayRoute"
ROUTE = "tencentcloud:Route/tableEntry:TableEntry"
DCG = "tencentcloud:Dc/gateway:Gateway"
TUNNEL = "tencentcloud:Dcx/instance:Instance"
CCN_ATTACHMENT = "tencentcloud:Ccn/attachmentV2:AttachmentV2"
CCN_ROUTE = "tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute"
ROUTES = [
    (ROUTE, "l-rt0-10-60-0-0-16"),
    (ROUTE, "l-rt0-10-70-0-0-20"),
    (ROUTE, "l-rt1-10-60-0-0-16"),
    (ROUTE, "l-rt1-10-70-0-0-20"),
]
DEDICATED = {
    "kind": "dedicated",
    "connection_id": "dc-kax48sg7",
    "vlan": 301,
    "cloud_address": "169.254.40.1/30",
    "onprem_address": "169.254.40.2/30",
}


def test_vpn_builds_exactly_its_resources(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", VPN)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:TencentLink", "l"),
            (GATEWAY, "l-vpngw"),
            (CGW, "l-cgw"),
            (CONNECTION, "l-ipsec"),
            (GATEWAY_ROUTE, "l-vpn-10-60-0-0-16"),
            (GATEWAY_ROUTE, "l-vpn-10-70-0-0-20"),
            *ROUTES,
        ]
    )
    gateway = mocks.one(GATEWAY, "l-vpngw").inputs
    assert {k: gateway[k] for k in ("vpcId", "bandwidth", "chargeType", "type", "tags")} == {
        "vpcId": "vpc-tencentcloud",
        "bandwidth": 100,
        "chargeType": "POSTPAID_BY_HOUR",
        "type": "IPSEC",
        "tags": TAGS,
    }
    assert mocks.one(CGW, "l-cgw").inputs["publicIpAddress"] == "203.0.113.10"
    gateway_routes = {
        r.name: (r.inputs["destinationCidrBlock"], r.inputs["instanceType"], r.inputs["instanceId"])
        for r in mocks.of_type(GATEWAY_ROUTE)
    }
    assert gateway_routes == {
        "l-vpn-10-60-0-0-16": ("10.60.0.0/16", "VPNCONN", "l-ipsec-id"),
        "l-vpn-10-70-0-0-20": ("10.70.0.0/20", "VPNCONN", "l-ipsec-id"),
    }


def test_connection_sets_every_algorithm_and_a_secret_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", VPN)))
    connection = mocks.one(CONNECTION, "l-ipsec").inputs
    assert is_secret(connection["preShareKey"], PSK)
    assert {
        k: connection[k]
        for k in (
            "ikeVersion",
            "ikeExchangeMode",
            "ikeProtoEncryAlgorithm",
            "ikeProtoAuthenAlgorithm",
            "ikeDhGroupName",
            "ipsecEncryptAlgorithm",
            "ipsecIntegrityAlgorithm",
            "ipsecPfsDhGroup",
            "routeType",
        )
    } == {
        "ikeVersion": "IKEV2",
        "ikeExchangeMode": "MAIN",
        "ikeProtoEncryAlgorithm": "AES-CBC-256",
        "ikeProtoAuthenAlgorithm": "SHA-256",
        "ikeDhGroupName": "GROUP14",
        "ipsecEncryptAlgorithm": "AES-CBC-256",
        "ipsecIntegrityAlgorithm": "SHA-256",
        "ipsecPfsDhGroup": "DH-GROUP14",
        "routeType": "StaticRoute",
    }
    assert connection["securityGroupPolicies"] == [
        {"localCidrBlock": "10.42.0.0/16", "remoteCidrBlocks": ["10.60.0.0/16", "10.70.0.0/20"]}
    ]


def test_routes_reach_the_onprem_ranges_through_the_gateway_only(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", VPN)))
    routes = {
        r.name: (r.inputs["routeTableId"], r.inputs["destinationCidrBlock"], r.inputs["nextType"])
        for r in mocks.of_type(ROUTE)
    }
    assert routes == {
        "l-rt0-10-60-0-0-16": ("rtb-tencentcloud-0", "10.60.0.0/16", "VPN"),
        "l-rt0-10-70-0-0-20": ("rtb-tencentcloud-0", "10.70.0.0/20", "VPN"),
        "l-rt1-10-60-0-0-16": ("rtb-tencentcloud-1", "10.60.0.0/16", "VPN"),
        "l-rt1-10-70-0-0-20": ("rtb-tencentcloud-1", "10.70.0.0/20", "VPN"),
    }
    assert {r.inputs["nextHub"] for r in mocks.of_type(ROUTE)} == {"l-vpngw-id"}


def test_bgp_vpn_peers_over_the_tunnel_range(run_pulumi: Runner) -> None:
    link = {**VPN, "bgp_asn": 65010, "bgp_tunnel_cidr": "169.254.31.0/30"}
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", link)))
    connection = mocks.one(CONNECTION, "l-ipsec").inputs
    assert connection["routeType"] == "Bgp"
    assert connection["bgpConfig"] == {
        "tunnelCidr": "169.254.31.0/30",
        "localBgpIp": "169.254.31.1",
        "remoteBgpIp": "169.254.31.2",
    }
    assert mocks.one(CGW, "l-cgw").inputs["bgpAsn"] == 65010
    assert mocks.of_type(GATEWAY_ROUTE) == []
    assert len(mocks.of_type(ROUTE)) == 4


def test_static_dedicated_link_routes_through_a_vpc_gateway(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", DEDICATED)))
    assert mocks.names_by_type() == sorted(
        [("gpufleet:links:TencentLink", "l"), (DCG, "l-dcg"), (TUNNEL, "l-tunnel"), *ROUTES]
    )
    dcg = mocks.one(DCG, "l-dcg").inputs
    assert (dcg["networkType"], dcg["networkInstanceId"], dcg["gatewayType"]) == (
        "VPC",
        "vpc-tencentcloud",
        "NORMAL",
    )
    tunnel = mocks.one(TUNNEL, "l-tunnel").inputs
    assert {
        k: tunnel[k]
        for k in ("dcId", "dcgId", "networkType", "vpcId", "vlan", "routeType", "routeFilterPrefixes")
    } == {
        "dcId": "dc-kax48sg7",
        "dcgId": "l-dcg-id",
        "networkType": "VPC",
        "vpcId": "vpc-tencentcloud",
        "vlan": 301,
        "routeType": "STATIC",
        "routeFilterPrefixes": ["10.60.0.0/16", "10.70.0.0/20"],
    }
    assert (tunnel["tencentAddress"], tunnel["customerAddress"]) == ("169.254.40.1/30", "169.254.40.2/30")
    assert {(r.inputs["nextType"], r.inputs["nextHub"]) for r in mocks.of_type(ROUTE)} == {
        ("DIRECTCONNECT", "l-dcg-id")
    }


def test_bgp_dedicated_link_on_a_ccn_publishes_the_onprem_ranges_only(run_pulumi: Runner) -> None:
    link = {**DEDICATED, "bgp_asn": 65010, "bgp_auth_config": "bgpKey", "ccn_id": "ccn-gree226l"}
    mocks = run_pulumi(lambda: TencentLink("l", link_args("tencentcloud", link)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:TencentLink", "l"),
            (DCG, "l-dcg"),
            (TUNNEL, "l-tunnel"),
            (CCN_ATTACHMENT, "l-ccn-vpc"),
            (CCN_ROUTE, "l-ccn-10-60-0-0-16"),
            (CCN_ROUTE, "l-ccn-10-70-0-0-20"),
        ]
    )
    assert mocks.one(DCG, "l-dcg").inputs["networkInstanceId"] == "ccn-gree226l"
    tunnel = mocks.one(TUNNEL, "l-tunnel").inputs
    assert (tunnel["networkType"], tunnel["routeType"], tunnel["bgpAsn"]) == ("CCN", "BGP", 65010)
    assert is_secret(tunnel["bgpAuthKey"], BGP_KEY)
    assert "routeFilterPrefixes" not in tunnel
    attachment = mocks.one(CCN_ATTACHMENT, "l-ccn-vpc").inputs
    assert (attachment["ccnId"], attachment["instanceType"], attachment["instanceId"]) == (
        "ccn-gree226l",
        "VPC",
        "vpc-tencentcloud",
    )
    assert sorted(r.inputs["cidrBlock"] for r in mocks.of_type(CCN_ROUTE)) == ["10.60.0.0/16", "10.70.0.0/20"]
