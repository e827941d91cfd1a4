"""A private network for GPU pools on AWS: no internet route, AWS services through VPC endpoints."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.tags import check_cost_tags, with_tags

HTTPS = 443
# What Session Manager, the CloudWatch agent, KMS-encrypted volumes and logs reach from a private subnet.
INTERFACE_ENDPOINT_SERVICES = ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring")
# Room to add subnets (another AZ, a second tier) later without renumbering the existing ones.
MIN_SUBNET_SLOTS = 4


def plan_subnets(vpc_cidr: str, count: int) -> list[str]:
    """``count`` equal, non-overlapping subnet CIDRs carved from the start of ``vpc_cidr``."""
    network = ipaddress.ip_network(vpc_cidr, strict=True)
    if count < 1:
        raise ValueError("subnet count must be at least 1")
    extra_bits = max(math.ceil(math.log2(count)), math.ceil(math.log2(MIN_SUBNET_SLOTS)))
    new_prefix = network.prefixlen + extra_bits
    if new_prefix > 28:  # the smallest subnet AWS allows
        raise ValueError(f"{vpc_cidr} is too small for {count} subnets of at least /28")
    subnets = network.subnets(new_prefix=new_prefix)
    return [str(next(subnets)) for _ in range(count)]


@dataclass(frozen=True, kw_only=True)
class FleetNetworkArgs:
    """Either ``availability_zones`` (names; a VPC is created) or ``subnet_ids`` (existing subnets)."""

    region: str
    tags: Mapping[str, str]
    vpc_cidr: str = "10.40.0.0/16"
    availability_zones: Sequence[pulumi.Input[str]] = ()
    subnet_ids: Sequence[str] | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.subnet_ids is None:
            if not self.availability_zones:
                problems.append("availability_zones: give at least one, or subnet_ids")
            try:
                plan_subnets(self.vpc_cidr, max(len(self.availability_zones), 1))
            except ValueError as error:
                problems.append(f"vpc_cidr: {error}")
        elif not self.subnet_ids:
            problems.append("subnet_ids: an empty list leaves the pools nowhere to run")
        if problems:
            raise ValueError("FleetNetworkArgs: " + "; ".join(problems))


class FleetNetwork(pulumi.ComponentResource):
    """Where the GPU instances live.

    With ``availability_zones``: a VPC, one private subnet per zone, a route table with no internet
    route, the interface endpoints Session Manager and the agents need (private DNS on), an S3 gateway
    endpoint, and two security groups: the instances' (no ingress; HTTPS egress to the VPC and to S3
    only) and the endpoints' (HTTPS ingress from the instances' group only).

    With ``subnet_ids``: the network is someone else's (a landing zone with its own endpoints or NAT),
    so only the instances' security group is created, in the subnets' VPC, with HTTPS egress anywhere,
    still with no ingress.
    """

    vpc_id: pulumi.Output[str]
    subnet_ids: pulumi.Output[list[str]]
    security_group_id: pulumi.Output[str]

    def __init__(self, name: str, args: FleetNetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:network:FleetNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        if args.subnet_ids is not None:
            vpc_id = aws.ec2.get_subnet_output(id=args.subnet_ids[0], region=args.region).vpc_id
            instances_sg = self._instances_group(
                name,
                args,
                vpc_id,
                [
                    aws.ec2.SecurityGroupEgressArgs(
                        protocol="tcp",
                        from_port=HTTPS,
                        to_port=HTTPS,
                        cidr_blocks=["0.0.0.0/0"],
                        description="HTTPS",
                    )
                ],
            )
            self.vpc_id = vpc_id
            self.subnet_ids = pulumi.Output.from_input(list(args.subnet_ids))
            self.security_group_id = instances_sg.id
            self.register_outputs({"vpc_id": self.vpc_id, "security_group_id": self.security_group_id})
            return

        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=args.vpc_cidr,
            enable_dns_support=True,
            enable_dns_hostnames=True,
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-vpc"),
            opts=child,
        )
        route_table = aws.ec2.RouteTable(
            f"{name}-private-rt",
            vpc_id=vpc.id,
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-private"),
            opts=child,
        )
        subnets = []
        for index, (zone, cidr) in enumerate(
            zip(
                args.availability_zones,
                plan_subnets(args.vpc_cidr, len(args.availability_zones)),
                strict=True,
            )
        ):
            subnet = aws.ec2.Subnet(
                f"{name}-private-{index}",
                vpc_id=vpc.id,
                cidr_block=cidr,
                availability_zone=zone,
                map_public_ip_on_launch=False,
                region=args.region,
                tags=with_tags(args.tags, Name=f"{name}-private-{index}"),
                opts=child,
            )
            aws.ec2.RouteTableAssociation(
                f"{name}-private-{index}-rt",
                subnet_id=subnet.id,
                route_table_id=route_table.id,
                region=args.region,
                opts=child,
            )
            subnets.append(subnet)

        s3_endpoint = aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=vpc.id,
            service_name=f"com.amazonaws.{args.region}.s3",
            vpc_endpoint_type="Gateway",
            route_table_ids=[route_table.id],
            region=args.region,
            tags=dict(args.tags),
            opts=child,
        )
        instances_sg = self._instances_group(
            name,
            args,
            vpc.id,
            [
                aws.ec2.SecurityGroupEgressArgs(
                    protocol="tcp",
                    from_port=HTTPS,
                    to_port=HTTPS,
                    cidr_blocks=[args.vpc_cidr],
                    description="HTTPS to VPC endpoints",
                ),
                aws.ec2.SecurityGroupEgressArgs(
                    protocol="tcp",
                    from_port=HTTPS,
                    to_port=HTTPS,
                    prefix_list_ids=[s3_endpoint.prefix_list_id],
                    description="HTTPS to S3 through the gateway endpoint",
                ),
            ],
        )
        endpoints_sg = aws.ec2.SecurityGroup(
            f"{name}-endpoints-sg",
            vpc_id=vpc.id,
            region=args.region,
            description="VPC interface endpoints: HTTPS from the GPU instances only",
            ingress=[
                aws.ec2.SecurityGroupIngressArgs(
                    protocol="tcp",
                    from_port=HTTPS,
                    to_port=HTTPS,
                    security_groups=[instances_sg.id],
                    description="HTTPS from GPU instances",
                )
            ],
            egress=[],
            tags=dict(args.tags),
            opts=child,
        )
        subnet_ids = [s.id for s in subnets]
        for service in INTERFACE_ENDPOINT_SERVICES:
            aws.ec2.VpcEndpoint(
                f"{name}-{service}",
                vpc_id=vpc.id,
                service_name=f"com.amazonaws.{args.region}.{service}",
                vpc_endpoint_type="Interface",
                private_dns_enabled=True,
                subnet_ids=subnet_ids,
                security_group_ids=[endpoints_sg.id],
                region=args.region,
                tags=dict(args.tags),
                opts=child,
            )
        self.vpc_id = vpc.id
        self.subnet_ids = pulumi.Output.all(*subnet_ids)
        self.security_group_id = instances_sg.id
        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "subnet_ids": self.subnet_ids,
                "security_group_id": self.security_group_id,
            }
        )

    def _instances_group(
        self,
        name: str,
        args: FleetNetworkArgs,
        vpc_id: pulumi.Input[str],
        egress: list[aws.ec2.SecurityGroupEgressArgs],
    ) -> aws.ec2.SecurityGroup:
        # No ingress at all: operators reach instances through Session Manager, which is outbound-only.
        return aws.ec2.SecurityGroup(
            f"{name}-instances-sg",
            vpc_id=vpc_id,
            region=args.region,
            description="GPU instances: no ingress; HTTPS egress only",
            ingress=[],
            egress=egress,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(parent=self),
        )
