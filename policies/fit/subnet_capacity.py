"""GF-FIT-002: the subnets a GPU pool may launch into have an address for each instance at its maximum.

Each pool at its maximum size takes one private address per instance per network interface of its
launch template (an EFA interface takes one, an EFA-only interface none, secondary addresses count; on
Alibaba Cloud each ENI of a scaling configuration's `networkInterfaces`, and an instance's secondary
ENIs and `secondaryPrivateIpAddressCount`),
in the stack's own subnets it lists (AWS `vpcZoneIdentifiers`/`subnetIds`/`subnetId`, Alibaba Cloud
`vswitchIds`/`vswitchId`, Tencent Cloud `subnetIds`/`subnetId`). Usable addresses are the subnet's range
less what the cloud keeps: 5 on AWS (the first four and the last), 4 on Alibaba Cloud (the first and
the last three of a vSwitch), 3 on Tencent Cloud (the first two and the last). Pools that share a
subnet share its addresses. A pool in subnets the stack does not create is not judged (their ranges
are not in the program). Addresses other resources hold (endpoints, load balancers, pods on EKS with
the VPC CNI) come on top, so the rule judges the least the pools need.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._common import describe, stack_pools
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import Subnet, addresses_per_instance, fragments, parts, rule_url, subnets
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# How many instances a subnet holds, in the words of the cloud module that gives the example.
(_EXAMPLE,) = fragments("SUBNET_EXAMPLE").values()

RULE = Rule(
    id="GF-FIT-002",
    name="subnet-addresses-cover-max-size",
    description=(
        "The subnets a GPU pool may use hold an address for every instance (and interface) at its "
        "maximum size."
    ),
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Give the pool larger subnets ({_EXAMPLE}) or more of them, or lower its "
        "maximum size; in a gpufleet stack, a larger `network.vpc_cidr` gives each private subnet more room."
    ),
    url=rule_url("GF-FIT-002"),
)


# What a launch into a full subnet meets, by cloud (each cloud module's `OUT_OF_ADDRESSES`, where the
# cloud names it).
OUT_OF_ADDRESSES = {str(cloud): str(text) for cloud, text in fragments("OUT_OF_ADDRESSES").items()}
_OTHER = "launches fail once the subnets have no free private address"


@dataclass
class _Group:
    subnets: dict[str, Subnet] = field(default_factory=dict)
    members: list[tuple[Pool, int, str]] = field(default_factory=list)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    pools, index = stack_pools(args)
    groups: list[_Group] = []
    for pool in pools:

        def place(pool: Pool = pool) -> None:
            size = pool.known("max_size")
            used = subnets(pool, index)
            if not size or not used:
                return
            per, why = addresses_per_instance(pool, index)
            group = _Group({s.urn: s for s in used}, [(pool, size * per, why)])
            for other in [g for g in groups if set(g.subnets) & set(group.subnets)]:
                groups.remove(other)
                group.subnets.update(other.subnets)
                group.members[:0] = other.members
            groups.append(group)

        judge(pool.urn, place)
    for group in groups:
        usable = sum(s.usable for s in group.subnets.values())
        needed = sum(count for _, count, _ in group.members)
        if needed <= usable:
            continue
        ordered = sorted(group.subnets.values(), key=lambda s: (s.name, s.cidr))
        listed = ", ".join(f"{s.name} {s.cidr} ({s.usable})" for s in ordered)
        who = "; ".join(
            f"{describe(p)} max {p.max_size} x {why} = {count}" for p, count, why in group.members
        )
        for pool, _, _ in group.members:
            report(
                f"{describe(pool)} may need {needed} private addresses at maximum size ({who}), but its "
                f"subnets hold {usable} usable ({listed}): {OUT_OF_ADDRESSES.get(pool.cloud, _OTHER)}",
                pool.urn,
            )


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
