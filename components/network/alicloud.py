"""A site's network on Alibaba Cloud: a VPC with one vSwitch per zone, or existing vSwitches.

Zones are those that sell the pools' instance types: ``alicloud.get_zones(available_instance_type=...)``
per type, taken in the region's own order, keeping a zone where every pool of the site has a type
on sale (:func:`gpufleet.components.network.zone_pick.pick_zones`); a vSwitch in a zone that sells none of a
pool's types would leave the scaling group failing launches there.

The security group admits no ingress from outside the group (no SSH, no RDP: access is Cloud
Assistant's session manager), and lets instances talk to each other (NCCL). Egress: ``none`` and
``endpoints`` give the instances no route out: OSS, KMS, SLS, MNS, CloudMonitor and Cloud Assistant
answer on internal endpoints inside the VPC, so the fleet needs nothing more; ``nat`` adds an
enhanced NAT gateway with an EIP and one SNAT entry per vSwitch.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.network.onprem import (
    KUBELET_PORT,
    EgressRule,
    egress_problems,
    onprem_range_problems,
    range_slug,
)
from gpufleet.components.network.zone_pick import pick_zones
from gpufleet.components.tags import check_cost_tags

SUBNET_BITS = 4  # each vSwitch takes a sixteenth of the VPC range


def zones_for_pools(
    opts: pulumi.InvokeOutputOptions, region: str, count: int, pools: Sequence[Sequence[str]]
) -> list[pulumi.Output[str]]:
    """``count`` zone ids of ``region`` where every pool (a list of instance types) has a type on
    sale, in the region's order; raises ZoneError (at deploy) naming the types otherwise."""
    every = alicloud.get_zones_output(available_resource_creation="VSwitch", opts=opts).ids
    types = sorted({t for pool in pools for t in pool})
    selling = [alicloud.get_zones_output(available_instance_type=t, opts=opts).ids for t in types]

    def choose(found: list[list[str]]) -> list[str]:
        offered = [(t, zone) for t, zones in zip(types, found[1:], strict=True) for zone in zones]
        return pick_zones(found[0], offered, pools, count, region)

    chosen: pulumi.Output[list[str]] = pulumi.Output.all(every, *selling).apply(choose)
    return [chosen.apply(partial(_nth, index)) for index in range(count)]


def _nth(index: int, zones: list[str]) -> str:
    return zones[index]


def vswitch_cidrs(vpc_cidr: str, count: int) -> list[str]:
    network = ipaddress.ip_network(vpc_cidr)
    new_prefix = min(network.prefixlen + SUBNET_BITS, 29)
    subnets = network.subnets(new_prefix=new_prefix)
    return [str(next(subnets)) for _ in range(count)]


@dataclass(frozen=True, kw_only=True)
class AlicloudNetworkArgs:
    """Either ``vpc_cidr`` with ``zones`` (a new VPC) or ``vswitch_ids`` (existing vSwitches)."""

    tags: Mapping[str, str]
    vpc_cidr: str | None = None
    zones: Sequence[pulumi.Input[str]] = ()
    vswitch_ids: Sequence[str] = ()
    egress: Literal["none", "endpoints", "nat"] = "none"
    name_prefix: str = "gpufleet"
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
        if bool(self.vswitch_ids) == (self.vpc_cidr is not None):
            problems.append("give either vpc_cidr (a new VPC) or vswitch_ids (existing vSwitches)")
        if self.vpc_cidr is not None and not self.zones:
            problems.append("zones: a new VPC needs at least one zone")
        if self.egress == "nat" and self.vswitch_ids:
            problems.append("egress: nat is for a new VPC; existing vSwitches bring their own way out")
        if problems:
            raise ValueError("AlicloudNetworkArgs: " + "; ".join(problems))


