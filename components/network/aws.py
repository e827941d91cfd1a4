"""A private network for GPU pools on AWS: AWS services through VPC endpoints, and a way out to the
internet only when the fleet's egress asks for one.

Egress (``FleetNetworkArgs.egress``):

- ``none``: no route out. The interface endpoints the fleet itself needs (:data:`BASE_ENDPOINT_SERVICES`)
  and the S3 gateway endpoint, whose policy admits the fleet's buckets and the OS and agent
  repositories AWS serves from S3 (:func:`repository_bucket_arns`). Images must bring their workload.
- ``endpoints``: also what a container fleet needs to pull from ECR (:data:`CONTAINER_ENDPOINT_SERVICES`;
  ECR serves image layers from an S3 bucket the gateway policy admits).
- ``nat``: also a NAT gateway in a public subnet, and HTTPS to anywhere (registries, package mirrors
  that are not in S3, such as Ubuntu's). Billed per hour and per GiB; the cost model prices the hours.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.network.onprem import KUBELET_PORT, EgressRule, egress_problems
from gpufleet.components.tags import check_cost_tags, with_tags

HTTPS = 443
Egress = Literal["none", "endpoints", "nat"]
EGRESS_MODES: tuple[str, ...] = get_args(Egress)
# What the instances reach from a private subnet: Session Manager (ssm, ssmmessages, ec2messages), the
# CloudWatch agent (monitoring for metrics, logs, and ec2 for the DescribeTags call that appends
# AutoScalingGroupName), KMS (session encryption) and SQS (workers take work from the pool's queue).
BASE_ENDPOINT_SERVICES = ("ssm", "ssmmessages", "ec2messages", "logs", "kms", "monitoring", "ec2", "sqs")
# What a container runtime needs besides: the ECR API and registry, and STS for the registry's token.
CONTAINER_ENDPOINT_SERVICES = ("ecr.api", "ecr.dkr", "sts")
INTERFACE_ENDPOINT_SERVICES = BASE_ENDPOINT_SERVICES
# What the fleet's own workers do in its buckets through the gateway endpoint.
BUCKET_ACTIONS = (
    "s3:GetObject",
    "s3:PutObject",
    "s3:DeleteObject",
    "s3:AbortMultipartUpload",
    "s3:ListBucket",
    "s3:ListMultipartUploadParts",
    "s3:GetBucketLocation",
)


def interface_endpoint_services(egress: str) -> tuple[str, ...]:
    """The interface endpoints a network with this egress gets."""
    if egress == "none":
        return BASE_ENDPOINT_SERVICES
    return BASE_ENDPOINT_SERVICES + CONTAINER_ENDPOINT_SERVICES


def repository_bucket_arns(
    partition: pulumi.Input[str], region: str, egress: str
) -> list[pulumi.Output[str]]:
    """Objects in the S3 buckets AWS serves packages and agents from, in ``region``: the Amazon Linux
    2023 and 2 repositories, the SSM agent and its updater, the CloudWatch agent, and with container
    egress ECR's image layers. Ubuntu (and Ubuntu-based Deep Learning AMIs) mirror their archives
    outside S3: those need ``nat``, or an image that enables no repository at boot."""
    names = [
        f"al2023-repos-{region}-*",
        f"amazonlinux-2-repos-{region}",
        f"amazon-ssm-{region}",
        f"amazon-ssm-packages-{region}",
        f"{region}-birdwatcher-prod",
        f"aws-ssm-{region}",
        f"amazoncloudwatch-agent-{region}",
    ]
    if egress != "none":
        names.append(f"prod-{region}-starport-layer-bucket")
    return [pulumi.Output.concat("arn:", partition, ":s3:::", name, "/*") for name in names]


def gateway_policy_statements(
    bucket_arns: Sequence[pulumi.Input[str]], partition: pulumi.Input[str], region: str, egress: str
) -> list[Statement]:
    """The S3 gateway endpoint admits the fleet's buckets and the repositories, nothing else."""
    statements = [
        Statement(
            sid="RepositoriesAndAgents",
            principals="*",
            actions=("s3:GetObject",),
            resources=repository_bucket_arns(partition, region, egress),
        )
    ]
    if bucket_arns:
        objects = [pulumi.Output.concat(arn, "/*") for arn in bucket_arns]
        statements.append(
            Statement(
                sid="FleetBuckets",
                principals="*",
                actions=BUCKET_ACTIONS,
                resources=[*bucket_arns, *objects],
            )
        )
    return statements


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


