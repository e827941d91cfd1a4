"""GF-NET-004: security groups open egress towards on-prem on named ports only.

A hybrid fleet's burst nodes reach on-prem over a private link. What they may open there is a short list
of endpoints (gpufleet: `onprem.reachable`), each a protocol and a few ports; a rule that opens every
protocol, or every port, towards an on-prem range hands a compromised burst node the whole lab.

On-prem ranges are those GF-NET-002 reads as on-prem (VPN and dedicated-line routes, VPN connections'
remote subnets, routes to the VPN or Direct Connect gateway, the `gpufleet.io/node-cidr` annotation,
Calico and Cilium pools) plus this rule's `onprem_cidrs` config. Without any, the rule does not apply.

By default a destination wider than /8 (`0.0.0.0/0`, the "allow all egress" most programs and AWS's
default group carry) is not judged: it is the internet egress question, not an on-prem one, and
flagging it would flag nearly every hybrid program. With `anywhere: true` it is judged like any other
destination, since over the link it reaches on-prem too (gpufleet's own stacks set it).

Judged: every accepting egress rule whose IPv4 destination overlaps an on-prem range (`0.0.0.0/0`
does) and that opens all protocols (`-1`, `all`, `ALL`), all ports, or a port range wider than 4096
ports (the Kubernetes NodePort range, 2768 ports, passes):

- AWS: `aws:ec2/securityGroup:SecurityGroup` and `DefaultSecurityGroup` inline `egress[]`;
  `aws:ec2/securityGroupRule:SecurityGroupRule` with type "egress";
  `aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule`.
- Alibaba Cloud: `alicloud:ecs/securityGroupRule:SecurityGroupRule` with type "egress" and policy
  accept; the part towards on-prem passes when a drop rule of the same group for all protocols, at
  the same or a higher priority (a number no larger), covers it.
- Tencent Cloud: `tencentcloud:Security/groupRuleSet:GroupRuleSet` `egresses[]` and
  `Security/groupLiteRule:GroupLiteRule` `egresses[]` (`ACTION#DEST#PORT#PROTOCOL`), where entries
  apply in order: an earlier DROP entry for all protocols covering the on-prem part lets a later wide
  ACCEPT pass; `Security/groupRule:GroupRule` with type "egress" and policy ACCEPT.

Not judged: IPv6 destinations, destinations that are security groups, prefix lists or Tencent
templates (their addresses are not on the rule), and network ACLs.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import part_merged, part_of
from gpufleet.policies.network._egress import MAX_PORTS, Egress, PriorityRule
from gpufleet.policies.network.range_overlap import ONPREM, PARTS, VPCS, collect_ranges
from gpufleet.policies.props import is_unknown, plain
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import clouds_with, joined, sole

# Each cloud's egress facts: `EGRESS_ORDERED` with `egress_entries` (entries apply in order) or
# `EGRESS_PRIORITISED` with `egress_rule` (rules apply by priority within their group).
_ORDERED: dict[str, str] = part_merged(PARTS, "EGRESS_ORDERED")
_PRIORITISED: dict[str, str] = part_merged(PARTS, "EGRESS_PRIORITISED")
_LABELS = {**_ORDERED, **_PRIORITISED}

RULE = Rule(
    id="GF-NET-004",
    name="onprem-egress-named-ports",
    description=(
        "Security groups open egress towards on-prem ranges on named ports only: no rule for all "
        "protocols or all ports reaches an on-prem range."
    ),
    clouds=clouds_with(PARTS, "EGRESS_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Replace the rule with one rule per on-prem endpoint, protocol (tcp or udp) and port range of at "
        "most 4096 ports, to exactly the endpoint's ranges (gpufleet: onprem.reachable). "
        f"{joined(PARTS, 'EGRESS_REMEDIATION', '; ')}."
    ),
    url=sole(PARTS, "EGRESS_URL"),
    config={
        "onprem_cidrs": {"type": "array", "items": {"type": "string"}, "default": []},
        "anywhere": {"type": "boolean", "default": False},
    },
)

Network = ipaddress.IPv4Network


def _network(value: Any, path: str) -> Network | None:
    if is_unknown(value):
        raise UnknownValueError(value, [path or "cidr"])
    try:
        net = ipaddress.ip_network(str(value).strip(), strict=False)
    except ValueError:
        return None
    return net if isinstance(net, Network) else None


def _reached(net: Network, onprem: Iterable[Network]) -> list[Network]:
    """The parts of ``net`` inside on-prem ranges (the smaller of each overlapping pair)."""
    return [net if net.subnet_of(r) else r for r in onprem if net.overlaps(r)]


def _covered(part: Network, drops: Iterable[Egress]) -> bool:
    for drop in drops:
        net = _network(drop.cidr, drop.path) if drop.what == "all protocols" else None
        if net is not None and part.subnet_of(net):
            return True
    return False


def onprem_networks(args: StackValidationArgs) -> list[Network]:
    vpc_urns = {r.urn for r in args.resources if r.resource_type in VPCS}
    found: list[Network] = []
    for resource in args.resources:
        try:
            ranges = collect_ranges(resource, vpc_urns)
        except (UnknownValueError, ValueError, TypeError):
            continue  # GF-NET-002 reports what it cannot read
        found += [r.network for r in ranges if r.group == ONPREM and isinstance(r.network, Network)]
    for text in RULE.settings(args)["onprem_cidrs"] or []:
        net = _network(text, "onprem_cidrs")
        if net is not None:
            found.append(net)
    # Each address once: the same range arrives from the VPN, its routes and the cluster's annotation.
    return list(ipaddress.collapse_addresses(net for net in found if net.prefixlen > 0))


def _report(resource: PolicyResource, entry: Egress, parts: list[Network], report: ReportViolation) -> None:
    label = _LABELS[resource.resource_type]
    report(
        f"{label} '{resource.name}' allows egress on {entry.what} to {entry.cidr}{entry.where}, which "
        f"reaches on-prem {', '.join(map(str, parts))}; open only the on-prem endpoints' ports (tcp or udp, "
        f"at most {MAX_PORTS} ports a rule) to their ranges",
        resource.urn,
    )


def _judged(net: Network | None, anywhere: bool) -> bool:
    """Whether a destination is judged: a range of /8 or narrower, or any with ``anywhere``."""
    return net is not None and (anywhere or net.prefixlen >= 8)


def _judge_ordered(
    resource: PolicyResource, onprem: list[Network], anywhere: bool, report: ReportViolation
) -> None:
    props = plain(resource.props)
    part = part_of(PARTS, resource.resource_type)
    assert part is not None
    entries: list[Egress] = part.egress_entries(resource.resource_type, props)
    for index, entry in enumerate(entries):
        if not entry.accept or not entry.wide:
            continue
        net = _network(entry.cidr, entry.path)
        if net is None or not _judged(net, anywhere):
            continue
        drops = [e for e in entries[:index] if not e.accept]
        parts = [part for part in _reached(net, onprem) if not _covered(part, drops)]
        if parts:
            _report(resource, entry, parts, report)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    onprem = onprem_networks(args)
    if not onprem:
        args.not_applicable("the stack reaches no on-prem range (no VPN or dedicated-line route)")
        return
    anywhere = bool(RULE.settings(args)["anywhere"])
    prioritised: list[tuple[PolicyResource, PriorityRule]] = []
    for resource in args.resources:
        if resource.resource_type in _PRIORITISED:

            def read(resource: PolicyResource = resource) -> None:
                part = part_of(PARTS, resource.resource_type)
                assert part is not None
                rule: PriorityRule | None = part.egress_rule(plain(resource.props))
                if rule is not None:
                    prioritised.append((resource, rule))

            judge(resource.urn, read)
        elif resource.resource_type in _ORDERED:

            def check(resource: PolicyResource = resource) -> None:
                _judge_ordered(resource, onprem, anywhere, report)

            judge(resource.urn, check)
    for resource, rule in prioritised:
        if not rule.entry.accept or not rule.entry.wide:
            continue

        def check_prioritised(resource: PolicyResource = resource, rule: PriorityRule = rule) -> None:
            net = _network(rule.entry.cidr, "cidrIp")
            if net is None or not _judged(net, anywhere):
                return
            drops = [
                other.entry
                for _, other in prioritised
                if not other.entry.accept and other.group == rule.group and other.priority <= rule.priority
            ]
            parts = [part for part in _reached(net, onprem) if not _covered(part, drops)]
            if parts:
                _report(resource, rule.entry, parts, report)

        judge(resource.urn, check_prioritised)


POLICY = GfStackPolicy(RULE, validate, judges(*_LABELS))
