from __future__ import annotations

import pytest

from gpufleet.policies.network.range_overlap import POLICY, RULE
from tests.policies.verdicts import node, verdicts

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

AWS_VPC = "aws:ec2/vpc:Vpc"
AWS_VPC_CIDR = "aws:ec2/vpcIpv4CidrBlockAssociation:VpcIpv4CidrBlockAssociation"
AWS_VPN_ROUTE = "aws:ec2/vpnConnectionRoute:VpnConnectionRoute"
ALI_VPC = "alicloud:vpc/network:Network"
ALI_VPN = "alicloud:vpn/connection:Connection"
TC_VPC = "tencentcloud:Vpc/instance:Instance"
TC_VPN = "tencentcloud:Vpn/connection:Connection"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIGMAP = "kubernetes:core/v1:ConfigMap"
FIX = "; give each network of the fleet a disjoint range"


def fleet() -> list:
    return [
        res(AWS_VPC, "aws-vpc", {"cidrBlock": "10.20.0.0/16"}),
        res(
            AWS_VPN_ROUTE, "onprem-route", {"destinationCidrBlock": "10.0.0.0/16", "vpnConnectionId": "vpn-1"}
        ),
        res(ALI_VPC, "ali-vpc", {"cidrBlock": "10.30.0.0/16", "secondaryCidrBlocks": ["10.31.0.0/16"]}),
        res(
            ALI_VPN,
            "ali-vpn",
            # the local subnet is the VPC's own range: not a second network
            {"localSubnets": ["10.30.0.0/16"], "remoteSubnets": ["10.0.0.0/16", "10.1.0.0/16"]},
        ),
        res(TC_VPC, "tc-vpc", {"cidrBlock": "10.40.0.0/16"}),
        res(
            TC_VPN,
            "tc-vpn",
            {
                "securityGroupPolicies": [
                    {"localCidrBlock": "10.40.0.0/16", "remoteCidrBlocks": ["10.0.0.0/16"]}
                ]
            },
        ),
        res(
            CONFIGMAP,
            "cluster-ranges",
            {
                "metadata": {
                    "annotations": {
                        "gpufleet.io/pod-cidr": "10.96.0.0/12",
                        "gpufleet.io/service-cidr": "172.20.0.0/16",
                        "gpufleet.io/node-cidr": "10.0.0.0/16",
                    }
                }
            },
        ),
    ]


def test_metadata() -> None:
    assert RULE.id == "GF-NET-002"
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud", "kubernetes")
    assert RULE.defaults() == {"onprem_cidrs": []}


def test_disjoint_fleet_passes() -> None:
    assert run_stack(POLICY, fleet()) == []


def test_vpc_overlapping_on_prem_route() -> None:
    resources = [*fleet(), res(AWS_VPC, "second", {"cidrBlock": "10.0.128.0/20"})]
    assert run_stack(POLICY, resources) == [
        (
            f"VPC 'second' range 10.0.128.0/20 overlaps {src} range 10.0.0.0/16" + FIX,
            urn_of(AWS_VPC, "second"),
        )
        for src in [
            "VPN route 'onprem-route'",
            "VPN connection 'ali-vpn'",
            "VPN connection 'tc-vpn'",
            "ConfigMap 'cluster-ranges' gpufleet.io/node-cidr",
        ]
    ]


def test_two_vpcs_overlap_once() -> None:
    resources = [
        res(AWS_VPC, "a", {"cidrBlock": "10.20.0.0/16"}),
        res(TC_VPC, "b", {"cidrBlock": "10.20.0.0/16"}),
    ]
    assert run_stack(POLICY, resources) == [
        ("VPC 'a' range 10.20.0.0/16 overlaps VPC 'b' range 10.20.0.0/16" + FIX, urn_of(AWS_VPC, "a"))
    ]


