"""The sites' links to on-prem: each link's ranges and route checks, and the link each site plan
gets."""

from __future__ import annotations

import ipaddress
from dataclasses import replace
from typing import TYPE_CHECKING

from gpufleet.components import spec_limits as limits
from gpufleet.components.spec import reach
from gpufleet.components.spec.specs import FleetSpec

if TYPE_CHECKING:
    from gpufleet.components.spec.sites import SitePlan


def onprem_link_ranges(spec: FleetSpec) -> list[str]:
    """The on-prem ranges a link carries when it names none: the node and data ranges, and a pod or
    service range only when an endpoint of ``onprem.reachable`` lies in it (:func:`reach.link_ranges`)."""
    return [str(net) for net in reach.link_ranges(spec.onprem)] if spec.onprem is not None else []


def link_problems(spec: FleetSpec, plans: list[SitePlan]) -> list[tuple[str, str]]:
    """A link without the on-prem side it joins, or naming no site of the plan that has a VPC of its own
    for it to reach, each naming the link and the fleet's sites."""
    if not spec.links:
        return []
    found: list[tuple[str, str]] = []
    if spec.onprem is None:
        found.append(
            (
                "links",
                f"joins the on-prem network to the sites ({', '.join(spec.links)}), but the spec has no "
                "onprem section: add onprem (its cluster, node, pod and service ranges) or remove links",
            )
        )
    by_key = {plan.key: plan for plan in plans}
    networked = [plan.key for plan in plans if plan.vpc_cidr is not None and not plan.subnet_ids]
    sites = ", ".join(networked) or "none"
    for key in spec.links:
        path = f"links.{limits.clip(key, 80)}"
        plan = by_key.get(key)
        if plan is None:
            found.append(
                (
                    path,
                    f"names no site of the fleet: {key} runs no pool; the fleet's sites with a network "
                    f"of their own are {sites} (each cloud:region where a pool runs)",
                )
            )
        elif plan.subnet_ids:
            found.append(
                (
                    path,
                    f"{key} runs in existing subnets (network.subnet_ids), whose VPC and route tables the "
                    f"fleet does not own: a link reaches a VPC the fleet creates ({sites})",
                )
            )
        elif plan.vpc_cidr is None:
            found.append(
                (
                    path,
                    f"{key} holds no pools and so no network of its own for the link to reach; the "
                    f"fleet's sites with a network are {sites}",
                )
            )
        ranges = spec.links[key].onprem_ranges or []
        before = len(found)
        for index, net in enumerate(ranges):
            found += [
                (
                    f"{path}.onprem_ranges[{index}]",
                    f"{net} overlaps {other.key}'s VPC range {other.vpc_cidr}: a link routes on-prem "
                    "ranges only, and a route to a cloud range would take that site's traffic",
                )
                for other in plans
                if other.vpc_cidr is not None and net.overlaps(ipaddress.IPv4Network(other.vpc_cidr))
            ]
        if ranges and len(found) == before and spec.onprem and not reach.site_egress(spec.onprem, ranges):
            found.append(
                (
                    f"{path}.onprem_ranges",
                    "routes none of the on-prem endpoints burst nodes may reach ("
                    + ", ".join(
                        f"{e.name} {' '.join(map(str, reach.endpoint_ranges(spec.onprem, e)))}"
                        for e in reach.endpoints(spec.onprem)
                    )
                    + "): route one of their ranges, or leave onprem_ranges out",
                )
            )
    return found


def with_link(spec: FleetSpec, plan: SitePlan) -> SitePlan:
    link = spec.links.get(plan.key)
    if link is None:
        return plan
    ranges = (
        [str(net) for net in link.onprem_ranges]
        if link.onprem_ranges is not None
        else onprem_link_ranges(spec)
    )
    routed = [ipaddress.IPv4Network(r) for r in ranges]
    egress = reach.site_egress(spec.onprem, routed) if spec.onprem else ()
    kubelet = tuple(
        source
        for source in (reach.kubelet_sources(spec.onprem) if spec.onprem and plan.pools else ())
        if any(ipaddress.IPv4Network(source).subnet_of(net) for net in routed)
    )
    return replace(plan, onprem_ranges=tuple(ranges), onprem_egress=egress, kubelet_sources=kubelet)
