"""GF-NET-003: a subnet without an explicit route table association uses its VPC's main table, and
programs routinely add the internet route to that table through the VPC's own output."""

from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.network.gpu_subnet_internet_route import POLICY

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

VPC = "aws:ec2/vpc:Vpc"
SUBNET = "aws:ec2/subnet:Subnet"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ROUTE = "aws:ec2/route:Route"
ASSOC = "aws:ec2/routeTableAssociation:RouteTableAssociation"
DEFAULT_TABLE = "aws:ec2/defaultRouteTable:DefaultRouteTable"
MAIN_ASSOC = "aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation"
IGW = "aws:ec2/internetGateway:InternetGateway"
NAT = "aws:ec2/natGateway:NatGateway"
INSTANCE = "aws:ec2/instance:Instance"
ALI_VPC = "alicloud:vpc/network:Network"
ALI_SWITCH = "alicloud:vpc/switch:Switch"
ALI_ROUTE_ENTRY = "alicloud:vpc/routeEntry:RouteEntry"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
TC_VPC = "tencentcloud:Vpc/instance:Instance"
TC_SUBNET = "tencentcloud:Subnet/instance:Instance"
TC_ROUTE_ENTRY = "tencentcloud:Route/tableEntry:TableEntry"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
FIX = "; use a private subnet that reaches the internet through a NAT gateway"
U = UNKNOWN_STRING_VALUE

VPC_RES = res(VPC, "fleet", {"cidrBlock": "10.0.0.0/16"})
IGW_RES = res(IGW, "igw", {"vpcId": U}, prop_deps={"vpcId": [VPC_RES]})
SUBNET_RES = res(SUBNET, "gpu-a", {"vpcId": U, "cidrBlock": "10.0.1.0/24"}, prop_deps={"vpcId": [VPC_RES]})


def gpu(
    subnet: PolicyResource, token: str = INSTANCE, prop: str = "subnetId", kind: str = "g5.xlarge"
) -> PolicyResource:
    return res(token, "worker", {"instanceType": kind, prop: U}, prop_deps={prop: [subnet]})


def route_on(table: PolicyResource, gateway: PolicyResource, name: str = "internet") -> PolicyResource:
    prop = "gatewayId" if gateway.resource_type == IGW else "natGatewayId"
    return res(
        ROUTE,
        name,
        {"routeTableId": U, "destinationCidrBlock": "0.0.0.0/0", prop: U},
        prop_deps={"routeTableId": [table], prop: [gateway]},
    )