class AlicloudNetwork(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    vswitch_ids: pulumi.Output[list[str]]
    security_group_id: pulumi.Output[str]
    route_table_ids: pulumi.Output[list[str]] | None
    # 1 for a new VPC (its system route table); 0 in existing vSwitches, whose tables are not the fleet's.
    route_table_count: int

    def __init__(
        self, name: str, args: AlicloudNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:network:AlicloudNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        if args.vswitch_ids:
            found = alicloud.vpc.get_switches_output(
                ids=list(args.vswitch_ids), opts=pulumi.InvokeOutputOptions(parent=self)
            )
            self.vpc_id = found.vswitches.apply(lambda items: items[0].vpc_id)
            self.vswitch_ids = pulumi.Output.from_input(list(args.vswitch_ids))
            self.route_table_ids = None
            self.route_table_count = 0
        else:
            cidr = str(args.vpc_cidr)
            vpc = alicloud.vpc.Network(
                f"{name}-vpc", vpc_name=args.name_prefix, cidr_block=cidr, tags=tags, opts=child
            )
            switches = [
                alicloud.vpc.Switch(
                    f"{name}-vswitch-{index}",
                    vpc_id=vpc.id,
                    zone_id=zone,
                    cidr_block=block,
                    vswitch_name=f"{args.name_prefix}-private-{index}",
                    tags=tags,
                    opts=child,
                )
                for index, (zone, block) in enumerate(
                    zip(args.zones, vswitch_cidrs(cidr, len(args.zones)), strict=True)
                )
            ]
            self.vpc_id = vpc.id
            self.vswitch_ids = pulumi.Output.all(*[s.id for s in switches]).apply(list)
            self.route_table_ids = vpc.route_table_id.apply(lambda table: [table])
            self.route_table_count = 1
            if args.egress == "nat":
                self._nat(name, args, vpc, switches, child)
        group = alicloud.ecs.SecurityGroup(
            f"{name}-sg",
            security_group_name=f"{args.name_prefix}-nodes",
            description="gpufleet GPU nodes: no ingress from outside the group",
            vpc_id=self.vpc_id,
            security_group_type="normal",
            inner_access_policy="Accept",
            tags=tags,
            opts=child,
        )
        # The group has no ingress rule (members reach each other through inner_access_policy). A normal
        # group lets egress out by default, so towards on-prem the endpoints' rules accept first
        # (priority 1) and a drop per routed range (priority 100) refuses everything else.
        for rule in args.onprem_egress:
            for cidr in rule.cidrs:
                alicloud.ecs.SecurityGroupRule(
                    f"{name}-onprem-{rule.endpoint}-{rule.protocol}-{rule.ports}-{range_slug(cidr)}",
                    security_group_id=group.id,
                    type="egress",
                    ip_protocol=rule.protocol,
                    port_range=f"{rule.from_port}/{rule.to_port}",
                    cidr_ip=cidr,
                    policy="accept",
                    nic_type="intranet",
                    priority=1,
                    description=f"on-prem {rule.label} over the private link",
                    opts=child,
                )
        for cidr in args.kubelet_sources:
            alicloud.ecs.SecurityGroupRule(
                f"{name}-kubelet-{range_slug(cidr)}",
                security_group_id=group.id,
                type="ingress",
                ip_protocol="tcp",
                port_range=f"{KUBELET_PORT}/{KUBELET_PORT}",
                cidr_ip=cidr,
                policy="accept",
                nic_type="intranet",
                priority=1,
                description="kubelet from the on-prem API server over the private link",
                opts=child,
            )
        for cidr in args.onprem_ranges:
            alicloud.ecs.SecurityGroupRule(
                f"{name}-onprem-drop-{range_slug(cidr)}",
                security_group_id=group.id,
                type="egress",
                ip_protocol="all",
                port_range="-1/-1",
                cidr_ip=cidr,
                policy="drop",
                nic_type="intranet",
                priority=100,
                description="on-prem: nothing but the endpoints above",
                opts=child,
            )
        self.security_group_id = group.id
        self.register_outputs({"vpc_id": self.vpc_id, "security_group_id": self.security_group_id})

    def _nat(
        self,
        name: str,
        args: AlicloudNetworkArgs,
        vpc: alicloud.vpc.Network,
        switches: list[alicloud.vpc.Switch],
        child: pulumi.ResourceOptions,
    ) -> None:
        tags = dict(args.tags)
        nat = alicloud.vpc.NatGateway(
            f"{name}-nat",
            vpc_id=vpc.id,
            vswitch_id=switches[0].id,
            nat_gateway_name=f"{args.name_prefix}-nat",
            nat_type="Enhanced",
            payment_type="PayAsYouGo",
            internet_charge_type="PayByLcu",
            network_type="internet",
            tags=tags,
            opts=child,
        )
        eip = alicloud.ecs.EipAddress(
            f"{name}-nat-eip",
            address_name=f"{args.name_prefix}-nat",
            payment_type="PayAsYouGo",
            internet_charge_type="PayByTraffic",
            bandwidth="100",
            tags=tags,
            opts=child,
        )
        association = alicloud.ecs.EipAssociation(
            f"{name}-nat-eip-association",
            allocation_id=eip.id,
            instance_id=nat.id,
            instance_type="Nat",
            opts=child,
        )
        for index, switch in enumerate(switches):
            alicloud.vpc.SnatEntry(
                f"{name}-snat-{index}",
                snat_table_id=nat.snat_table_ids,
                source_vswitch_id=switch.id,
                snat_ip=eip.ip_address,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[association]),
            )
