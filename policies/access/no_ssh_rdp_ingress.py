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
length 0 (`0.0.0.0/0`, `::/0`); with `strict: true` every source counts.

Anywhere may also be written in pieces. The CIDR sources that open one port (SSH or RDP) in the rules
of one security group, inline `ingress` and the separate rule resources that name the group through
`securityGroupId` (joined by property dependency or by the group's id), are merged with
`ipaddress.collapse_addresses`: when together they cover `0.0.0.0/0` (`0.0.0.0/1` + `128.0.0.0/1`) or
`::/0` (`::/1` + `8000::/1`), the group is open to the world, a finding on the group (or, when the
group is not in the stack, on the first rule that opens the port). A wide range alone (`0.0.0.0/1`) is
not anywhere. Tencent entries whose ports sit in a service template are left to the per-entry check.

A prefix list in the stack counts as the CIDRs it holds: AWS `aws.ec2.ManagedPrefixList` `entries`
(and `aws.ec2.ManagedPrefixListEntry` resources added to it) referenced through `prefixListIds` or
`prefixListId`, and Alibaba `alicloud.vpc.PrefixList` `entrys` referenced through a rule's
`prefixListId`. A prefix list is joined by its id or name, or by property dependency when it is the
only prefix list the reference depends on; a prefix list outside the stack stays a named source.

Drop/deny rules never violate. Network ACLs are stateless subnet filters, not security-group rules:
they are out of scope here. Tencent Cloud Firewall enterprise rules (`tencentcloud:Sg/rule:Rule`)
carry no direction and are not judged.

Tencent rules may name templates instead of writing ports and sources. A service (protocol) template
(`serviceTemplateId`/`serviceTemplateGroup` of a rule-set entry, `protocolTemplate` of a GroupRule)
holds the protocols and ports: when the template (`tencentcloud:Protocol/template:Template`, or a
`Protocol/templateGroup:TemplateGroup` of them) is in the stack its `protocols` ("tcp:22",
"tcp:80,443", "udp:all") are read; otherwise the entry could not be judged (reported like a value
unknown at preview, never as a pass or a violation), when its sources would otherwise offend. An
address template (`addressTemplateId`/`addressTemplateGroup`, `addressTemplate`) in the stack
(`Address/template:Template` `addresses`, `Address/extraTemplate:ExtraTemplate`, or a
`Address/templateGroup:TemplateGroup`) is read as the CIDR sources it lists; one outside the stack is
a named source, like an AWS prefix list. Templates are joined by reference, so the rule is a stack
policy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    Severity,
    StackValidationArgs,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import (
    Malformed,
    as_int,
    as_list,
    get,
    get_list,
    get_objects,
    get_ref,
    is_unknown,
    json_kind,
    plain,
)
from gpufleet.policies.rule import GfStackPolicy, Rule, judge

AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AWS_DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
AWS_SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
ALI_SECURITY_GROUP_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
TC_GROUP_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_GROUP_RULE = "tencentcloud:Security/groupRule:GroupRule"
TC_GROUP_LITE_RULE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"
TC_PROTOCOL_TEMPLATE = "tencentcloud:Protocol/template:Template"
TC_PROTOCOL_TEMPLATE_GROUP = "tencentcloud:Protocol/templateGroup:TemplateGroup"
TC_ADDRESS_TEMPLATE = "tencentcloud:Address/template:Template"
TC_ADDRESS_EXTRA_TEMPLATE = "tencentcloud:Address/extraTemplate:ExtraTemplate"
TC_ADDRESS_TEMPLATE_GROUP = "tencentcloud:Address/templateGroup:TemplateGroup"
AWS_PREFIX_LIST = "aws:ec2/managedPrefixList:ManagedPrefixList"
AWS_PREFIX_LIST_ENTRY = "aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry"
ALI_PREFIX_LIST = "alicloud:vpc/prefixList:PrefixList"
_PREFIX_LISTS = (AWS_PREFIX_LIST, ALI_PREFIX_LIST)
# The input a rule's prefix list reference sits in (its property dependencies are recorded on it).
_PREFIX_PROP = {
    "aws:ec2/securityGroup:SecurityGroup": "ingress",
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": "ingress",
    "aws:ec2/securityGroupRule:SecurityGroupRule": "prefixListIds",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "prefixListId",
    "alicloud:ecs/securityGroupRule:SecurityGroupRule": "prefixListId",
}
_PREFIX_KEYS = ("prefixListIds", "prefixListId")

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


Ports = list[tuple[int, int]] | None  # None: every port


@dataclass(frozen=True)
class Entry:
    """One ingress permission: protocol (normalised), port span, sources, where it sits."""

    protocol: Any  # "tcp" | "udp" | "all" | other | unknown sentinel
    ports: Ports
    sources: list[Any]  # CIDRs (str) or non-CIDR sources (security groups, prefix lists)
    cidr_sources: frozenset[int]  # indices in `sources` that are CIDR ranges
    where: str
    path: str = ""
    # Set when a service template holds the protocols and ports: (protocol, ports) pairs, read only
    # once the sources offend; raises UnknownValueError when they cannot be known.
    service: Callable[[], list[tuple[Any, Ports]]] | None = None
    # Indices in `sources` of prefix-list references, and where a source came from (" (prefix list 'x')").
    prefix_lists: frozenset[int] = frozenset()
    origins: Mapping[int, str] = field(default_factory=dict)


class TemplateOutsideStack(UnknownValueError):
    """A template the stack does not manage decides the answer: like a value unknown at preview, the
    rule cannot be judged, and must neither pass nor fail."""

    def __init__(self, what: str, path: str) -> None:
        super().__init__(UNKNOWN_STRING_VALUE, [path])
        self.message = what


class Templates:
    """Tencent protocol and address templates of the stack, joined to the rules that name them."""

    def __init__(self, resources: list[PolicyResource]) -> None:
        self._resources = resources
        self._index: ResourceIndex | None = None

    @property
    def index(self) -> ResourceIndex:
        if self._index is None:
            self._index = per_stack(ResourceIndex, self._resources)
        return self._index

    def _named(self, rule_urn: str, prop: str, value: Any, types: tuple[str, ...]) -> list[ResourceView]:
        """The templates of `types` that `value` (an id, possibly unknown) in the rule's `prop` names:
        by name when it is known and names one, else by property dependency; several when the
        reference cannot tell them apart (the dependencies of a rule set span all of its entries)."""
        rule = self.index.by_urn[rule_urn]
        if isinstance(value, str) and value and not is_unknown(value):
            by_name = self.index.refs(replace(rule, dependency_urns={}), prop, types, value=value)
            if by_name:
                return by_name
        return self.index.refs(rule, prop, types, value="")

    def _members(self, group: ResourceView, member_types: tuple[str, ...]) -> list[ResourceView] | None:
        """The templates of a template group, or None when one of them is not in the stack."""
        members: dict[str, ResourceView] = {}
        for member_id in as_list(get_ref(group.props, "templateIds")):
            found = self._named(group.urn, "templateIds", member_id, member_types)
            if not found:
                return None
            members.update((m.urn, m) for m in found)
        return list(members.values())

    def service(self, rule_urn: str, prop: str, value: Any, path: str, where: str) -> list[tuple[Any, Ports]]:
        """The (protocol, ports) a service template or template group opens."""
        candidates = self._named(rule_urn, prop, value, (TC_PROTOCOL_TEMPLATE, TC_PROTOCOL_TEMPLATE_GROUP))
        if not candidates:
            if is_unknown(value):
                raise UnknownValueError(value, [path])
            raise TemplateOutsideStack(
                f"ports of service template {value}{where} are not in the stack; manage the "
                "tencentcloud.protocol.Template here or write the protocol and port on the rule",
                path,
            )
        readings = []
        for candidate in candidates:
            templates = [candidate]
            if candidate.resource_type == TC_PROTOCOL_TEMPLATE_GROUP:
                members = self._members(candidate, (TC_PROTOCOL_TEMPLATE,))
                if members is None:
                    raise TemplateOutsideStack(
                        f"ports of a template in service template group '{candidate.name}'{where} are not "
                        "in the stack",
                        path,
                    )
                templates = members
            readings.append([spec for t in templates for spec in _protocol_specs(t)])
        if any(reading != readings[0] for reading in readings):
            raise TemplateOutsideStack(
                f"ports{where} depend on which of the service templates "
                f"{', '.join(repr(c.name) for c in candidates)} it names",
                path,
            )
        return readings[0]

    def prefix_list(self, rule_urn: str, prop: str, value: Any) -> tuple[str, list[Any]] | None:
        """(name, CIDRs) of the prefix list `value` names, or None when it is not in the stack (or the
        reference could name several of them)."""
        rule = self.index.by_urn[rule_urn]
        found: list[ResourceView] = []
        if isinstance(value, str) and value and not is_unknown(value):
            found = self.index.refs(replace(rule, dependency_urns={}), prop, _PREFIX_LISTS, value=value)
        if not found:
            found = self.index.refs(rule, prop, _PREFIX_LISTS, value="")
        if len(found) != 1:
            return None
        plist = found[0]
        key = "entries" if plist.resource_type == AWS_PREFIX_LIST else "entrys"
        entries = get_ref(plist.props, key)
        if is_unknown(entries):
            return plist.name, [entries]
        cidrs = [get_ref(item, "cidr") for item in as_list(entries) if isinstance(item, Mapping)]
        if plist.resource_type == AWS_PREFIX_LIST:
            for extra in self.index.of_type(AWS_PREFIX_LIST_ENTRY):
                if plist.urn in extra.dependency_urns.get("prefixListId", ()) or (
                    get_ref(extra.props, "prefixListId") in {plist.name, get_ref(plist.props, "id")}
                ):
                    cidrs.append(get_ref(extra.props, "cidr"))
        return plist.name, [c for c in cidrs if c is not None and c != ""]

    def addresses(self, rule_urn: str, prop: str, value: Any) -> list[Any] | None:
        """The addresses an address template or group lists, or None when it is not in the stack."""
        kinds = (TC_ADDRESS_TEMPLATE, TC_ADDRESS_EXTRA_TEMPLATE, TC_ADDRESS_TEMPLATE_GROUP)
        candidates = self._named(rule_urn, prop, value, kinds)
        found: list[Any] = []
        for candidate in candidates:
            templates: list[ResourceView] | None = [candidate]
            if candidate.resource_type == TC_ADDRESS_TEMPLATE_GROUP:
                templates = self._members(candidate, (TC_ADDRESS_TEMPLATE, TC_ADDRESS_EXTRA_TEMPLATE))
            if not templates:
                return None
            for template in templates:
                found.extend(_template_addresses(template))
        return found if candidates else None


def _protocol_specs(template: ResourceView) -> list[tuple[Any, Ports]]:
    """`protocols` of a protocol template: "tcp:22", "tcp:80,443", "tcp:3306-20000", "udp:all", "icmp"."""
    path = f"{template.name}.protocols"
    protocols = get_ref(template.props, "protocols")
    if is_unknown(protocols):
        raise UnknownValueError(protocols, [path])
    specs: list[tuple[Any, Ports]] = []
    for spec in as_list(protocols):
        if is_unknown(spec):
            raise UnknownValueError(spec, [path])
        protocol_text, _, port_text = str(spec).partition(":")
        protocol = _protocol(protocol_text)
        ports = None if protocol == _ALL else _range_text(port_text, path, "-")
        specs.append((protocol, ports))
    return specs


def _template_addresses(template: ResourceView) -> list[Any]:
    if template.resource_type == TC_ADDRESS_EXTRA_TEMPLATE:
        value = get_ref(template.props, "addressesExtras")
        if is_unknown(value):
            return [value]
        return [get_ref(extra, "address") for extra in as_list(value)]
    return as_list(get_ref(template.props, "addresses"))


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
            found.append(f"{text}{entry.origins.get(index, '')}")
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
    prefix_indices: set[int] = set()
    for key in other_keys:
        value = get_ref(item, key)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is None or one == "" or one is False:
                continue
            if key in _PREFIX_KEYS:
                prefix_indices.add(len(sources))
            sources.append("this security group" if one is True else one)
    return Entry(
        protocol=None,
        ports=None,
        sources=sources,
        cidr_sources=frozenset(cidr_indices),
        where="",
        prefix_lists=frozenset(prefix_indices),
    )


def _with(
    entry: Entry, protocol: Any, ports: list[tuple[int, int]] | None, where: str, path: str = ""
) -> Entry:
    return Entry(
        protocol,
        ports,
        entry.sources,
        entry.cidr_sources,
        where,
        path,
        prefix_lists=entry.prefix_lists,
        origins=entry.origins,
    )


def _aws_entries(resource_type: str, props: Mapping[str, Any]) -> list[Entry]:
    if resource_type in (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP):
        entries = []
        for index, item in enumerate(get_objects(props, "ingress")):
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


def _tc_sources(
    item: Mapping[str, Any],
    prop: str,
    cidr_keys: tuple[str, ...],
    other_keys: tuple[str, ...],
    address_keys: tuple[str, ...],
    *,
    rule: tuple[str, Templates] | None,
) -> Entry:
    """Sources of a Tencent rule; an address template in the stack counts as the CIDRs it lists."""
    base = _sources(item, cidr_keys, other_keys)
    sources, cidrs = list(base.sources), set(base.cidr_sources)
    for key in address_keys:
        value = get_ref(item, key)
        if value is None or value == "":
            continue
        addresses = rule[1].addresses(rule[0], prop, value) if rule else None
        if addresses is None:
            sources.append(value)
            continue
        for address in addresses:
            cidrs.add(len(sources))
            sources.append(address)
    return Entry(None, None, sources, frozenset(cidrs), "")


def _tc_service(
    item: Mapping[str, Any],
    prop: str,
    keys: tuple[str, ...],
    path: str,
    where: str,
    *,
    rule: tuple[str, Templates] | None,
) -> Callable[[], list[tuple[Any, Ports]]] | None:
    """The deferred reading of the service template an entry names, if it names one."""
    for key in keys:
        value = get_ref(item, key)
        if value is None or value == "":
            continue
        field = f"{path}.{key}" if path else key

        def read(value: Any = value, field: str = field) -> list[tuple[Any, Ports]]:
            if rule is None:
                raise TemplateOutsideStack(
                    f"ports of service template {value}{where} are not in the stack", field
                )
            return rule[1].service(rule[0], prop, value, field, where)

        return read
    return None


def _tc_entries(
    resource_type: str, props: Mapping[str, Any], rule: tuple[str, Templates] | None = None
) -> list[Entry]:
    if resource_type == TC_GROUP_RULE:
        if str(get(props, "type")).lower() != "ingress":
            return []
        if not _accepts(get_ref(props, "policy"), "policy"):
            return []
        address = get_ref(props, "addressTemplate")
        base = _tc_sources(
            address if isinstance(address, Mapping) else {},
            "addressTemplate",
            (),
            (),
            ("templateId", "groupId"),
            rule=rule,
        )
        direct = _sources(props, ("cidrIp",), ("sourceSgid",))
        base = _merge(direct, base)
        template = get_ref(props, "protocolTemplate")
        service = _tc_service(
            template if isinstance(template, Mapping) else {},
            "protocolTemplate",
            ("templateId", "groupId"),
            "protocolTemplate",
            "",
            rule=rule,
        )
        if service is not None:
            return [Entry(None, None, base.sources, base.cidr_sources, "", service=service)]
        protocol = _protocol(get_ref(props, "ipProtocol"))
        ports = None if protocol == _ALL else _range_text(get_ref(props, "portRange"), "portRange", "-")
        return [_with(base, protocol, ports, "")]
    lite = resource_type == TC_GROUP_LITE_RULE
    entries: list[Entry] = []
    for index, item in enumerate(get_list(props, "ingresses") if lite else get_objects(props, "ingresses")):
        path = f"ingresses.{index}"
        where = f" (ingress rule {index + 1})"
        if lite:
            if is_unknown(item):
                raise UnknownValueError(item, [path])
            if not isinstance(item, str):
                raise Malformed(
                    f".{path} is {json_kind(item)}, not an ACTION#SOURCE#PORT#PROTOCOL string", item
                )
            parts = item.split("#")
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
        base = _tc_sources(
            item,
            "ingresses",
            ("cidrBlock", "ipv6CidrBlock"),
            ("sourceSecurityId",),
            ("addressTemplateId", "addressTemplateGroup"),
            rule=rule,
        )
        service = _tc_service(
            item, "ingresses", ("serviceTemplateId", "serviceTemplateGroup"), path, where, rule=rule
        )
        if service is not None:
            entries.append(Entry(None, None, base.sources, base.cidr_sources, where, path, service))
            continue
        protocol = _protocol(get_ref(item, "protocol"))
        ports = None if protocol == _ALL else _range_text(get_ref(item, "port"), f"{path}.port", "-")
        entries.append(_with(base, protocol, ports, where, path))
    return entries


def _merge(first: Entry, second: Entry) -> Entry:
    offset = len(first.sources)
    return Entry(
        None,
        None,
        [*first.sources, *second.sources],
        first.cidr_sources | frozenset(offset + i for i in second.cidr_sources),
        "",
    )


def entries_of(
    resource_type: str, props: Mapping[str, Any], rule: tuple[str, Templates] | None = None
) -> list[Entry]:
    """The accepting ingress permissions a resource declares (empty for egress/drop rules);
    `rule` (its URN and the stack's templates) lets Tencent rules read the templates they name."""
    if resource_type.startswith("aws:"):
        entries = _aws_entries(resource_type, props)
    elif resource_type == ALI_SECURITY_GROUP_RULE:
        entries = _ali_entries(props)
    else:
        return _tc_entries(resource_type, props, rule)
    if rule is None:
        return entries
    prop = _PREFIX_PROP[resource_type]
    return [_with_prefix_lists(entry, rule[0], prop, rule[1]) for entry in entries]


def _with_prefix_lists(entry: Entry, rule_urn: str, prop: str, templates: Templates) -> Entry:
    """The entry with each prefix list of the stack it names replaced by the CIDRs the list holds."""
    if not entry.prefix_lists:
        return entry
    sources: list[Any] = []
    cidrs: set[int] = set()
    origins: dict[int, str] = {}
    for index, source in enumerate(entry.sources):
        held = templates.prefix_list(rule_urn, prop, source) if index in entry.prefix_lists else None
        if held is None:
            if index in entry.cidr_sources:
                cidrs.add(len(sources))
            sources.append(source)
            continue
        name, listed = held
        for cidr in listed:
            cidrs.add(len(sources))
            origins[len(sources)] = f" (prefix list '{name}')"
            sources.append(cidr)
    return Entry(
        entry.protocol,
        entry.ports,
        sources,
        frozenset(cidrs),
        entry.where,
        entry.path,
        entry.service,
        origins=origins,
    )


def _opened(entry: Entry, strict: bool) -> tuple[list[str], list[str]]:
    """(SSH/RDP labels the entry opens, its offending sources); empty when it does not violate."""
    if entry.service is None:
        opened = _ports_covered(entry)
        return (opened, _offending_sources(entry, strict)) if opened else ([], [])
    # The template's ports are read only when the sources offend: a template outside the stack
    # must not leave a rule from a private range unjudged.
    sources = _offending_sources(entry, strict)
    if not sources:
        return [], []
    opened = []
    for protocol, ports in entry.service():
        for label in _ports_covered(Entry(protocol, ports, [], frozenset(), entry.where, entry.path)):
            if label not in opened:
                opened.append(label)
    return sorted(opened, key=_LABEL_ORDER.index), sources


_LABEL_ORDER = ("SSH (TCP 22)", "RDP (3389)")


def _judge(resource: PolicyResource, strict: bool, templates: Templates, report: ReportViolation) -> None:
    props = plain(resource.props)
    label = _LABELS[resource.resource_type]
    for entry in entries_of(resource.resource_type, props, (resource.urn, templates)):
        opened, sources = _opened(entry, strict)
        if not opened or not sources:
            continue
        scope = "from any source" if strict else "from anywhere"
        report(
            f"{label} '{resource.name}' allows {' and '.join(opened)} ingress from {', '.join(sources)}"
            f"{entry.where}; allow no SSH or RDP {scope}: reach instances through a session manager",
            resource.urn,
        )


_GROUP_TYPES = (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP)
_WORLD = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass
class _Opening:
    """The CIDR sources that open one port in the rules of one security group."""

    networks: dict[int, list[Network]] = field(default_factory=lambda: {4: [], 6: []})
    shown: dict[int, list[str]] = field(default_factory=lambda: {4: [], 6: []})
    whole: set[int] = field(default_factory=set)  # IP versions some single source opens to anywhere
    urns: list[str] = field(default_factory=list)


def _group_key(resource: PolicyResource, props: Mapping[str, Any], group_ids: Mapping[str, str]) -> str:
    """The security group a rule belongs to: the group resource's URN when it is in the stack (joined
    by property dependency or by its id), else the group id it names, else the rule alone."""
    if resource.resource_type in _GROUP_TYPES:
        return resource.urn
    for dependency in (resource.property_dependencies or {}).get("securityGroupId", []) or []:
        if dependency.resource_type in _GROUP_TYPES or dependency.urn in group_ids.values():
            return dependency.urn
    value = get_ref(props, "securityGroupId")
    if isinstance(value, str) and value and not is_unknown(value):
        return group_ids.get(value, f"id:{value}")
    return resource.urn


def _openings(resources: list[PolicyResource], templates: Templates) -> dict[tuple[str, str], _Opening]:
    """Per (security group, SSH/RDP label): the CIDRs its accepting ingress rules open the port to."""
    group_ids: dict[str, str] = {}
    for resource in resources:
        if resource.resource_type in _GROUP_TYPES:
            group_id = get_ref(resource.props, "id")
            if isinstance(group_id, str) and group_id and not is_unknown(group_id):
                group_ids[group_id] = resource.urn
    openings: dict[tuple[str, str], _Opening] = {}
    for resource in resources:
        if resource.resource_type not in _LABELS:
            continue
        try:
            props = plain(resource.props)
            entries = entries_of(resource.resource_type, props, (resource.urn, templates))
            key = _group_key(resource, props, group_ids)
            for entry in entries:
                if entry.service is not None:
                    continue
                for label in _ports_covered(entry):
                    opening = openings.setdefault((key, label), _Opening())
                    _add_sources(opening, entry, resource)
        except (UnknownValueError, Malformed):
            continue  # the per-rule check says it could not be judged
    return openings


def _add_sources(opening: _Opening, entry: Entry, resource: PolicyResource) -> None:
    where = entry.where or ("" if resource.resource_type in _GROUP_TYPES else f" (rule '{resource.name}')")
    for index in sorted(entry.cidr_sources):
        source = entry.sources[index]
        if not isinstance(source, str) or is_unknown(source):
            continue
        try:
            network = ipaddress.ip_network(source.strip(), strict=False)
        except ValueError:
            continue
        if network.prefixlen == 0:
            opening.whole.add(network.version)
        opening.networks[network.version].append(network)
        opening.shown[network.version].append(f"{source.strip()}{entry.origins.get(index, '')}{where}")
        if resource.urn not in opening.urns:
            opening.urns.append(resource.urn)


def _judge_unions(args: StackValidationArgs, templates: Templates, report: ReportViolation) -> None:
    """Security groups whose rules for one port together cover 0.0.0.0/0 or ::/0."""
    by_urn = {resource.urn: resource for resource in args.resources}
    for (key, label), opening in _openings(list(args.resources), templates).items():
        for version, world in ((4, _WORLD[0]), (6, _WORLD[1])):
            networks = opening.networks[version]
            if version in opening.whole or len(networks) < 2:
                continue  # a single range to anywhere is the per-rule finding
            if list(ipaddress.collapse_addresses(networks)) != [world]:  # type: ignore[type-var]
                continue
            target = by_urn.get(key) or by_urn[opening.urns[0]]
            if target.resource_type in _GROUP_TYPES:
                subject = f"{_LABELS[target.resource_type]} '{target.name}'"
            elif key.startswith("id:"):
                subject = f"Security group {key[3:]}"
            else:
                subject = f"{_LABELS[target.resource_type]} '{target.name}'"
            report(
                f"{subject} allows {label} ingress from {', '.join(opening.shown[version])}, which "
                f"together cover {world}; allow no SSH or RDP from anywhere: reach instances through a "
                "session manager",
                target.urn,
            )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    strict = bool(RULE.settings(args)["strict"])
    templates = Templates(list(args.resources))
    for resource in args.resources:
        if resource.resource_type not in _LABELS:
            continue

        def check(resource: PolicyResource = resource) -> None:
            _judge(resource, strict, templates, report)

        judge(resource.urn, check)
    if not strict:  # with strict every source is a finding already
        _judge_unions(args, templates, report)


POLICY = GfStackPolicy(RULE, validate)