def test_vpcs_of_one_cloud_conflict_only_when_the_stack_joins_networks() -> None:
    east = res(AWS_VPC, "east", {"cidrBlock": "10.20.0.0/16"})
    west = res(AWS_VPC, "west", {"cidrBlock": "10.20.0.0/16"})
    # Two separate VPCs, nothing routed between them: a copied per-region network is fine.
    assert run_stack(POLICY, [east, west]) == []
    peering = res("aws:ec2/vpcPeeringConnection:VpcPeeringConnection", "peer", {"vpcId": "vpc-1"})
    assert run_stack(POLICY, [east, west, peering]) == [
        (
            "VPC 'east' range 10.20.0.0/16 overlaps VPC 'west' range 10.20.0.0/16" + FIX,
            urn_of(AWS_VPC, "east"),
        )
    ]
    # An on-prem range makes it a hybrid fleet too.
    assert len(run_stack(POLICY, [east, west], config={"onprem_cidrs": ["192.168.0.0/16"]})) == 1


def test_secondary_range_and_association_belong_to_their_vpc() -> None:
    vpc = res(AWS_VPC, "main", {"cidrBlock": "10.20.0.0/16"})
    assoc = res(AWS_VPC_CIDR, "extra", {"cidrBlock": "10.21.0.0/16"}, prop_deps={"vpcId": [vpc]})
    onprem = res(AWS_VPN_ROUTE, "r", {"destinationCidrBlock": "10.21.4.0/24"})
    assert run_stack(POLICY, [vpc, assoc, onprem]) == [
        (
            "VPC CIDR 'extra' range 10.21.0.0/16 overlaps VPN route 'r' range 10.21.4.0/24" + FIX,
            urn_of(AWS_VPC_CIDR, "extra"),
        )
    ]
    ali = res(ALI_VPC, "ali", {"cidrBlock": "10.30.0.0/16", "secondaryCidrBlocks": ["10.0.0.0/8"]})
    [(message, urn)] = run_stack(POLICY, [ali, onprem])
    assert message == "VPC 'ali' range 10.0.0.0/8 overlaps VPN route 'r' range 10.21.4.0/24" + FIX
    assert urn == urn_of(ALI_VPC, "ali")


def test_pod_range_overlapping_cloud_and_service_range() -> None:
    ns = res(
        NAMESPACE,
        "gpu",
        {
            "metadata": {
                "annotations": {
                    "gpufleet.io/pod-cidr": "10.20.0.0/14",
                    "gpufleet.io/service-cidr": "10.22.0.0/16",
                }
            }
        },
    )
    vpc = res(AWS_VPC, "aws-vpc", {"cidrBlock": "10.20.0.0/16"})
    assert run_stack(POLICY, [vpc, ns]) == [
        (
            "VPC 'aws-vpc' range 10.20.0.0/16 overlaps Namespace 'gpu' "
            "gpufleet.io/pod-cidr range 10.20.0.0/14" + FIX,
            urn_of(AWS_VPC, "aws-vpc"),
        ),
        (
            "Namespace 'gpu' gpufleet.io/pod-cidr range 10.20.0.0/14 overlaps "
            "Namespace 'gpu' gpufleet.io/service-cidr range 10.22.0.0/16" + FIX,
            urn_of(NAMESPACE, "gpu"),
        ),
    ]


def test_on_prem_ranges_from_config() -> None:
    vpc = res(TC_VPC, "tc", {"cidrBlock": "192.168.0.0/16"})
    assert run_stack(POLICY, [vpc], config={"onprem_cidrs": ["192.168.10.0/24"]}) == [
        (
            "VPC 'tc' range 192.168.0.0/16 overlaps policy config onprem_cidrs range 192.168.10.0/24" + FIX,
            urn_of(TC_VPC, "tc"),
        )
    ]
    assert run_stack(POLICY, [vpc], config={"onprem_cidrs": ["172.16.0.0/12"]}) == []


def test_on_prem_against_on_prem_and_any_ranges_are_not_reported() -> None:
    resources = [
        res(AWS_VPN_ROUTE, "r1", {"destinationCidrBlock": "10.0.0.0/8"}),
        res(AWS_VPN_ROUTE, "r2", {"destinationCidrBlock": "10.1.0.0/16"}),
        res(AWS_VPN_ROUTE, "default", {"destinationCidrBlock": "0.0.0.0/0"}),
        res(AWS_VPC, "v", {"cidrBlock": "172.31.0.0/16"}),
    ]
    assert run_stack(POLICY, resources) == []


