from __future__ import annotations

import pytest

from gpufleet.components.network.aws import FleetNetwork, FleetNetworkArgs, plan_subnets, public_subnet

from .builders import REGION, TAGS
from .conftest import Runner, document, statements_by_sid

# ec2: the CloudWatch agent's DescribeTags; sqs: workers take work from their pool's queue.
ENDPOINTS = ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring", "ec2", "sqs")
CONTAINER_ENDPOINTS = ("ecr.api", "ecr.dkr", "sts")
BUCKET = "arn:aws:s3:::gpufleet-dev-storage-bucket"


@pytest.mark.parametrize(
    ("cidr", "count", "expected"),
    [
        ("10.40.0.0/16", 2, ["10.40.0.0/18", "10.40.64.0/18"]),
        ("10.40.0.0/16", 3, ["10.40.0.0/18", "10.40.64.0/18", "10.40.128.0/18"]),
        (
            "10.40.0.0/16",
            6,
            [
                "10.40.0.0/19",
                "10.40.32.0/19",
                "10.40.64.0/19",
                "10.40.96.0/19",
                "10.40.128.0/19",
                "10.40.160.0/19",
            ],
        ),
        ("172.16.0.0/24", 1, ["172.16.0.0/26"]),
    ],
)
def test_plan_subnets(cidr: str, count: int, expected: list[str]) -> None:
    assert plan_subnets(cidr, count) == expected


def test_plan_subnets_refuses_a_range_too_small() -> None:
    with pytest.raises(ValueError, match="too small"):
        plan_subnets("10.0.0.0/27", 2)


def _vpc(run_pulumi: Runner, egress: str = "none"):  # type: ignore[no-untyped-def]
    return run_pulumi(
        lambda: FleetNetwork(
            "net",
            FleetNetworkArgs(
                region=REGION,
                tags=TAGS,
                availability_zones=["us-east-1a", "us-east-1b"],
                egress=egress,  # type: ignore[arg-type]
                bucket_arns=[BUCKET],
            ),
        )
    )


def test_private_vpc_children(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi)
    assert mocks.names_by_type() == sorted(
        [
            ("aws:ec2/vpc:Vpc", "net-vpc"),
            ("aws:ec2/routeTable:RouteTable", "net-private-rt"),
            ("aws:ec2/subnet:Subnet", "net-private-0"),
            ("aws:ec2/subnet:Subnet", "net-private-1"),
            ("aws:ec2/routeTableAssociation:RouteTableAssociation", "net-private-0-rt"),
            ("aws:ec2/routeTableAssociation:RouteTableAssociation", "net-private-1-rt"),
            ("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg"),
            ("aws:ec2/securityGroup:SecurityGroup", "net-endpoints-sg"),
            ("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3"),
            *[("aws:ec2/vpcEndpoint:VpcEndpoint", f"net-{service}") for service in ENDPOINTS],
            ("gpufleet:network:FleetNetwork", "net"),
        ]
    )
    subnets = [mocks.one("aws:ec2/subnet:Subnet", f"net-private-{i}").inputs for i in (0, 1)]
    assert [(s["cidrBlock"], s["availabilityZone"], s["mapPublicIpOnLaunch"]) for s in subnets] == [
        ("10.40.0.0/18", "us-east-1a", False),
        ("10.40.64.0/18", "us-east-1b", False),
    ]
    assert mocks.of_type("aws:ec2/internetGateway:InternetGateway") == []
    assert mocks.of_type("aws:ec2/natGateway:NatGateway") == []
    assert "routes" not in mocks.one("aws:ec2/routeTable:RouteTable", "net-private-rt").inputs


def test_endpoints_are_private_dns_interfaces_plus_s3_gateway(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi)
    for service in ENDPOINTS:
        endpoint = mocks.one("aws:ec2/vpcEndpoint:VpcEndpoint", f"net-{service}").inputs
        assert endpoint["serviceName"] == f"com.amazonaws.{REGION}.{service}"
        assert endpoint["vpcEndpointType"] == "Interface"
        assert endpoint["privateDnsEnabled"] is True
        assert endpoint["subnetIds"] == ["net-private-0-id", "net-private-1-id"]
        assert endpoint["securityGroupIds"] == ["net-endpoints-sg-id"]
    s3 = mocks.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3").inputs
    assert (s3["vpcEndpointType"], s3["routeTableIds"]) == ("Gateway", ["net-private-rt-id"])


def test_instances_group_has_no_ingress_and_https_egress_only(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi)
    group = mocks.one("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg").inputs
    assert group.get("ingress", []) == []
    assert group["egress"] == [
        {
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "cidrBlocks": ["10.40.0.0/16"],
            "description": "HTTPS to VPC endpoints",
        },
        {
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "prefixListIds": ["pl-63a5400a"],
            "description": "HTTPS to S3 through the gateway endpoint",
        },
    ]
    endpoints = mocks.one("aws:ec2/securityGroup:SecurityGroup", "net-endpoints-sg").inputs
    assert endpoints["ingress"] == [
        {
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "securityGroups": ["net-instances-sg-id"],
            "description": "HTTPS from GPU instances",
        }
    ]


