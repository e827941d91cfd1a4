"""GF-DR-002: production fleets can burst into at least two clouds or regions.

Pools: `aws:autoscaling/group:Group`, `aws:eks/nodeGroup:NodeGroup`, `alicloud:ess/scalingGroup:ScalingGroup`,
`tencentcloud:As/scalingGroup:ScalingGroup`. Production and region are told as in `_locations`.

Only GPU pools count: a pool whose instance types are known (on the group, its launch template or
scaling configuration, as the cost rules read them) and none of them a GPU type is left out, so an
ordinary CPU web tier is not asked to span regions. A pool whose types cannot be read still counts.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import part_union, part_values
from gpufleet.policies.cost._common import stack_pools
from gpufleet.policies.gpu import is_gpu_ami_type, is_gpu_type
from gpufleet.policies.props import get_ref
from gpufleet.policies.resilience._locations import (
    PARTS,
    cloud_of,
    distinct_locations,
    is_production,
    region_of,
)
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import clouds_with, sole

POOL_TYPES = part_union(PARTS, "POOL_TYPES")
_POOL_NAMES = list(part_values(PARTS, "POOL_NAME").values())
# The pool resources a remediation names: `a, b or c`.
_EITHER_POOL = " or ".join(filter(None, [", ".join(_POOL_NAMES[:-1]), *_POOL_NAMES[-1:]]))

# Names past this many are counted, not listed, so a large fleet still gets a one-line finding.
MOST_NAMED = 5

RULE = Rule(
    id="GF-DR-002",
    name="fleet-multi-location",
    description="Production fleets can burst into at least two clouds or regions.",
    clouds=clouds_with(PARTS, "POOL_TYPES"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=(
        f"Add a burst pool ({_EITHER_POOL}) "
        "in a second region, through a provider with another region, or in a second cloud."
    ),
    url=sole(PARTS, "POOL_URL"),
)


def _cpu_only_pools(args: StackValidationArgs) -> set[str]:
    """URNs of the pools whose instance types are all known and none of them a GPU type."""
    try:
        pools, _ = stack_pools(args, gpu_only=False)
    except UnknownValueError:
        return set()  # every pool keeps counting, as when its types cannot be read
    return {
        pool.urn
        for pool in pools
        if pool.instance_types
        and "instance_types" not in pool.unknown
        and not any(is_gpu_type(pool.cloud, t) for t in pool.instance_types)
    }


def _gpu_ami(resource: PolicyResource) -> bool:
    return is_gpu_ami_type(get_ref(resource.props, "amiType"))


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    cpu_only = _cpu_only_pools(args)
    pools = [
        r
        for r in args.resources
        if r.resource_type in POOL_TYPES
        and (r.urn not in cpu_only or _gpu_ami(r))
        and is_production(r, args.stack_tags)
    ]
    if not pools:
        args.not_applicable("the stack has no production GPU pool")
    locations: list[tuple[str, str | None]] = []
    for pool in pools:

        def locate(pool: PolicyResource = pool) -> None:
            locations.append((cloud_of(pool.resource_type), region_of(pool)))

        judge(pool.urn, locate)
    labels = distinct_locations(locations)
    if len(labels) < 2:
        where = labels[0] if labels else "one location"
        subject = (
            f"production GPU pool {_names(pools)} runs"
            if len(pools) == 1
            else f"production GPU pools {_names(pools)} run"
        )
        report(f"{subject} only in {where}; add a pool in a second region or cloud", pools[0].urn)


def _names(pools: list[PolicyResource], most: int = MOST_NAMED) -> str:
    """'a', 'b' and 'c'; past `most` names, the rest as a count ("and 3 more")."""
    quoted = [f"'{pool.name}'" for pool in pools]
    if len(quoted) > most:
        return f"{', '.join(quoted[:most])} and {len(quoted) - most} more"
    if len(quoted) == 1:
        return quoted[0]
    return f"{', '.join(quoted[:-1])} and {quoted[-1]}"


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(POOL_TYPES),
)
