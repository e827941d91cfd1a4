from __future__ import annotations

import pytest

from components.network.aws import FleetNetwork, FleetNetworkArgs, plan_subnets

from .builders import REGION, TAGS
from .conftest import Runner

ENDPOINTS = ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring")


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


def _vpc(run_pulumi: Runner):  # type: ignore[no-untyped-def]
    return run_pulumi(
        lambda: FleetNetwork(
            "net", FleetNetworkArgs(region=REGION, tags=TAGS, availability_zones=["us-east-1a", "us-east-1b"])
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
