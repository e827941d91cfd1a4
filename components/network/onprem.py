"""What a site's GPU security group opens towards on-prem when the site has a private link: one
:class:`EgressRule` per on-prem endpoint, port range and protocol, to exactly the endpoint's ranges
(worked out from the spec's ``onprem.reachable`` by :func:`components.spec.reach.site_egress`, carried
by :attr:`components.sites.base.SitePlan.onprem_egress`). Cloud-neutral, so each cloud's network module
imports it without another cloud's SDK."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

EgressProtocol = Literal["tcp", "udp"]
# Wider than this is no longer "a port": it is the all-ports rule the endpoints replace.
MAX_PORT_SPAN = 4096
# The kubelet's API port, which the on-prem API server calls on joined nodes (logs, exec, port-forward;
# kubernetes.io "Ports and Protocols").
KUBELET_PORT = 10250


@dataclass(frozen=True, kw_only=True)
class EgressRule:
    """Burst nodes may open ``protocol`` connections on ports ``from_port``..``to_port`` to ``cidrs``
    (on-prem ranges the site's link routes), for the on-prem endpoint ``endpoint``."""

    endpoint: str
    protocol: EgressProtocol
    from_port: int
    to_port: int
    cidrs: tuple[str, ...]

    @property
    def ports(self) -> str:
        """``443`` or ``30000-32767``."""
        return str(self.from_port) if self.from_port == self.to_port else f"{self.from_port}-{self.to_port}"

    @property
    def label(self) -> str:
        """``registry tcp 443``: what the rule is for, in descriptions and names."""
        return f"{self.endpoint} {self.protocol} {self.ports}"


def egress_problems(rules: Sequence[EgressRule]) -> list[str]:
    """Rules a security group may hold for a private link: tcp or udp, a port range of at most
    MAX_PORT_SPAN ports inside 1-65535, and IPv4 ranges of /8 or narrower."""
    problems: list[str] = []
    for rule in rules:
        if rule.protocol not in ("tcp", "udp"):
            problems.append(f"onprem_egress: {rule.endpoint}: protocol {rule.protocol!r} is not tcp or udp")
        if not 1 <= rule.from_port <= rule.to_port <= 65535 or rule.to_port - rule.from_port >= MAX_PORT_SPAN:
            problems.append(
                f"onprem_egress: {rule.endpoint}: ports {rule.ports} must be 1-65535 and span at most "
                f"{MAX_PORT_SPAN} ports: egress to on-prem names its ports"
            )
        if not rule.cidrs:
            problems.append(f"onprem_egress: {rule.endpoint}: names no range")
        for text in rule.cidrs:
            try:
                net = ipaddress.IPv4Network(text)
            except ValueError:
                problems.append(f"onprem_egress: {text!r} is not an IPv4 network like 10.60.0.0/16")
                continue
            if net.prefixlen < 8:
                problems.append(f"onprem_egress: {net} is wider than /8: egress opens to on-prem ranges only")
    return problems


def onprem_range_problems(ranges: Sequence[str]) -> list[str]:
    """Ranges the site's link routes (a security group refuses everything but the endpoints to them):
    IPv4 networks of /8 or narrower."""
    problems: list[str] = []
    for text in ranges:
        try:
            net = ipaddress.IPv4Network(text)
        except ValueError:
            problems.append(f"onprem_ranges: {text!r} is not an IPv4 network like 10.60.0.0/16")
            continue
        if net.prefixlen < 8:
            problems.append(f"onprem_ranges: {net} is wider than /8: egress opens to on-prem ranges only")
    return problems


def range_slug(cidr: str) -> str:
    """A range as a stable name part: ``10.60.0.0/16`` -> ``10-60-0-0-16``."""
    return cidr.replace(".", "-").replace("/", "-")
