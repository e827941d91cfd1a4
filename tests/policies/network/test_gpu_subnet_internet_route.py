from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.network.gpu_subnet_internet_route import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

SUBNET = "aws:ec2/subnet:Subnet"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ROUTE = "aws:ec2/route:Route"
ASSOC = "aws:ec2/routeTableAssociation:RouteTableAssociation"
IGW = "aws:ec2/internetGateway:InternetGateway"
NAT = "aws:ec2/natGateway:NatGateway"
INSTANCE = "aws:ec2/instance:Instance"
ASG = "aws:autoscaling/group:Group"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
FIX = "; use a private subnet that reaches the internet through a NAT gateway"


def aws_network(gateway: str) -> tuple[PolicyResource, list[PolicyResource]]:
    """A subnet whose route table sends 0.0.0.0/0 to `gateway` (igw or nat)."""
    subnet = res(SUBNET, "gpu-a", {"cidrBlock": "10.20.1.0/24", "vpcId": UNKNOWN_STRING_VALUE})
    table = res(ROUTE_TABLE, "private", {"vpcId": UNKNOWN_STRING_VALUE})
    target = res(IGW if gateway == "igw" else NAT, "gw", {})
    prop = "gatewayId" if gateway == "igw" else "natGatewayId"
    route = res(
        ROUTE,
        "default",
        {
            "routeTableId": UNKNOWN_STRING_VALUE,
            "destinationCidrBlock": "0.0.0.0/0",
            prop: UNKNOWN_STRING_VALUE,
        },
        prop_deps={"routeTableId": [table], prop: [target]},
    )
    assoc = res(
        ASSOC,
        "gpu-a-assoc",
        {"subnetId": UNKNOWN_STRING_VALUE, "routeTableId": UNKNOWN_STRING_VALUE},
        prop_deps={"subnetId": [subnet], "routeTableId": [table]},
    )
    return subnet, [subnet, table, target, route, assoc]


def gpu_instance(subnet: PolicyResource, instance_type: str = "g5.2xlarge") -> PolicyResource:
    return res(
        INSTANCE,
        "worker",
        {"instanceType": instance_type, "subnetId": UNKNOWN_STRING_VALUE},
        prop_deps={"subnetId": [subnet]},
    )


def test_metadata() -> None:
    assert RULE.id == "GF-NET-003"
    assert POLICY.enforcement_level.value == "advisory"


def test_gpu_instance_behind_nat_passes() -> None:
    subnet, network = aws_network("nat")
    assert run_stack(POLICY, [*network, gpu_instance(subnet)]) == []