def test_existing_subnets_get_only_a_security_group(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: FleetNetwork(
            "net", FleetNetworkArgs(region=REGION, tags=TAGS, subnet_ids=["subnet-1", "subnet-2"])
        )
    )
    assert [(r.type, r.name) for r in mocks.custom()] == [
        ("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg")
    ]
    group = mocks.one("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg").inputs
    assert group["vpcId"] == "vpc-existing"
    assert group.get("ingress", []) == []
    assert ("aws:ec2/getSubnet:getSubnet", {"id": "subnet-1", "region": REGION}) in mocks.calls


def test_args_need_zones_or_subnets() -> None:
    with pytest.raises(ValueError, match="availability_zones: give at least one, or subnet_ids"):
        FleetNetworkArgs(region=REGION, tags=TAGS)
    with pytest.raises(ValueError, match="subnet_ids: an empty list"):
        FleetNetworkArgs(region=REGION, tags=TAGS, subnet_ids=[])


def test_s3_gateway_admits_the_fleets_buckets_and_the_os_repositories_only(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi)
    inputs = mocks.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3").inputs
    statements = statements_by_sid(inputs)
    assert sorted(statements) == ["FleetBuckets", "RepositoriesAndAgents"]
    assert statements["FleetBuckets"]["Resource"] == [BUCKET, f"{BUCKET}/*"]
    assert "s3:DeleteBucket" not in statements["FleetBuckets"]["Action"]
    assert statements["RepositoriesAndAgents"]["Action"] == ["s3:GetObject"]
    assert statements["RepositoriesAndAgents"]["Resource"] == [
        f"arn:aws:s3:::al2023-repos-{REGION}-*/*",
        f"arn:aws:s3:::amazonlinux-2-repos-{REGION}/*",
        f"arn:aws:s3:::amazon-ssm-{REGION}/*",
        f"arn:aws:s3:::amazon-ssm-packages-{REGION}/*",
        f"arn:aws:s3:::{REGION}-birdwatcher-prod/*",
        f"arn:aws:s3:::aws-ssm-{REGION}/*",
        f"arn:aws:s3:::amazoncloudwatch-agent-{REGION}/*",
    ]
    assert document(inputs)["Version"] == "2012-10-17"


def test_container_egress_adds_ecr_sts_and_the_layer_bucket(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi, "endpoints")
    names = sorted(r.name for r in mocks.of_type("aws:ec2/vpcEndpoint:VpcEndpoint"))
    assert names == sorted(["net-s3", *(f"net-{s}" for s in ENDPOINTS + CONTAINER_ENDPOINTS)])
    assert mocks.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-ecr.dkr").inputs["serviceName"] == (
        f"com.amazonaws.{REGION}.ecr.dkr"
    )
    layers = statements_by_sid(mocks.one("aws:ec2/vpcEndpoint:VpcEndpoint", "net-s3").inputs)
    assert (
        f"arn:aws:s3:::prod-{REGION}-starport-layer-bucket/*" in layers["RepositoriesAndAgents"]["Resource"]
    )
    assert mocks.of_type("aws:ec2/natGateway:NatGateway") == []


def test_nat_egress_routes_the_private_subnets_through_one_nat_gateway(run_pulumi: Runner) -> None:
    mocks = _vpc(run_pulumi, "nat")
    nat = mocks.one("aws:ec2/natGateway:NatGateway", "net-nat").inputs
    assert (nat["subnetId"], nat["allocationId"], nat["connectivityType"]) == (
        "net-public-0-id",
        "net-nat-ip-id",
        "public",
    )
    public = mocks.one("aws:ec2/subnet:Subnet", "net-public-0").inputs
    # The slot after the two private /18s: turning NAT on renumbers nothing.
    assert (public["cidrBlock"], public["availabilityZone"], public["mapPublicIpOnLaunch"]) == (
        "10.40.128.0/18",
        "us-east-1a",
        False,
    )
    route = mocks.one("aws:ec2/route:Route", "net-private-default").inputs
    assert (route["routeTableId"], route["destinationCidrBlock"], route["natGatewayId"]) == (
        "net-private-rt-id",
        "0.0.0.0/0",
        "net-nat-id",
    )
    public_routes = mocks.one("aws:ec2/routeTable:RouteTable", "net-public-rt").inputs["routes"]
    assert public_routes == [{"cidrBlock": "0.0.0.0/0", "gatewayId": "net-igw-id"}]
    egress = mocks.one("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg").inputs["egress"]
    assert egress[0] == {
        "protocol": "tcp",
        "fromPort": 443,
        "toPort": 443,
        "cidrBlocks": ["0.0.0.0/0"],
        "description": "HTTPS to the internet through the NAT gateway",
    }
    group = mocks.one("aws:ec2/securityGroup:SecurityGroup", "net-instances-sg").inputs
    assert group.get("ingress", []) == []


def test_nat_needs_a_free_subnet_slot_and_a_network_of_our_own() -> None:
    assert public_subnet("10.40.0.0/16", 3) == "10.40.192.0/18"
    zones = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]
    with pytest.raises(ValueError, match="no free subnet slot for the NAT gateway after 4 private subnets"):
        FleetNetworkArgs(region=REGION, tags=TAGS, availability_zones=zones, egress="nat")
    with pytest.raises(ValueError, match="egress: 'nat' is built in a network the fleet creates"):
        FleetNetworkArgs(region=REGION, tags=TAGS, subnet_ids=["subnet-1"], egress="nat")
    with pytest.raises(ValueError, match="egress: 'open' is not one of none, endpoints, nat"):
        FleetNetworkArgs(region=REGION, tags=TAGS, availability_zones=zones[:1], egress="open")  # type: ignore[arg-type]
