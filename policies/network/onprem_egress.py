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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.network.range_overlap import ALI_VPC, AWS_VPC, ONPREM, TC_VPC, collect_ranges
from gpufleet.policies.props import as_int, as_list, get_objects, get_ref, is_unknown, plain
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AWS_DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
AWS_SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
ALI_SECURITY_GROUP_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
TC_GROUP_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_GROUP_LITE_RULE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"
TC_GROUP_RULE = "tencentcloud:Security/groupRule:GroupRule"
MAX_PORTS = 4096

_LABELS = {
    AWS_SECURITY_GROUP: "Security group",
    AWS_DEFAULT_SECURITY_GROUP: "Default security group",
    AWS_SECURITY_GROUP_RULE: "Security group rule",
    AWS_EGRESS_RULE: "Security group egress rule",
    ALI_SECURITY_GROUP_RULE: "ECS security group rule",
    TC_GROUP_RULE_SET: "Security group rule set",
    TC_GROUP_LITE_RULE: "Security group lite rule",
    TC_GROUP_RULE: "Security group rule",
}

RULE = Rule(
    id="GF-NET-004",
    name="onprem-egress-named-ports",
    description=(
        "Security groups open egress towards on-prem ranges on named ports only: no rule for all "
        "protocols or all ports reaches an on-prem range."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Replace the rule with one rule per on-prem endpoint, protocol (tcp or udp) and port range of at "
        "most 4096 ports, to exactly the endpoint's ranges (gpufleet: onprem.reachable). AWS: set "
        "protocol, from_port and to_port on the egress entry or rule; Alibaba: ip_protocol tcp/udp and a "
        "port_range, or a drop rule for the on-prem range at a higher priority; Tencent: protocol TCP/UDP "
        "and a port on the rule-set entry, or an earlier DROP entry for the on-prem range."
    ),
    url="https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html",
    config={
        "onprem_cidrs": {"type": "array", "items": {"type": "string"}, "default": []},
        "anywhere": {"type": "boolean", "default": False},
    },
)

Network = ipaddress.IPv4Network


@dataclass(frozen=True)
class Egress:
    """One egress permission: opens every port (``wide``), towards ``cidr``, accepted or dropped."""

    wide: bool
    what: str  # "all protocols", "all TCP ports", "UDP ports 1-65535"
    cidr: Any
    accept: bool
    where: str = ""
    path: str = ""


def _protocol(value: Any, path: str) -> str:
    if is_unknown(value):
        raise UnknownValueError(value, [path])
    if value is None:
        return "all"
    text = str(value).strip().lower()
    return {"-1": "all", "all": "all", "6": "tcp", "17": "udp"}.get(text, text)


def _kind(protocol: str, spans: list[tuple[int, int]] | None) -> tuple[bool, str]:
    """Whether a protocol and its port spans open too much, and how to say what they open."""
    if protocol == "all":
        return True, "all protocols"
    if protocol not in ("tcp", "udp"):
        return False, protocol
    if spans is None:
        return True, f"all {protocol.upper()} ports"
    count = sum(high - low + 1 for low, high in spans)
    shown = ",".join(str(low) if low == high else f"{low}-{high}" for low, high in spans)
    return count > MAX_PORTS, f"{protocol.upper()} ports {shown}"


def _span(low: Any, high: Any, path: str) -> list[tuple[int, int]] | None:
    for value in (low, high):
        if is_unknown(value):
            raise UnknownValueError(value, [path])
    start, end = as_int(low), as_int(high)
    if start is None and end is None:
        return None
    start = end if start is None else start
    end = start if end is None else end
    assert start is not None and end is not None
    if start < 0 or end < 0 or (start == 0 and end in (0, 65535)):
        return None
    return [(min(start, end), max(start, end))]


def _text_spans(text: Any, path: str, separator: str) -> list[tuple[int, int]] | None:
    """ "443", "30000-32767", "80,443", "ALL", "443/443", "-1/-1", "1/65535"."""
    if is_unknown(text):
        raise UnknownValueError(text, [path])
    raw = str(text if text is not None else "").strip().lower()
    if raw in ("", "all", "-1", "-1/-1"):
        return None
    spans: list[tuple[int, int]] = []
    for part in raw.split(","):
        low, _, high = part.strip().partition(separator)
        try:
            start, end = int(low), int(high or low)
        except ValueError:
            return None  # unreadable: read as every port, the safe side
        if start < 0 or end < 0:
            return None
        spans.append((min(start, end), max(start, end)))
    return spans


def _entry(
    protocol_value: Any, spans: Any, cidr: Any, *, accept: bool, where: str = "", path: str = ""
) -> Egress:
    protocol = _protocol(protocol_value, f"{path}.protocol" if path else "protocol")
    wide, what = _kind(protocol, None if protocol == "all" else spans)
    return Egress(wide, what, cidr, accept, where, path)


