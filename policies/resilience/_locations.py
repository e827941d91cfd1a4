"""Where a stack runs: is it production, and in which cloud and region does a resource live.

Production comes from the resource's own `env`/`environment` tag, then the stack tags, then the stack
name in the URN (`gpufleet.policies.context.environment`). A region comes from the resource's `region` input,
then its explicit provider's `region`; AWS auto scaling groups also reveal it through their
availability zones (`us-east-1a` -> `us-east-1`) and Tencent scaling groups through `zones`
(`ap-guangzhou-3` -> `ap-guangzhou`). When none is given the resource runs in the default region of
its cloud's provider configuration, which the pack does not see: such a location counts once per cloud.
Each cloud's zone inputs and patterns are in its module beside this one (`ZONE_PATTERNS`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pulumi_policy import PolicyResource

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.policies.context import environment, resource_region
from gpufleet.policies.props import as_list, get_ref, is_unknown

# Each cloud's resilience facts, in its module beside this one (`aws`, `alicloud`, `tencentcloud`).
PARTS = cloud_parts("gpufleet.policies.resilience")
# (input listing zones, zone pattern whose group 1 is the region), over the clouds in order.
ZONE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    pair for pairs in part_values(PARTS, "ZONE_PATTERNS").values() for pair in pairs
)


def is_production(resource: PolicyResource, stack_tags: Mapping[str, str] | None) -> bool:
    return environment(resource.resource_type, resource.props, resource.urn, stack_tags) == "prod"


def cloud_of(resource_type: str) -> str:
    return resource_type.split(":", 1)[0]


def region_of(resource: PolicyResource) -> str | None:
    region = resource_region(resource.props, resource.provider)
    if region:
        return region
    for prop, pattern in ZONE_PATTERNS:
        zones = get_ref(resource.props, prop)
        if zones is None or is_unknown(zones):
            continue
        for zone in as_list(zones):
            match = pattern.match(zone) if isinstance(zone, str) else None
            if match:
                return match.group(1)
    return None


def distinct_locations(locations: Iterable[tuple[str, str | None]]) -> list[str]:
    """Distinct `cloud region` labels; a cloud's unknown (default) region counts only when it is the
    only location seen for that cloud, since it may equal any known one."""
    known: dict[str, set[str]] = {}
    for cloud, region in locations:
        known.setdefault(cloud, set())
        if region:
            known[cloud].add(region)
    labels: list[str] = []
    for cloud in sorted(known):
        regions = sorted(known[cloud])
        labels.extend([f"{cloud} {r}" for r in regions] or [f"{cloud} (default region)"])
    return labels