def test_ipv6_ranges() -> None:
    resources = [
        res(AWS_VPC, "a", {"cidrBlock": "10.1.0.0/16", "ipv6CidrBlock": "2600:1f18::/56"}),
        res(AWS_VPN_ROUTE, "r", {"destinationCidrBlock": "2600:1f18:0:10::/64"}),
    ]
    [(message, _)] = run_stack(POLICY, resources)
    assert message == "VPC 'a' range 2600:1f18::/56 overlaps VPN route 'r' range 2600:1f18:0:10::/64" + FIX


def test_unknown_vpc_range_is_reported() -> None:
    resources = [res(AWS_VPC, "a", {"cidrBlock": UNKNOWN_STRING_VALUE}, proxy=True)]
    assert run_stack(POLICY, resources) == [
        (
            "could not be judged at preview: the string value at .cidrBlock can't be known during preview",
            urn_of(AWS_VPC, "a"),
        )
    ]


def test_proxied_props() -> None:
    resources = [
        res(ALI_VPC, "ali", {"cidrBlock": "10.30.0.0/16"}, proxy=True),
        res(
            ALI_VPN, "vpn", {"localSubnets": ["10.30.0.0/16"], "remoteSubnets": ["10.30.1.0/24"]}, proxy=True
        ),
    ]
    assert run_stack(POLICY, resources) == [
        (
            "VPC 'ali' range 10.30.0.0/16 overlaps VPN connection 'vpn' range 10.30.1.0/24" + FIX,
            urn_of(ALI_VPC, "ali"),
        )
    ]


@pytest.mark.timeout(60)
def test_many_disjoint_vpcs_are_judged_without_pairwise_blowup() -> None:
    resources = [res(AWS_VPC, f"v{i}", {"cidrBlock": f"10.{i // 256}.{i % 256}.0/24"}) for i in range(4000)]
    assert run_stack(POLICY, resources) == []


AWS_VGW = "aws:ec2/vpnGateway:VpnGateway"
AWS_IGW = "aws:ec2/internetGateway:InternetGateway"


@pytest.mark.parametrize(
    ("resource_type", "props", "source"),
    [
        # A dedicated line routes on-prem ranges with no VPN route at all: the forms it leaves.
        ("tencentcloud:Dcx/instance:Instance", {"routeFilterPrefixes": ["10.0.0.0/16"], "dcId": "dc-1"},
         "dedicated tunnel 'onprem'"),
        ("tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute", {"cidrBlock": "10.0.0.0/16", "dcgId": "dcg-1"},
         "Direct Connect gateway route 'onprem'"),
        # Routes in a VPC's tables toward the VPN or Direct Connect gateway lead on-prem.
        ("aws:ec2/route:Route", {"destinationCidrBlock": "10.0.0.0/16", "gatewayId": "vgw-0abc"},
         "route 'onprem' to a virtual private gateway"),
        ("alicloud:vpc/routeEntry:RouteEntry",
         {"destinationCidrblock": "10.0.0.0/16", "nexthopType": "VpnGateway", "nexthopId": "vpn-1"},
         "route 'onprem' to a VPN gateway"),
        ("tencentcloud:Route/tableEntry:TableEntry",
         {"destinationCidrBlock": "10.0.0.0/16", "nextType": "DIRECTCONNECT", "nextHub": "dcg-1"},
         "route 'onprem' to a VPN or Direct Connect gateway"),
    ],
)  # fmt: skip
def test_on_prem_ranges_of_dedicated_lines_and_gateway_routes(
    resource_type: str, props: dict[str, object], source: str
) -> None:
    vpc = res(AWS_VPC, "cloud", {"cidrBlock": "10.0.128.0/20"})
    assert run_stack(POLICY, [vpc, res(resource_type, "onprem", props)]) == [
        (
            f"VPC 'cloud' range 10.0.128.0/20 overlaps {source} range 10.0.0.0/16" + FIX,
            urn_of(AWS_VPC, "cloud"),
        )
    ]


