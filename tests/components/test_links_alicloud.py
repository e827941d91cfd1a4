"""The Alibaba Cloud link under the recording mocks: exact resources, explicit IKE and IPsec settings
(the API defaults are md5 and group2), the secret key, and routes to the on-prem ranges only."""

from __future__ import annotations

from gpufleet.components.links.alicloud import AlicloudLink
from tests.components.conftest import Runner
from tests.components.links_support import BGP_KEY, PSK, TAGS, VPN, is_secret, link_args

GATEWAY = "alicloud:vpn/gateway:Gateway"
CGW = "alicloud:vpn/customerGateway:CustomerGateway"
CONNECTION = "alicloud:vpn/connection:Connection"
ROUTE = "alicloud:vpc/routeEntry:RouteEntry"
VBR = "alicloud:expressconnect/virtualBorderRouter:VirtualBorderRouter"
BGP_GROUP = "alicloud:vpc/bgpGroup:BgpGroup"
BGP_PEER = "alicloud:vpc/bgpPeer:BgpPeer"
CEN = "alicloud:cen/instance:Instance"
CEN_ATTACHMENT = "alicloud:cen/instanceAttachment:InstanceAttachment"
ROUTE_MAP = "alicloud:cen/routeMap:RouteMap"
DEDICATED = {
    "kind": "dedicated",
    "connection_id": "pc-bp1ciz7ekd2grn1as",
    "vlan": 120,
    "cloud_address": "169.254.20.1/30",
    "onprem_address": "169.254.20.2/30",
    "bgp_asn": 65010,
    "bgp_auth_config": "bgpKey",
}


def test_vpn_builds_exactly_its_resources(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", VPN)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:AlicloudLink", "l"),
            (GATEWAY, "l-vpngw"),
            (CGW, "l-cgw"),
            (CONNECTION, "l-ipsec"),
            (ROUTE, "l-rt0-10-60-0-0-16"),
            (ROUTE, "l-rt0-10-70-0-0-20"),
            (ROUTE, "l-rt1-10-60-0-0-16"),
            (ROUTE, "l-rt1-10-70-0-0-20"),
        ]
    )
    gateway = mocks.one(GATEWAY, "l-vpngw").inputs
    assert {k: gateway[k] for k in ("vpcId", "bandwidth", "enableIpsec", "enableSsl", "autoPropagate")} == {
        "vpcId": "vpc-alicloud",
        "bandwidth": 100,
        "enableIpsec": True,
        "enableSsl": False,
        "autoPropagate": False,
    }
    assert (gateway["paymentType"], gateway["networkType"], gateway["tags"]) == ("PayAsYouGo", "public", TAGS)
    cgw = mocks.one(CGW, "l-cgw").inputs
    assert cgw["ipAddress"] == "203.0.113.10"
    assert "asn" not in cgw