def _aws(resource_type: str, props: Mapping[str, Any]) -> list[Egress]:
    if resource_type in (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP):
        found = []
        for index, item in enumerate(get_objects(props, "egress")):
            path = f"egress.{index}"
            spans = _span(get_ref(item, "fromPort"), get_ref(item, "toPort"), path)
            for cidr in as_list(get_ref(item, "cidrBlocks")):
                found.append(
                    _entry(
                        get_ref(item, "protocol"),
                        spans,
                        cidr,
                        accept=True,
                        where=f" (egress rule {index + 1})",
                        path=path,
                    )
                )
        return found
    if resource_type == AWS_SECURITY_GROUP_RULE:
        if str(get_ref(props, "type")).lower() != "egress":
            return []
        spans = _span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
        return [
            _entry(get_ref(props, "protocol"), spans, c, accept=True)
            for c in as_list(get_ref(props, "cidrBlocks"))
        ]
    spans = _span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
    cidr = get_ref(props, "cidrIpv4")
    return [_entry(get_ref(props, "ipProtocol"), spans, cidr, accept=True)] if cidr else []


def _action(value: Any, path: str, default: str) -> bool:
    if is_unknown(value):
        raise UnknownValueError(value, [path])
    return str(value or default).strip().upper() == default.upper()


def _tencent(resource_type: str, props: Mapping[str, Any]) -> list[Egress]:
    if resource_type == TC_GROUP_RULE:
        if str(get_ref(props, "type")).lower() != "egress":
            return []
        spans = _text_spans(get_ref(props, "portRange"), "portRange", "-")
        accept = _action(get_ref(props, "policy"), "policy", "ACCEPT")
        cidr = get_ref(props, "cidrIp")
        return [_entry(get_ref(props, "ipProtocol"), spans, cidr, accept=accept)] if cidr else []
    found: list[Egress] = []
    lite = resource_type == TC_GROUP_LITE_RULE
    items = as_list(get_ref(props, "egresses")) if lite else get_objects(props, "egresses")
    for index, item in enumerate(items):
        path, where = f"egresses.{index}", f" (egress rule {index + 1})"
        if lite:
            if is_unknown(item):
                raise UnknownValueError(item, [path])
            parts = str(item).split("#")
            if len(parts) != 4:
                continue
            action, cidr, port, protocol = parts
            accept = _action(action, path, "ACCEPT")
            found.append(
                _entry(protocol, _text_spans(port, path, "-"), cidr, accept=accept, where=where, path=path)
            )
            continue
        cidr = get_ref(item, "cidrBlock")
        if not cidr:
            continue
        accept = _action(get_ref(item, "action"), f"{path}.action", "ACCEPT")
        spans = _text_spans(get_ref(item, "port"), f"{path}.port", "-")
        found.append(_entry(get_ref(item, "protocol"), spans, cidr, accept=accept, where=where, path=path))
    return found


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


@dataclass
class _AliRule:
    group: Any
    priority: int
    entry: Egress


def _alicloud(props: Mapping[str, Any]) -> _AliRule | None:
    if str(get_ref(props, "type")).lower() != "egress":
        return None
    cidr = get_ref(props, "cidrIp")
    if not cidr:
        return None
    accept = _action(get_ref(props, "policy"), "policy", "accept")
    spans = _text_spans(get_ref(props, "portRange"), "portRange", "/")
    priority = as_int(get_ref(props, "priority"))
    entry = _entry(get_ref(props, "ipProtocol"), spans, cidr, accept=accept)
    return _AliRule(get_ref(props, "securityGroupId"), priority if priority is not None else 1, entry)


def onprem_networks(args: StackValidationArgs) -> list[Network]:
    vpc_urns = {r.urn for r in args.resources if r.resource_type in (AWS_VPC, ALI_VPC, TC_VPC)}
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
    if resource.resource_type.startswith("aws:"):
        entries = _aws(resource.resource_type, props)
    else:
        entries = _tencent(resource.resource_type, props)
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
    ali: list[tuple[PolicyResource, _AliRule]] = []
    for resource in args.resources:
        if resource.resource_type == ALI_SECURITY_GROUP_RULE:

            def read(resource: PolicyResource = resource) -> None:
                rule = _alicloud(plain(resource.props))
                if rule is not None:
                    ali.append((resource, rule))

            judge(resource.urn, read)
        elif resource.resource_type in _LABELS:

            def check(resource: PolicyResource = resource) -> None:
                _judge_ordered(resource, onprem, anywhere, report)

            judge(resource.urn, check)
    for resource, rule in ali:
        if not rule.entry.accept or not rule.entry.wide:
            continue

        def check_ali(resource: PolicyResource = resource, rule: _AliRule = rule) -> None:
            net = _network(rule.entry.cidr, "cidrIp")
            if net is None or not _judged(net, anywhere):
                return
            drops = [
                other.entry
                for _, other in ali
                if not other.entry.accept and other.group == rule.group and other.priority <= rule.priority
            ]
            parts = [part for part in _reached(net, onprem) if not _covered(part, drops)]
            if parts:
                _report(resource, rule.entry, parts, report)

        judge(resource.urn, check_ali)


POLICY = GfStackPolicy(RULE, validate, judges(*_LABELS))
