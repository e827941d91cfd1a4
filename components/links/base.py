"""What every private link is built from, and the parts the three clouds share.

A link joins the on-prem network to one site's VPC (DESIGN.md "A fleet is sites joined by links"). It
is built under the site's provider, and adds routes to the on-prem ranges, and to nothing else, in
each of the site's route tables: burst nodes reach the baseline and the on-prem data, never the
internet through the link. Pre-shared and BGP keys come from secret stack config, never from the spec.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pulumi

from gpufleet.components.sites.base import SiteOutputs
from gpufleet.components.spec.links import Link, cloud_problems
from gpufleet.components.tags import check_cost_tags

CONFIG_NAMESPACE = "gpufleet"


@dataclass(frozen=True, kw_only=True)
class LinkArgs:
    """``site``: what the site returned (its VPC, range, route tables and provider). ``link``: the
    spec's link for the site. ``onprem_ranges``: the on-prem ranges its nodes may reach (the link's own
    ``onprem_ranges``, else the fleet's on-prem node and data ranges: see :func:`ranges_for`)."""

    site: SiteOutputs
    link: Link
    onprem_ranges: Sequence[str]
    tags: Mapping[str, str]

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        problems += [f"link.{problem}" for problem in cloud_problems(self.site.cloud, self.link)]
        if self.site.vpc_id is None or self.site.vpc_cidr is None:
            problems.append(
                f"site: {self.site.cloud}:{self.site.region} has no network of its own (vpc_id and "
                "vpc_cidr); a link joins the on-prem network to a site's VPC"
            )
        if self.site.route_table_ids is not None and self.site.route_table_count is None:
            problems.append("site.route_table_count: is required with route_table_ids")
        if not self.onprem_ranges:
            problems.append("onprem_ranges: name at least one on-prem range for the link to route")
        problems += _range_problems(self.onprem_ranges, self.site.vpc_cidr)
        if problems:
            raise ValueError("LinkArgs: " + "; ".join(problems))


def _range_problems(ranges: Sequence[str], vpc_cidr: str | None) -> list[str]:
    problems: list[str] = []
    vpc = ipaddress.IPv4Network(vpc_cidr) if vpc_cidr else None
    seen: list[ipaddress.IPv4Network] = []
    for text in ranges:
        try:
            net = ipaddress.IPv4Network(text)
        except ValueError:
            problems.append(f"onprem_ranges: {text!r} is not an IPv4 network like 10.60.0.0/16")
            continue
        if net.prefixlen < 8:
            problems.append(f"onprem_ranges: {net} is wider than /8: a link routes on-prem ranges only")
        elif vpc is not None and net.overlaps(vpc):
            problems.append(f"onprem_ranges: {net} overlaps the site's VPC range {vpc}")
        # Each range names a route per table: the same range twice would name two routes alike.
        problems += [
            f"onprem_ranges: {net} overlaps {other}: list each range once"
            for other in seen
            if net.overlaps(other)
        ]
        seen.append(net)
    return problems


def ranges_for(link: Link, onprem_defaults: Sequence[str]) -> list[str]:
    """The on-prem ranges a link routes: its own, else the fleet's on-prem node and data ranges."""
    if link.onprem_ranges is not None:
        return [str(net) for net in link.onprem_ranges]
    return list(onprem_defaults)


def secret_config(name: str) -> pulumi.Output[str]:
    """The secret stack config value ``gpufleet:<name>`` (a missing key stops the program, naming it)."""
    return pulumi.Config(CONFIG_NAMESPACE).require_secret(name)


def range_slug(cidr: str) -> str:
    """A range as a stable name part: ``10.60.0.0/16`` -> ``10-60-0-0-16``."""
    return cidr.replace(".", "-").replace("/", "-")


def route_table_ids(site: SiteOutputs) -> list[pulumi.Output[str]]:
    """Each of the site's route table ids as its own output (one route resource per table)."""
    ids = site.route_table_ids
    if ids is None or not site.route_table_count:
        return []

    def nth(index: int) -> pulumi.Output[str]:
        return ids.apply(lambda values: values[index])

    return [nth(index) for index in range(site.route_table_count)]


def child_options(parent: pulumi.Resource, site: SiteOutputs) -> pulumi.ResourceOptions:
    """Children of a link: parented to it, under the site's provider (the site's cloud and region)."""
    return pulumi.ResourceOptions(parent=parent, provider=site.provider)


def peer_addresses(tunnel_cidr: str) -> tuple[str, str]:
    """The cloud side's and the on-prem side's addresses in a /30 BGP tunnel range: its two hosts."""
    first, second = list(ipaddress.IPv4Network(tunnel_cidr).hosts())[:2]
    return str(first), str(second)


_T = TypeVar("_T")


def required(value: _T | None, field: str) -> _T:
    """A field the spec requires of this kind of link (the spec has checked it; this narrows the type)."""
    if value is None:
        raise ValueError(f"link.{field}: is required for this kind of link")
    return value