def test_ipsec_connection_sets_every_algorithm_and_a_secret_key(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", VPN)))
    connection = mocks.one(CONNECTION, "l-ipsec").inputs
    # The key makes the whole ike_config block a secret: never a plain key in the graph.
    wrapped = connection["ikeConfig"]
    ike = dict(wrapped["value"])
    assert is_secret(wrapped, ike)
    assert ike.pop("psk") == PSK
    assert ike == {
        "ikeVersion": "ikev2",
        "ikeMode": "main",
        "ikeEncAlg": "aes256",
        "ikeAuthAlg": "sha256",
        "ikePfs": "group14",
    }
    assert connection["ipsecConfig"] == {
        "ipsecEncAlg": "aes256",
        "ipsecAuthAlg": "sha256",
        "ipsecPfs": "group14",
    }
    assert connection["localSubnets"] == ["10.41.0.0/16"]
    assert connection["remoteSubnets"] == ["10.60.0.0/16", "10.70.0.0/20"]
    assert (connection["vpnGatewayId"], connection["customerGatewayId"]) == ("l-vpngw-id", "l-cgw-id")
    assert "bgpConfig" not in connection


def test_routes_reach_the_onprem_ranges_through_the_gateway_only(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", VPN)))
    routes = {
        r.name: (r.inputs["routeTableId"], r.inputs["destinationCidrblock"], r.inputs["nexthopType"])
        for r in mocks.of_type(ROUTE)
    }
    assert routes == {
        "l-rt0-10-60-0-0-16": ("rtb-alicloud-0", "10.60.0.0/16", "VpnGateway"),
        "l-rt0-10-70-0-0-20": ("rtb-alicloud-0", "10.70.0.0/20", "VpnGateway"),
        "l-rt1-10-60-0-0-16": ("rtb-alicloud-1", "10.60.0.0/16", "VpnGateway"),
        "l-rt1-10-70-0-0-20": ("rtb-alicloud-1", "10.70.0.0/20", "VpnGateway"),
    }
    assert {r.inputs["nexthopId"] for r in mocks.of_type(ROUTE)} == {"l-vpngw-id"}


def test_bgp_vpn_takes_the_first_tunnel_address(run_pulumi: Runner) -> None:
    link = {**VPN, "bgp_asn": 65010, "bgp_tunnel_cidr": "169.254.30.0/30", "bandwidth_mbps": 200}
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", link)))
    assert mocks.one(CONNECTION, "l-ipsec").inputs["bgpConfig"] == {
        "enable": True,
        "tunnelCidr": "169.254.30.0/30",
        "localBgpIp": "169.254.30.1",
    }
    assert mocks.one(CGW, "l-cgw").inputs["asn"] == "65010"
    assert mocks.one(GATEWAY, "l-vpngw").inputs["bandwidth"] == 200


def test_dedicated_link_joins_the_vbr_and_vpc_through_cen(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", DEDICATED)))
    assert mocks.names_by_type() == sorted(
        [
            ("gpufleet:links:AlicloudLink", "l"),
            (VBR, "l-vbr"),
            (BGP_GROUP, "l-bgp"),
            (BGP_PEER, "l-bgp-peer"),
            (CEN, "l-cen"),
            (CEN_ATTACHMENT, "l-cen-vpc"),
            (CEN_ATTACHMENT, "l-cen-vbr"),
            (ROUTE_MAP, "l-cen-onprem-in"),
            (ROUTE_MAP, "l-cen-other-deny"),
        ]
    )
    vbr = mocks.one(VBR, "l-vbr").inputs
    assert {
        k: vbr[k]
        for k in ("physicalConnectionId", "vlanId", "localGatewayIp", "peerGatewayIp", "peeringSubnetMask")
    } == {
        "physicalConnectionId": "pc-bp1ciz7ekd2grn1as",
        "vlanId": 120,
        "localGatewayIp": "169.254.20.1",
        "peerGatewayIp": "169.254.20.2",
        "peeringSubnetMask": "255.255.255.252",
    }
    group = mocks.one(BGP_GROUP, "l-bgp").inputs
    assert (group["routerId"], group["peerAsn"]) == ("l-vbr-id", 65010)
    assert is_secret(group["authKey"], BGP_KEY)
    assert mocks.one(BGP_PEER, "l-bgp-peer").inputs["peerIpAddress"] == "169.254.20.2"
    attachments = {
        r.name: (r.inputs["instanceId"], r.inputs["childInstanceId"], r.inputs["childInstanceType"])
        for r in mocks.of_type(CEN_ATTACHMENT)
    }
    assert attachments == {
        "l-cen-vpc": ("l-cen-id", "vpc-alicloud", "VPC"),
        "l-cen-vbr": ("l-cen-id", "l-vbr-id", "VBR"),
    }
    permit = mocks.one(ROUTE_MAP, "l-cen-onprem-in").inputs
    deny = mocks.one(ROUTE_MAP, "l-cen-other-deny").inputs
    assert (permit["priority"], permit["mapResult"], permit["transmitDirection"]) == (1, "Permit", "RegionIn")
    assert permit["destinationCidrBlocks"] == ["10.60.0.0/16", "10.70.0.0/20"]
    assert (deny["priority"], deny["mapResult"], deny["sourceInstanceIds"]) == (2, "Deny", ["l-vbr-id"])
    assert "destinationCidrBlocks" not in deny
    assert mocks.of_type(ROUTE) == []


def test_dedicated_link_uses_a_named_cen_instance(run_pulumi: Runner) -> None:
    link = {**DEDICATED, "cen_id": "cen-7qthudw0ll6jmc"}
    mocks = run_pulumi(lambda: AlicloudLink("l", link_args("alicloud", link)))
    assert mocks.of_type(CEN) == []
    assert {r.inputs["instanceId"] for r in mocks.of_type(CEN_ATTACHMENT)} == {"cen-7qthudw0ll6jmc"}
    assert {r.inputs["cenId"] for r in mocks.of_type(ROUTE_MAP)} == {"cen-7qthudw0ll6jmc"}