def test_gpu_instance_in_public_subnet() -> None:
    subnet, network = aws_network("igw")
    assert run_stack(POLICY, [*network, gpu_instance(subnet)]) == [
        (
            "GPU pool 'worker' sits in subnet 'gpu-a', whose route table 'private' has route 'default' "
            "(0.0.0.0/0 to an internet gateway)" + FIX,
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_cpu_instance_in_public_subnet_is_fine() -> None:
    subnet, network = aws_network("igw")
    assert run_stack(POLICY, [*network, gpu_instance(subnet, "m5.large")]) == (
        "N/A: the stack has no GPU instances, groups or node pools"
    )


def test_inline_route_with_literal_igw() -> None:
    subnet = res(SUBNET, "pub", {"cidrBlock": "10.20.0.0/24"})
    table = res(ROUTE_TABLE, "rt", {"routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-0abc"}]})
    assoc = res(ASSOC, "a", {}, prop_deps={"subnetId": [subnet], "routeTableId": [table]})
    assert run_stack(POLICY, [subnet, table, assoc, gpu_instance(subnet)]) == [
        (
            "GPU pool 'worker' sits in subnet 'pub', whose route table 'rt' has an inline route "
            "(0.0.0.0/0 to an internet gateway)" + FIX,
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_autoscaling_group_with_gpu_launch_template() -> None:
    subnet, network = aws_network("igw")
    template = res(LT, "gpu-lt", {"instanceType": "p4d.24xlarge"})
    group = res(
        ASG,
        "train",
        {"vpcZoneIdentifiers": [UNKNOWN_STRING_VALUE], "launchTemplate": {"id": UNKNOWN_STRING_VALUE}},
        prop_deps={"vpcZoneIdentifiers": [subnet], "launchTemplate": [template]},
    )
    [(message, urn)] = run_stack(POLICY, [*network, template, group])
    assert message.startswith("GPU pool 'train' sits in subnet 'gpu-a'")
    assert urn == urn_of(ASG, "train")


def test_subnet_not_in_stack_cannot_be_judged() -> None:
    instance = res(INSTANCE, "worker", {"instanceType": "g6.xlarge", "subnetId": "subnet-0123"})
    assert run_stack(POLICY, [instance]) == [
        (
            "GPU pool 'worker' uses subnet subnet-0123, which is not in this "
            "stack, so its routes could not be "
            "judged; check that it has no 0.0.0.0/0 route to an internet gateway",
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_alibaba_scaling_group_in_vswitch_routed_to_ipv4_gateway() -> None:
    vswitch = res("alicloud:vpc/switch:Switch", "vsw", {"cidrBlock": "10.30.1.0/24"})
    table = res("alicloud:vpc/routeTable:RouteTable", "rt", {})
    attach = res(
        "alicloud:vpc/routeTableAttachment:RouteTableAttachment",
        "att",
        {},
        prop_deps={"vswitchId": [vswitch], "routeTableId": [table]},
    )
    entry = res(
        "alicloud:vpc/routeEntry:RouteEntry",
        "default",
        {"destinationCidrblock": "0.0.0.0/0", "nexthopType": "Ipv4Gateway"},
        prop_deps={"routeTableId": [table]},
    )
    group = res(
        "alicloud:ess/scalingGroup:ScalingGroup",
        "burst",
        {"vswitchIds": [UNKNOWN_STRING_VALUE], "minSize": 0, "maxSize": 4},
        prop_deps={"vswitchIds": [vswitch]},
    )
    config = res(
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "cfg",
        {"instanceType": "ecs.gn7i-c8g1.2xlarge"},
        prop_deps={"scalingGroupId": [group]},
    )
    assert run_stack(POLICY, [vswitch, table, attach, entry, group, config]) == [
        (
            "GPU pool 'burst' sits in subnet 'vsw', whose route table 'rt' has route entry 'default' "
            "(0.0.0.0/0 to an Ipv4Gateway)" + FIX,
            urn_of("alicloud:ess/scalingGroup:ScalingGroup", "burst"),
        )
    ]
    nat_entry = res(
        "alicloud:vpc/routeEntry:RouteEntry",
        "default",
        {"destinationCidrblock": "0.0.0.0/0", "nexthopType": "NatGateway"},
        prop_deps={"routeTableId": [table]},
    )
    assert run_stack(POLICY, [vswitch, table, attach, nat_entry, group, config]) == []


def test_tencent_instance_subnet_route_table_with_eip_route() -> None:
    table = res("tencentcloud:Route/table:Table", "rt", {"vpcId": "vpc-1"})
    subnet = res(
        "tencentcloud:Subnet/instance:Instance",
        "sn",
        {"cidrBlock": "10.40.1.0/24"},
        prop_deps={"routeTableId": [table]},
    )
    entry = res(
        "tencentcloud:Route/tableEntry:TableEntry",
        "out",
        {"destinationCidrBlock": "0.0.0.0/0", "nextType": "EIP", "nextHub": "0"},
        prop_deps={"routeTableId": [table]},
    )
    node = res(
        "tencentcloud:Instance/instance:Instance",
        "gpu",
        {"instanceType": "GN7.2XLARGE32", "subnetId": UNKNOWN_STRING_VALUE},
        prop_deps={"subnetId": [subnet]},
    )
    assert run_stack(POLICY, [table, subnet, entry, node]) == [
        (
            "GPU pool 'gpu' sits in subnet 'sn', whose route table 'rt' has route "
            "entry 'out' (0.0.0.0/0 to EIP)" + FIX,
            urn_of("tencentcloud:Instance/instance:Instance", "gpu"),
        )
    ]


def test_unknown_instance_type_is_not_a_pass() -> None:
    subnet, network = aws_network("igw")
    instance = res(
        INSTANCE,
        "worker",
        {"instanceType": UNKNOWN_STRING_VALUE},
        prop_deps={"subnetId": [subnet]},
        proxy=True,
    )
    assert run_stack(POLICY, [*network, instance]) == [
        (
            "could not be judged at preview: the string value at .instanceType can't be known during preview",
            urn_of(INSTANCE, "worker"),
        )
    ]


def test_proxied_props() -> None:
    subnet = res(SUBNET, "pub", {"cidrBlock": "10.20.0.0/24"}, proxy=True)
    table = res(ROUTE_TABLE, "rt", {"routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": "igw-1"}]}, proxy=True)
    assoc = res(ASSOC, "a", {}, prop_deps={"subnetId": [subnet], "routeTableId": [table]}, proxy=True)
    instance = res(
        INSTANCE,
        "worker",
        {"instanceType": "g5.xlarge"},
        prop_deps={"subnetId": [subnet]},
        proxy=True,
    )
    [(message, _)] = run_stack(POLICY, [subnet, table, assoc, instance])
    assert message.startswith(
        "GPU pool 'worker' sits in subnet 'pub', whose route table 'rt' has an inline route"
    )