def test_internet_route_on_the_vpc_main_table_reaches_an_unassociated_subnet() -> None:
    # aws.ec2.Route(route_table_id=vpc.main_route_table_id, gateway_id=igw.id)
    stack = [VPC_RES, IGW_RES, SUBNET_RES, route_on(VPC_RES, IGW_RES), gpu(SUBNET_RES)]
    assert run_stack(POLICY, stack) == [
        (
            "GPU pool 'worker' sits in subnet 'gpu-a', which has no route table association, so its main "
            "route table of VPC 'fleet' has route 'internet' (0.0.0.0/0 to an internet gateway)" + FIX,
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_main_table_route_through_nat_passes() -> None:
    nat = res(NAT, "nat", {})
    assert run_stack(POLICY, [VPC_RES, nat, SUBNET_RES, route_on(VPC_RES, nat), gpu(SUBNET_RES)]) == []


def test_explicit_private_association_overrides_the_public_main_table() -> None:
    nat = res(NAT, "nat", {})
    private = res(ROUTE_TABLE, "private", {"vpcId": U}, prop_deps={"vpcId": [VPC_RES]})
    assoc = res(
        ASSOC,
        "gpu-a",
        {"subnetId": U, "routeTableId": U},
        prop_deps={"subnetId": [SUBNET_RES], "routeTableId": [private]},
    )
    stack = [
        VPC_RES,
        IGW_RES,
        nat,
        SUBNET_RES,
        private,
        assoc,
        route_on(VPC_RES, IGW_RES),
        route_on(private, nat, "private-default"),
        gpu(SUBNET_RES),
    ]
    assert run_stack(POLICY, stack) == []


def test_default_route_table_inline_internet_route() -> None:
    default = res(
        DEFAULT_TABLE,
        "main",
        {"defaultRouteTableId": U, "routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": U}]},
        prop_deps={"defaultRouteTableId": [VPC_RES], "routes": [IGW_RES]},
    )
    assert run_stack(POLICY, [VPC_RES, IGW_RES, SUBNET_RES, default, gpu(SUBNET_RES)]) == [
        (
            "GPU pool 'worker' sits in subnet 'gpu-a', which has no route table association, so its default "
            "route table 'main' has an inline route (0.0.0.0/0 to an internet gateway)" + FIX,
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_main_route_table_association_makes_a_public_table_main() -> None:
    public = res(
        ROUTE_TABLE,
        "public",
        {"vpcId": U, "routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0abc"}]},
        prop_deps={"vpcId": [VPC_RES]},
    )
    main = res(
        MAIN_ASSOC,
        "main",
        {"vpcId": U, "routeTableId": U},
        prop_deps={"vpcId": [VPC_RES], "routeTableId": [public]},
    )
    assert run_stack(POLICY, [VPC_RES, SUBNET_RES, public, main, gpu(SUBNET_RES)]) == [
        (
            "GPU pool 'worker' sits in subnet 'gpu-a', which has no route table association, so its route "
            "table 'public' has an inline route (0.0.0.0/0 to an internet gateway)" + FIX,
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_main_route_table_association_to_a_private_table_replaces_the_vpc_main_table() -> None:
    private = res(ROUTE_TABLE, "private", {"vpcId": U}, prop_deps={"vpcId": [VPC_RES]})
    main = res(
        MAIN_ASSOC,
        "main",
        {"vpcId": U, "routeTableId": U},
        prop_deps={"vpcId": [VPC_RES], "routeTableId": [private]},
    )
    stack = [VPC_RES, IGW_RES, SUBNET_RES, private, main, route_on(VPC_RES, IGW_RES), gpu(SUBNET_RES)]
    assert run_stack(POLICY, stack) == []


def test_alicloud_system_route_table_entry_to_an_ipv4_gateway() -> None:
    vpc = res(ALI_VPC, "ali-vpc", {"cidrBlock": "172.16.0.0/16"})
    switch = res(ALI_SWITCH, "ali-a", {"vpcId": U, "cidrBlock": "172.16.1.0/24"}, prop_deps={"vpcId": [vpc]})
    entry = res(
        ALI_ROUTE_ENTRY,
        "ali-inet",
        {"routeTableId": U, "destinationCidrblock": "0.0.0.0/0", "nexthopType": "Ipv4Gateway"},
        prop_deps={"routeTableId": [vpc]},
    )
    instance = gpu(switch, ALI_INSTANCE, "vswitchId", "ecs.gn7i-c8g1.2xlarge")
    assert run_stack(POLICY, [vpc, switch, entry, instance]) == [
        (
            "GPU pool 'worker' sits in subnet 'ali-a', which has no route table association, so its main "
            "route table of VPC 'ali-vpc' has route entry 'ali-inet' (0.0.0.0/0 to an Ipv4Gateway)" + FIX,
            urn_of(ALI_INSTANCE, "worker"),
        )
    ]


def test_tencent_default_route_table_entry_to_eip() -> None:
    vpc = res(TC_VPC, "tc-vpc", {"cidrBlock": "172.20.0.0/16"})
    subnet = res(TC_SUBNET, "tc-a", {"vpcId": U, "cidrBlock": "172.20.1.0/24"}, prop_deps={"vpcId": [vpc]})
    entry = res(
        TC_ROUTE_ENTRY,
        "tc-inet",
        {"routeTableId": U, "destinationCidrBlock": "0.0.0.0/0", "nextType": "EIP", "nextHub": "0"},
        prop_deps={"routeTableId": [vpc]},
    )
    instance = gpu(subnet, TC_INSTANCE, "subnetId", "GN7.2XLARGE32")
    assert run_stack(POLICY, [vpc, subnet, entry, instance]) == [
        (
            "GPU pool 'worker' sits in subnet 'tc-a', which has no route table association, so its main "
            "route table of VPC 'tc-vpc' has route entry 'tc-inet' (0.0.0.0/0 to EIP)" + FIX,
            urn_of(TC_INSTANCE, "worker"),
        )
    ]
