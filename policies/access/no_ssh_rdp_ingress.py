"""GF-ACC-001: no security-group rule allows SSH (TCP 22) or RDP (3389) ingress.

Judged resources, every shape a program can write a rule in:

- AWS: `aws:ec2/securityGroup:SecurityGroup` and `aws:ec2/defaultSecurityGroup:DefaultSecurityGroup`
  inline `ingress[]` (fromPort/toPort/protocol, cidrBlocks, ipv6CidrBlocks, prefixListIds,
  securityGroups, self); `aws:ec2/securityGroupRule:SecurityGroupRule` with type "ingress";
  `aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule` (cidrIpv4, cidrIpv6, prefixListId,
  referencedSecurityGroupId, ipProtocol).
- Alibaba Cloud: `alicloud:ecs/securityGroupRule:SecurityGroupRule` with type "ingress"
  (portRange "22/22", "-1/-1"; policy accept|drop; cidrIp, ipv6CidrIp, sourceSecurityGroupId,
  prefixListId).
- Tencent Cloud: `tencentcloud:Security/groupRuleSet:GroupRuleSet` `ingresses[]`,
  `tencentcloud:Security/groupRule:GroupRule` with type "ingress", and
  `tencentcloud:Security/groupLiteRule:GroupLiteRule` `ingresses[]` strings
  (`ACTION#SOURCE#PORT#PROTOCOL`).

Ports: a rule covers 22 or 3389 when its range contains them; protocol all (`-1`, `all`, `ALL`)
covers every port. SSH is TCP only; RDP is TCP and UDP 3389. "Anywhere" is any range with prefix
length 0 (`0.0.0.0/0`, `::/0`); with `strict: true` every source counts. Drop/deny rules never
violate. Network ACLs are stateless subnet filters, not security-group rules: they are out of scope
here. Tencent Cloud Firewall enterprise rules (`tencentcloud:Sg/rule:Rule`) carry no direction and
are not judged.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    Severity,
)
from pulumi_policy.proxy import UnknownValueError

from policies.props import as_int, get, get_ref, is_unknown, plain
from policies.rule import GfResourcePolicy, Rule

AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AWS_DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
AWS_SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
ALI_SECURITY_GROUP_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
TC_GROUP_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_GROUP_RULE = "tencentcloud:Security/groupRule:GroupRule"
TC_GROUP_LITE_RULE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"

_LABELS = {
    AWS_SECURITY_GROUP: "Security group",
    AWS_DEFAULT_SECURITY_GROUP: "Default security group",
    AWS_SECURITY_GROUP_RULE: "Security group rule",
    AWS_INGRESS_RULE: "Security group ingress rule",
    ALI_SECURITY_GROUP_RULE: "ECS security group rule",
    TC_GROUP_RULE_SET: "Security group rule set",
    TC_GROUP_RULE: "Security group rule",
    TC_GROUP_LITE_RULE: "Security group lite rule",
}

RULE = Rule(
    id="GF-ACC-001",
    name="no-ssh-rdp-ingress",
    description=(
        "No security-group rule allows SSH (TCP 22) or RDP (3389) ingress; by default from anywhere, "
        "with `strict` from any source."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Remove ingress rules that open TCP 22 or 3389 (or all ports/protocols) to 0.0.0.0/0 or ::/0 and "
        "reach instances through a session manager instead (AWS Systems Manager Session Manager, Alibaba "
        "Cloud Assistant, Tencent TAT). AWS: drop the `ingress` entry of aws.ec2.SecurityGroup or the "
        "aws.ec2.SecurityGroupRule / aws.vpc.SecurityGroupIngressRule resource; Alibaba: drop the "
        "alicloud.ecs.SecurityGroupRule or set `policy: drop`; Tencent: drop the ingress entry of "
        "tencentcloud.security.GroupRuleSet/GroupLiteRule or the GroupRule, or set its action to DROP."
    ),
    url="https://docs.aws.amazon.com/securityhub/latest/userguide/ec2-controls.html#ec2-13",
    config={"strict": {"type": "boolean", "default": False}},
    checkov=("CKV_AWS_24", "CKV_AWS_25"),
)

_SSH = 22
_RDP = 3389
_ALL = "all"


@dataclass(frozen=True)
class Entry:
    """One ingress permission: protocol (normalised), port span, sources, where it sits."""

    protocol: Any  # "tcp" | "udp" | "all" | other | unknown sentinel
    ports: list[tuple[int, int]] | None  # None: every port
    sources: list[Any]  # CIDRs (str) or non-CIDR sources (security groups, prefix lists)
    cidr_sources: frozenset[int]  # indices in `sources` that are CIDR ranges
    where: str
    path: str = ""


def _protocol(value: Any) -> Any:
    if value is None:
        return _ALL
    if is_unknown(value):
        return value
    text = str(value).strip().lower()
    return {"-1": _ALL, "all": _ALL, "6": "tcp", "17": "udp"}.get(text, text)


def _field(entry: Entry, name: str) -> list[str]:
    return [f"{entry.path}.{name}" if entry.path else name]


def _ports_covered(entry: Entry) -> list[str]:
    """Which of SSH/RDP the entry opens ("SSH (TCP 22)", "RDP (3389)")."""
    if is_unknown(entry.protocol):
        raise UnknownValueError(entry.protocol, _field(entry, "protocol"))
    protocol = entry.protocol
    opened: list[str] = []
    for port, label, protocols in ((_SSH, "SSH (TCP 22)", ("tcp",)), (_RDP, "RDP (3389)", ("tcp", "udp"))):
        if protocol != _ALL and protocol not in protocols:
            continue
        if entry.ports is None or any(low <= port <= high for low, high in entry.ports):
            opened.append(label)
    return opened


def _is_anywhere(cidr: str) -> bool:
    try:
        return ipaddress.ip_network(cidr.strip(), strict=False).prefixlen == 0
    except ValueError:
        return False


def _offending_sources(entry: Entry, strict: bool) -> list[str]:
    found: list[str] = []
    for index, source in enumerate(entry.sources):
        is_cidr = index in entry.cidr_sources
        if is_unknown(source):
            if strict:
                found.append("a source unknown at preview")
                continue
            if is_cidr:
                raise UnknownValueError(source, _field(entry, "cidr"))
            continue
        text = str(source)
        if strict or (is_cidr and _is_anywhere(text)):
            found.append(text)
    return found


def _span(low: Any, high: Any, path: str) -> list[tuple[int, int]] | None:
    for value, name in ((low, "fromPort"), (high, "toPort")):
        if is_unknown(value):
            raise UnknownValueError(value, [path, name])
    start, end = as_int(low), as_int(high)
    if start is None and end is None:
        return None
    start = end if start is None else start
    end = start if end is None else end
    assert start is not None and end is not None
    if start < 0 or end < 0:  # -1/-1 and 0/0 with protocol all: every port
        return None
    return [(min(start, end), max(start, end))]


def _range_text(text: Any, path: str, separators: str) -> list[tuple[int, int]] | None:
    """Ports written as text: "22", "20-25", "22,3389", "ALL", "22/22", "-1/-1", "1/65535"."""
    if text is None or text == "":
        return None
    if is_unknown(text):
        raise UnknownValueError(text, [path])
    raw = str(text).strip().lower()
    if raw in ("all", "-1/-1", "-1"):
        return None
    spans: list[tuple[int, int]] = []
    for part in raw.split(","):
        piece = part.strip()
        for separator in separators:
            if separator in piece[1:]:
                low_text, _, high_text = piece.partition(separator)
                break
        else:
            low_text = high_text = piece
        try:
            low, high = int(low_text), int(high_text)
        except ValueError:
            continue
        if low < 0 or high < 0:
            return None
        spans.append((min(low, high), max(low, high)))
    return spans


def _sources(item: Mapping[str, Any], cidr_keys: tuple[str, ...], other_keys: tuple[str, ...]) -> Entry:
    sources: list[Any] = []
    cidr_indices: set[int] = set()
    for key in cidr_keys:
        value = get_ref(item, key)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is None or one == "":
                continue
            cidr_indices.add(len(sources))
            sources.append(one)
    for key in other_keys:
        value = get_ref(item, key)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is None or one == "" or one is False:
                continue
            sources.append("this security group" if one is True else one)
    return Entry(protocol=None, ports=None, sources=sources, cidr_sources=frozenset(cidr_indices), where="")


def _with(
    entry: Entry, protocol: Any, ports: list[tuple[int, int]] | None, where: str, path: str = ""
) -> Entry:
    return Entry(protocol, ports, entry.sources, entry.cidr_sources, where, path)


def _aws_entries(resource_type: str, props: Mapping[str, Any]) -> list[Entry]:
    if resource_type in (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP):
        ingress = get_ref(props, "ingress")
        if is_unknown(ingress):
            raise UnknownValueError(ingress, ["ingress"])
        entries = []
        for index, item in enumerate(ingress or []):
            path = f"ingress.{index}"
            base = _sources(
                item, ("cidrBlocks", "ipv6CidrBlocks"), ("prefixListIds", "securityGroups", "self")
            )
            protocol = _protocol(get_ref(item, "protocol"))
            ports = (
                None if protocol == _ALL else _span(get_ref(item, "fromPort"), get_ref(item, "toPort"), path)
            )
            entries.append(_with(base, protocol, ports, f" (ingress rule {index + 1})", path))
        return entries
    if resource_type == AWS_SECURITY_GROUP_RULE:
        kind = get(props, "type")
        if str(kind).lower() != "ingress":
            return []
        base = _sources(
            props, ("cidrBlocks", "ipv6CidrBlocks"), ("prefixListIds", "sourceSecurityGroupId", "self")
        )
        protocol = _protocol(get_ref(props, "protocol"))
        ports = None if protocol == _ALL else _span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
        return [_with(base, protocol, ports, "")]
    base = _sources(props, ("cidrIpv4", "cidrIpv6"), ("prefixListId", "referencedSecurityGroupId"))
    protocol = _protocol(get_ref(props, "ipProtocol"))
    ports = None if protocol == _ALL else _span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
    return [_with(base, protocol, ports, "")]


def _ali_entries(props: Mapping[str, Any]) -> list[Entry]:
    if str(get(props, "type")).lower() != "ingress":
        return []
    if str(get(props, "policy") or "accept").lower() == "drop":
        return []
    base = _sources(props, ("cidrIp", "ipv6CidrIp"), ("sourceSecurityGroupId", "prefixListId"))
    protocol = _protocol(get(props, "ipProtocol"))
    ports = None if protocol == _ALL else _range_text(get_ref(props, "portRange"), "portRange", "/")
    return [_with(base, protocol, ports, "")]


def _accepts(action: Any, path: str) -> bool:
    if is_unknown(action):
        raise UnknownValueError(action, [path])
    return str(action or "ACCEPT").strip().upper() == "ACCEPT"


def _tc_entries(resource_type: str, props: Mapping[str, Any]) -> list[Entry]:
    if resource_type == TC_GROUP_RULE:
        if str(get(props, "type")).lower() != "ingress":
            return []
        if not _accepts(get_ref(props, "policy"), "policy"):
            return []
        base = _sources(props, ("cidrIp",), ("sourceSgid", "addressTemplate"))
        protocol = _protocol(get_ref(props, "ipProtocol"))
        ports = None if protocol == _ALL else _range_text(get_ref(props, "portRange"), "portRange", "-")
        return [_with(base, protocol, ports, "")]
    ingresses = get_ref(props, "ingresses")
    if is_unknown(ingresses):
        raise UnknownValueError(ingresses, ["ingresses"])
    entries: list[Entry] = []
    for index, item in enumerate(ingresses or []):
        path = f"ingresses.{index}"
        where = f" (ingress rule {index + 1})"
        if resource_type == TC_GROUP_LITE_RULE:
            if is_unknown(item):
                raise UnknownValueError(item, [path])
            parts = str(item).split("#")
            if len(parts) != 4 or not _accepts(parts[0], path):
                continue
            source, port, proto = parts[1], parts[2], parts[3]
            is_cidr = "/" in source or source.replace(".", "").isdigit() or ":" in source
            base = Entry(None, None, [source], frozenset({0}) if is_cidr else frozenset(), "")
            protocol = _protocol(proto)
            ports = None if protocol == _ALL else _range_text(port, path, "-")
            entries.append(_with(base, protocol, ports, where, path))
            continue
        if not _accepts(get_ref(item, "action"), f"{path}.action"):
            continue
        base = _sources(
            item,
            ("cidrBlock", "ipv6CidrBlock"),
            ("sourceSecurityId", "addressTemplateId", "addressTemplateGroup"),
        )
        protocol = _protocol(get_ref(item, "protocol"))
        ports = None if protocol == _ALL else _range_text(get_ref(item, "port"), f"{path}.port", "-")
        entries.append(_with(base, protocol, ports, where, path))
    return entries


def entries_of(resource_type: str, props: Mapping[str, Any]) -> list[Entry]:
    """The accepting ingress permissions a resource declares (empty for egress/drop rules)."""
    if resource_type.startswith("aws:"):
        return _aws_entries(resource_type, props)
    if resource_type == ALI_SECURITY_GROUP_RULE:
        return _ali_entries(props)
    return _tc_entries(resource_type, props)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in _LABELS:
        return
    strict = bool(RULE.settings(args)["strict"])
    props = plain(args.props)
    label = _LABELS[args.resource_type]
    for entry in entries_of(args.resource_type, props):
        opened = _ports_covered(entry)
        if not opened:
            continue
        sources = _offending_sources(entry, strict)
        if not sources:
            continue
        scope = "from any source" if strict else "from anywhere"
        report(
            f"{label} '{args.name}' allows {' and '.join(opened)} ingress from {', '.join(sources)}"
            f"{entry.where}; allow no SSH or RDP {scope}: reach instances through a session manager",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate)