def public_subnet(vpc_cidr: str, count: int) -> str:
    """The NAT gateway's subnet: the first slot after the ``count`` private subnets (the private ones
    keep their ranges when NAT is turned on or off)."""
    network = ipaddress.ip_network(vpc_cidr, strict=True)
    extra_bits = max(math.ceil(math.log2(max(count, 1))), math.ceil(math.log2(MIN_SUBNET_SLOTS)))
    slots = list(network.subnets(new_prefix=network.prefixlen + extra_bits))
    if count >= len(slots):
        raise ValueError(
            f"{vpc_cidr} has no free subnet slot for the NAT gateway after {count} private subnets; "
            "use fewer availability zones or a larger range"
        )
    return str(slots[count])


def onprem_egress(rules: Sequence[EgressRule]) -> list[aws.ec2.SecurityGroupEgressArgs]:
    """One egress rule per on-prem endpoint, port range and protocol, to exactly its ranges."""
    return [
        aws.ec2.SecurityGroupEgressArgs(
            protocol=rule.protocol,
            from_port=rule.from_port,
            to_port=rule.to_port,
            cidr_blocks=list(rule.cidrs),
            description=f"on-prem {rule.label} over the private link",
        )
        for rule in rules
    ]


@dataclass(frozen=True, kw_only=True)
class FleetNetworkArgs:
    """Either ``availability_zones`` (names; a VPC is created) or ``subnet_ids`` (existing subnets).
    ``bucket_arns`` are the buckets the S3 gateway endpoint admits besides the repositories."""

    region: str
    tags: Mapping[str, str]
    vpc_cidr: str = "10.40.0.0/16"
    availability_zones: Sequence[pulumi.Input[str]] = ()
    subnet_ids: Sequence[str] | None = None
    egress: Egress = "none"
    bucket_arns: Sequence[pulumi.Input[str]] = ()
    partition: pulumi.Input[str] = "aws"
    # What the instances may open on-prem over the site's private link (the on-prem endpoints' ports
    # and ranges), nothing wider.
    onprem_egress: Sequence[EgressRule] = ()
    # Interface endpoints beyond the egress mode's (``secretsmanager`` for pools that join the on-prem
    # cluster: their nodes read their join secret there).
    extra_endpoint_services: Sequence[str] = ()
    # The on-prem ranges the API server calls the nodes' kubelets from (TCP 10250) when the nodes join the
    # on-prem cluster (components/spec/reach.py ``kubelet_sources``); empty: no ingress from on-prem.
    kubelet_sources: Sequence[str] = ()

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        problems += egress_problems(self.onprem_egress)
        if self.subnet_ids is None:
            if not self.availability_zones:
                problems.append("availability_zones: give at least one, or subnet_ids")
            try:
                plan_subnets(self.vpc_cidr, max(len(self.availability_zones), 1))
                if self.egress == "nat":
                    public_subnet(self.vpc_cidr, len(self.availability_zones))
            except ValueError as error:
                problems.append(f"vpc_cidr: {error}")
        elif not self.subnet_ids:
            problems.append("subnet_ids: an empty list leaves the pools nowhere to run")
        elif self.egress != "none":
            problems.append(
                f"egress: {self.egress!r} is built in a network the fleet creates; existing subnets bring "
                "their own way out"
            )
        if self.egress not in EGRESS_MODES:
            problems.append(f"egress: {self.egress!r} is not one of {', '.join(EGRESS_MODES)}")
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
    # The private subnets' route table (a link adds its on-prem routes here); ``None`` and 0 in existing
    # subnets, whose tables are not the fleet's.
    route_table_ids: pulumi.Output[list[str]] | None
    route_table_count: int

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
                    ),
                    *onprem_egress(args.onprem_egress),
                ],
            )
            self.route_table_ids = None
            self.route_table_count = 0
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
            policy=document(
                gateway_policy_statements(args.bucket_arns, args.partition, args.region, args.egress),
                endpoint_policy=True,
            ),
            region=args.region,
            tags=dict(args.tags),
            opts=child,
        )
        anywhere = (
            [
                aws.ec2.SecurityGroupEgressArgs(
                    protocol="tcp",
                    from_port=HTTPS,
                    to_port=HTTPS,
                    cidr_blocks=["0.0.0.0/0"],
                    description="HTTPS to the internet through the NAT gateway",
                )
            ]
            if args.egress == "nat"
            else []
        )
        instances_sg = self._instances_group(
            name,
            args,
            vpc.id,
            [
                *anywhere,
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
                *onprem_egress(args.onprem_egress),
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
        services = interface_endpoint_services(args.egress)
        for service in (*services, *(s for s in args.extra_endpoint_services if s not in services)):
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
        if args.egress == "nat":
            self._nat(name, args, vpc, route_table)
        self.vpc_id = vpc.id
        self.subnet_ids = pulumi.Output.all(*subnet_ids)
        self.security_group_id = instances_sg.id
        self.route_table_ids = pulumi.Output.all(route_table.id)
        self.route_table_count = 1
        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "subnet_ids": self.subnet_ids,
                "security_group_id": self.security_group_id,
            }
        )

    def _nat(
        self, name: str, args: FleetNetworkArgs, vpc: aws.ec2.Vpc, private_routes: aws.ec2.RouteTable
    ) -> None:
        """One NAT gateway in a public subnet of the first zone (one per zone would survive a zone's
        loss at three times the hourly price), and the private subnets' default route through it."""
        child = pulumi.ResourceOptions(parent=self)
        gateway = aws.ec2.InternetGateway(
            f"{name}-igw",
            vpc_id=vpc.id,
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-igw"),
            opts=child,
        )
        public = aws.ec2.Subnet(
            f"{name}-public-0",
            vpc_id=vpc.id,
            cidr_block=public_subnet(args.vpc_cidr, len(args.availability_zones)),
            availability_zone=args.availability_zones[0],
            map_public_ip_on_launch=False,
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-public-0"),
            opts=child,
        )
        public_routes = aws.ec2.RouteTable(
            f"{name}-public-rt",
            vpc_id=vpc.id,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=gateway.id)],
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-public"),
            opts=child,
        )
        aws.ec2.RouteTableAssociation(
            f"{name}-public-0-rt",
            subnet_id=public.id,
            route_table_id=public_routes.id,
            region=args.region,
            opts=child,
        )
        address = aws.ec2.Eip(
            f"{name}-nat-ip", domain="vpc", region=args.region, tags=dict(args.tags), opts=child
        )
        nat = aws.ec2.NatGateway(
            f"{name}-nat",
            allocation_id=address.id,
            subnet_id=public.id,
            connectivity_type="public",
            region=args.region,
            tags=with_tags(args.tags, Name=f"{name}-nat"),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway]),
        )
        aws.ec2.Route(
            f"{name}-private-default",
            route_table_id=private_routes.id,
            destination_cidr_block="0.0.0.0/0",
            nat_gateway_id=nat.id,
            region=args.region,
            opts=child,
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
            # The description of a group without a link stays as deployed stacks have it (changing it
            # replaces the group).
            description=(
                "GPU instances: no ingress; HTTPS egress only"
                + ("; on-prem endpoints over the private link" if args.onprem_egress else "")
                if not args.kubelet_sources
                else "GPU instances: the kubelet from the on-prem control plane only; HTTPS egress and "
                "on-prem endpoints over the private link"
            ),
            ingress=[
                aws.ec2.SecurityGroupIngressArgs(
                    protocol="tcp",
                    from_port=KUBELET_PORT,
                    to_port=KUBELET_PORT,
                    cidr_blocks=list(args.kubelet_sources),
                    description="kubelet from the on-prem API server over the private link",
                )
            ]
            if args.kubelet_sources
            else [],
            egress=egress,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(parent=self),
        )
