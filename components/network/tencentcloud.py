"""The Tencent Cloud site's network: a VPC with one private subnet per chosen zone, or existing subnets,
and the pool instances' security group.

Zones are chosen offline the way the AWS side chooses them (:func:`components.network.zone_pick.pick_zones`):
from the region's CVM zones (``availability.get_zones_by_product``), keeping those where every pool has
one of its instance types on sale (``instance.get_types`` by family). The security group admits no
SSH or RDP: only the distributed-training ports from inside the VPC. Its egress is the platform services a
node needs (Tencent's internal DNS, the metadata service for the role's credentials, the Cloud Monitor
agent's endpoints: :func:`platform_egress`), the VPC and HTTPS. Egress follows
``spec.network.egress``: ``none`` (and ``endpoints``, which Tencent needs no separate resources for: COS,
CLS, CMQ, KMS and TAT answer on private endpoints inside the VPC) leaves the subnets without a route
out, and the group allows those services, HTTPS and the VPC only; ``nat`` adds a NAT gateway with an
EIP and a default route to it in the subnets' route table.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.network.onprem import (
    KUBELET_PORT,
    EgressRule,
    egress_problems,
    onprem_range_problems,
)
from gpufleet.components.network.zone_pick import pick_zones
from gpufleet.components.tags import check_cost_tags

# torch.distributed / NCCL rendezvous and data ports between the pool's instances.
TRAINING_PORTS = "29500-29510"

# What a GPU node reaches outside the VPC besides HTTPS. The group's egress is an allow list, so each
# platform service the node needs is opened by address and port, nothing wider:
# - DNS: Tencent's internal resolvers, the VPC's DHCP default ("腾讯云默认 DNS 为：183.60.83.19，
#   183.60.82.98。如不使用腾讯云默认 DNS，将无法使用内部服务": the VPC DHCP page, as published in
#   github.com/tencentyun/qcloud-documents; the mirror, metadata and agent names below resolve only
#   there), UDP and TCP 53.
# - Instance metadata and the CAM role's temporary credentials
#   (``http://metadata.tencentyun.com/latest/meta-data/cam/security-credentials/<role>``: "Viewing
#   instance metadata", github.com/tencentyun/intlcloud-documents
#   yehe_doc/计算/云服务器/操作指南/实例/查看信息/查看实例元数据_intl_en.md), TCP 80.
#   metadata.tencentyun.com answers at 169.254.0.23; Cloud Monitor's "no monitoring data" page maps
#   it to 169.254.10.10 for a hand-written hosts file, so both are open (each a /32 on port 80).
# - The Cloud Monitor agent, which reports ``Gpuutil`` (the GPU alarms' metric): barad_agent posts to
#   receiver.barad.tencentyun.com (169.254.0.4) and custom.message.tencentyun.com (169.254.0.5), stargate
#   installs and updates it from update2.agent.tencentyun.com (169.254.0.15), all TCP 80 (the addresses:
#   https://cloud.tencent.com/document/product/248/17468, "Check the reporting domains"; the ports: CVM's
#   "common ports of a CVM instance" list in tencentyun/intlcloud-documents).
# The GPU driver comes from https://mirrors.tencentyun.com, inside the HTTPS rule.
DNS_SERVERS = ("183.60.83.19/32", "183.60.82.98/32")
METADATA_CIDRS = ("169.254.0.23/32", "169.254.10.10/32")
MONITOR_AGENT_CIDRS = ("169.254.0.4/32", "169.254.0.5/32", "169.254.0.15/32")
PLATFORM_HTTP_PORT = "80"


def platform_egress() -> list[tuple[str, str, str, str]]:
    """The platform services a node needs, as (cidr, protocol, port, description), in rule order."""
    rules = [
        (cidr, protocol, "53", f"Tencent internal DNS ({protocol.lower()})")
        for cidr in DNS_SERVERS
        for protocol in ("UDP", "TCP")
    ]
    rules += [
        (cidr, "TCP", PLATFORM_HTTP_PORT, "instance metadata and CAM role credentials")
        for cidr in METADATA_CIDRS
    ]
    rules += [
        (cidr, "TCP", PLATFORM_HTTP_PORT, "Cloud Monitor agent (Gpuutil)") for cidr in MONITOR_AGENT_CIDRS
    ]
    return rules


def family_of(instance_type: str) -> str:
    """``GN7.2XLARGE32`` -> ``GN7``: the family filter ``instance.get_types`` takes."""
    return instance_type.split(".", 1)[0]


def subnet_cidrs(vpc_cidr: str, count: int) -> list[str]:
    """``count`` equal private subnets at the start of ``vpc_cidr``, each a sixteenth of it (a /20 of a
    /16), or a quarter when the VPC is too small for that."""
    network = ipaddress.ip_network(vpc_cidr)
    extra = 4 if network.prefixlen <= 24 else 2
    subnets = list(network.subnets(prefixlen_diff=extra))
    if count > len(subnets):
        raise ValueError(f"{vpc_cidr} holds {len(subnets)} subnets, not {count}")
    return [str(s) for s in subnets[:count]]


@dataclass(frozen=True, kw_only=True)
class TencentNetworkArgs:
    region: str
    tags: Mapping[str, str]
    provider: pulumi.ProviderResource | None = None
    vpc_cidr: str | None = None
    availability_zones: int = 2
    pool_types: Sequence[Sequence[str]] = ()
    subnet_ids: Sequence[str] = ()
    egress: Literal["none", "endpoints", "nat"] = "none"
    # What the nodes may open on-prem over the site's private link (``onprem_egress``: the on-prem
    # endpoints' ports and ranges); every other connection to ``onprem_ranges`` (what the link routes)
    # is dropped.
    onprem_egress: Sequence[EgressRule] = ()
    onprem_ranges: Sequence[str] = ()
    # The on-prem ranges the API server calls the nodes' kubelets from (TCP 10250) when the nodes join the
    # on-prem cluster (components/spec/reach.py ``kubelet_sources``); empty: no ingress from on-prem.
    kubelet_sources: Sequence[str] = ()

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        problems += egress_problems(self.onprem_egress)
        problems += onprem_range_problems(self.onprem_ranges)
        if not self.subnet_ids and self.vpc_cidr is None:
            problems.append("vpc_cidr: needed unless subnet_ids names existing subnets")
        if self.subnet_ids and self.egress == "nat":
            problems.append("egress: nat is built for a new VPC only; existing subnets keep their routes")
        if problems:
            raise ValueError("TencentNetworkArgs: " + "; ".join(problems))


class TencentNetwork(pulumi.ComponentResource):
    """``vpc.Instance``, ``route.Table``, ``subnet.Instance`` per zone, ``security.Group`` with a
    ``security.GroupRuleSet``; with ``egress: nat`` an ``eip.Instance``, a ``nat.Gateway`` and a
    ``route.TableEntry`` to it."""

    vpc_id: pulumi.Output[str]
    subnet_ids: pulumi.Output[list[str]]
    security_group_id: pulumi.Output[str]
    route_table_ids: pulumi.Output[list[str]]
    # One table: the fleet's private table, or the first existing subnet's.
    route_table_count = 1

    def __init__(
        self, name: str, args: TencentNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:network:TencentNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=args.provider)
        tags = dict(args.tags)
        vpc_cidr: pulumi.Input[str]
        if args.subnet_ids:
            found = tencentcloud.vpc.get_subnets_output(subnet_id=args.subnet_ids[0], opts=invoke)
            first = found.instance_lists.apply(lambda rows: rows[0])
            self.vpc_id = first.apply(lambda row: row.vpc_id)
            self.route_table_ids = first.apply(lambda row: [row.route_table_id])
            self.subnet_ids = pulumi.Output.from_input(list(args.subnet_ids))
            vpc_cidr = args.vpc_cidr or "0.0.0.0/32"
        else:
            cidr = str(args.vpc_cidr)
            vpc = tencentcloud.vpc.Instance(f"{name}-vpc", name=name, cidr_block=cidr, tags=tags, opts=child)
            table = tencentcloud.route.Table(
                f"{name}-private", vpc_id=vpc.id, name=f"{name}-private", tags=tags, opts=child
            )
            zones = self._zones(args, invoke)
            subnets = [
                tencentcloud.subnet.Instance(
                    f"{name}-private-{index}",
                    name=f"{name}-private-{index}",
                    vpc_id=vpc.id,
                    availability_zone=zones.apply(partial(_nth, index)),
                    cidr_block=block,
                    route_table_id=table.id,
                    tags=tags,
                    opts=child,
                )
                for index, block in enumerate(subnet_cidrs(cidr, args.availability_zones))
            ]
            if args.egress == "nat":
                eip = tencentcloud.eip.Instance(
                    f"{name}-nat-eip", name=f"{name}-nat", internet_charge_type="TRAFFIC_POSTPAID_BY_HOUR",
                    tags=tags, opts=child,
                )  # fmt: skip
                nat = tencentcloud.nat.Gateway(
                    f"{name}-nat",
                    name=f"{name}-nat",
                    vpc_id=vpc.id,
                    assigned_eip_sets=[eip.public_ip],
                    bandwidth=100,
                    max_concurrent=1_000_000,
                    tags=tags,
                    opts=child,
                )
                tencentcloud.route.TableEntry(
                    f"{name}-default-route",
                    route_table_id=table.id,
                    destination_cidr_block="0.0.0.0/0",
                    next_type="NAT",
                    next_hub=nat.id,
                    description="private subnets out through the NAT gateway",
                    opts=child,
                )
            self.vpc_id = vpc.id
            self.route_table_ids = pulumi.Output.all(table.id).apply(list)
            self.subnet_ids = pulumi.Output.all(*[s.id for s in subnets]).apply(list)
            vpc_cidr = cidr
        group = tencentcloud.security.Group(
            f"{name}-nodes", name=f"{name}-nodes", description="gpufleet GPU nodes: no SSH or RDP", tags=tags,
            opts=child,
        )  # fmt: skip
        rule = tencentcloud.security.GroupRuleSetIngressArgs
        out = tencentcloud.security.GroupRuleSetEgressArgs
        # Entries apply in order: the on-prem endpoints' ports, then a drop of everything else towards
        # what the link routes (before HTTPS anywhere could reach it), then the platform services (DNS,
        # metadata, the monitoring agent: :func:`platform_egress`), the VPC and HTTPS.
        egress = [
            *[
                out(
                    action="ACCEPT",
                    cidr_block=cidr,
                    protocol=rule.protocol.upper(),
                    port=rule.ports,
                    description=f"on-prem {rule.label} over the private link",
                )
                for rule in args.onprem_egress
                for cidr in rule.cidrs
            ],
            *[
                out(
                    action="DROP",
                    cidr_block=cidr,
                    protocol="ALL",
                    port="ALL",
                    description="on-prem: nothing but the endpoints above",
                )
                for cidr in args.onprem_ranges
            ],
            *[
                out(action="ACCEPT", cidr_block=cidr, protocol=protocol, port=port, description=description)
                for cidr, protocol, port, description in platform_egress()
            ],
            out(
                action="ACCEPT", cidr_block=vpc_cidr, protocol="ALL", port="ALL", description="inside the VPC"
            ),
            out(action="ACCEPT", cidr_block="0.0.0.0/0", protocol="TCP", port="443", description="HTTPS"),
        ]
        tencentcloud.security.GroupRuleSet(
            f"{name}-nodes-rules",
            security_group_id=group.id,
            ingresses=[
                rule(
                    action="ACCEPT",
                    cidr_block=vpc_cidr,
                    protocol="TCP",
                    port=TRAINING_PORTS,
                    description="distributed training between the pool's instances",
                ),
                *[
                    rule(
                        action="ACCEPT",
                        cidr_block=cidr,
                        protocol="TCP",
                        port=str(KUBELET_PORT),
                        description="kubelet from the on-prem API server over the private link",
                    )
                    for cidr in args.kubelet_sources
                ],
            ],
            egresses=egress,
            opts=child,
        )
        self.security_group_id = group.id
        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "subnet_ids": self.subnet_ids,
                "security_group_id": self.security_group_id,
            }
        )

    @staticmethod
    def _zones(args: TencentNetworkArgs, invoke: pulumi.InvokeOutputOptions) -> pulumi.Output[list[str]]:
        names: pulumi.Output[list[str]] = tencentcloud.availability.get_zones_by_product_output(
            product="cvm", opts=invoke
        ).zones.apply(lambda zones: [z.name for z in zones])
        families = sorted({family_of(t) for pool in args.pool_types for t in pool})
        if not families:
            return names.apply(lambda found: found[: args.availability_zones])
        offered: pulumi.Output[list[tuple[str, str]]] = tencentcloud.instance.get_types_output(
            filters=[tencentcloud.instance.GetTypesFilterArgs(name="instance-family", values=families)],
            exclude_sold_out=True,
            opts=invoke,
        ).instance_types.apply(lambda rows: [(r.instance_type, r.availability_zone) for r in rows])

        def choose(found: list[Any]) -> list[str]:
            zone_names, pairs = found
            return pick_zones(zone_names, pairs, args.pool_types, args.availability_zones, args.region)

        return pulumi.Output.all(names, offered).apply(choose)


def _nth(index: int, zones: list[str]) -> str:
    return zones[index]