def test_aws_route_to_a_vpn_gateway_by_reference_is_on_prem_and_others_are_not() -> None:
    vpc = res(AWS_VPC, "cloud", {"cidrBlock": "10.0.128.0/20"})
    vgw = res(AWS_VGW, "vgw", {})
    igw = res(AWS_IGW, "igw", {})
    to_vgw = res(
        "aws:ec2/route:Route",
        "to-vgw",
        {"destinationCidrBlock": "10.0.0.0/16", "gatewayId": UNKNOWN_STRING_VALUE},
        prop_deps={"gatewayId": [vgw]},
    )
    to_igw = res(
        "aws:ec2/route:Route",
        "to-igw",
        {"destinationCidrBlock": "10.0.0.0/16", "gatewayId": "igw-1"},
        prop_deps={"gatewayId": [igw]},
    )
    found = run_stack(POLICY, [vpc, vgw, igw, to_vgw, to_igw])
    assert isinstance(found, list)
    assert [message for message, _ in found] == [
        "VPC 'cloud' range 10.0.128.0/20 overlaps route 'to-vgw' to a virtual private gateway range "
        "10.0.0.0/16" + FIX
    ]


AWS_VPN = "aws:ec2/vpnConnection:VpnConnection"


def test_aws_vpn_connection_sides_read_as_aws_names_them() -> None:
    """AWS names the customer gateway's (on-prem) side `localIpv4NetworkCidr` and its own side
    `remoteIpv4NetworkCidr`: a remote range equal to the VPC is the VPC itself, not an overlap."""
    vpc = node(AWS_VPC, "gpu-vpc", {"cidrBlock": "10.20.0.0/16"})
    correct = node(
        AWS_VPN,
        "dc-vpn",
        {"localIpv4NetworkCidr": "192.168.0.0/16", "remoteIpv4NetworkCidr": "10.20.0.0/16"},
    )
    assert verdicts(POLICY, [vpc, correct]) == []
    # AWS's defaults (0.0.0.0/0 on both sides) say nothing about either network.
    defaults = node(
        AWS_VPN, "dc-vpn", {"localIpv4NetworkCidr": "0.0.0.0/0", "remoteIpv4NetworkCidr": "0.0.0.0/0"}
    )
    assert verdicts(POLICY, [vpc, defaults]) == []


@pytest.mark.parametrize(
    ("local", "remote"),
    [
        ("10.0.0.0/8", "10.20.0.0/16"),  # the on-prem side contains the VPC
        ("10.20.128.0/20", "10.20.0.0/16"),  # the on-prem side sits inside the VPC
        ("10.20.0.0/16", None),
    ],
)
def test_aws_vpn_connection_on_prem_side_overlapping_the_vpc(local: str, remote: str | None) -> None:
    vpc = node(AWS_VPC, "gpu-vpc", {"cidrBlock": "10.20.0.0/16"})
    sides = {"localIpv4NetworkCidr": local} | ({"remoteIpv4NetworkCidr": remote} if remote else {})
    assert verdicts(POLICY, [vpc, node(AWS_VPN, "dc-vpn", sides)]) == [
        (
            "GF-NET-002",
            "mandatory",
            f"VPC 'gpu-vpc' range 10.20.0.0/16 overlaps VPN connection 'dc-vpn' range {local}" + FIX,
            "gpu-vpc",
        )
    ]


def test_aws_vpn_connection_ipv6_on_prem_side() -> None:
    vpc = node(AWS_VPC, "gpu-vpc", {"cidrBlock": "10.20.0.0/16", "ipv6CidrBlock": "2600:1f18::/56"})
    remote_only = node(AWS_VPN, "dc-vpn", {"remoteIpv6NetworkCidr": "2600:1f18::/56"})
    assert verdicts(POLICY, [vpc, remote_only]) == []
    local = node(AWS_VPN, "dc-vpn", {"localIpv6NetworkCidr": "2600:1f18:0:40::/60"})
    assert verdicts(POLICY, [vpc, local]) == [
        (
            "GF-NET-002",
            "mandatory",
            "VPC 'gpu-vpc' range 2600:1f18::/56 overlaps VPN connection 'dc-vpn' range 2600:1f18:0:40::/60"
            + FIX,
            "gpu-vpc",
        )
    ]
