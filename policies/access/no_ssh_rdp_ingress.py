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

# The entries are read per cloud in gpufleet.policies.access.ssh_rdp (aws, alicloud, tencentcloud, on
# the shared entries module); templates and prefix lists are joined through its templates module.

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    Severity,
    StackValidationArgs,
)
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union
from gpufleet.policies.access.ssh_rdp.entries import Entry, _offending_sources, _ports_covered
from gpufleet.policies.access.ssh_rdp.templates import Templates
from gpufleet.policies.props import Malformed, get_ref, is_unknown, plain
from gpufleet.policies.rule import GfStackPolicy, Rule, judge
from gpufleet.policies.rule_facts import chained, clouds_with, joined, sole

# Each cloud's ingress facts (`gpufleet.policies.access.ssh_rdp.<cloud>`): `INGRESS_RULES` (labels),
# `ingress_entries`, and where the cloud has them `GROUPS` and `PREFIX_PROPS`.
PARTS = cloud_parts("gpufleet.policies.access.ssh_rdp")
_LABELS: dict[str, str] = part_merged(PARTS, "INGRESS_RULES")
# The input a rule's prefix list reference sits in (its property dependencies are recorded on it).
_PREFIX_PROP: dict[str, str] = part_merged(PARTS, "PREFIX_PROPS")

RULE = Rule(
    id="GF-ACC-001",
    name="no-ssh-rdp-ingress",
    description=(
        "No security-group rule allows SSH (TCP 22) or RDP (3389) ingress; by default from anywhere, "
        "with `strict` from any source."
    ),
    clouds=clouds_with(PARTS, "INGRESS_RULES"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Remove ingress rules that open TCP 22 or 3389 (or all ports/protocols) to 0.0.0.0/0 or ::/0 and "
        "reach instances through a session manager instead "
        f"({joined(PARTS, 'SESSION_TOOL', ', ')}). "
        f"{joined(PARTS, 'REMEDIATION', '; ')}."
    ),
    url=sole(PARTS, "URL"),
    config={"strict": {"type": "boolean", "default": False}},
    checkov=chained(PARTS, "CHECKOV"),
)


def entries_of(
    resource_type: str, props: Mapping[str, Any], rule: tuple[str, Templates] | None = None
) -> list[Entry]:
    """The accepting ingress permissions a resource declares (empty for egress/drop rules);
    `rule` (its URN and the stack's templates) lets Tencent rules read the templates they name."""
    part = part_of(PARTS, resource_type)
    assert part is not None, resource_type
    entries: list[Entry] = part.ingress_entries(resource_type, props, rule)
    if rule is None or resource_type not in _PREFIX_PROP:
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


_Read = dict[int, tuple[Mapping[str, Any], list[Entry]]]
"""What `_judge` read of each rule resource (by the resource's id, for the one validation that holds
them all): its plain properties and entries, which `_openings` then takes instead of reading them again."""


def _judge(
    resource: PolicyResource, strict: bool, templates: Templates, report: ReportViolation, read: _Read
) -> None:
    props = plain(resource.props)
    label = _LABELS[resource.resource_type]
    entries = entries_of(resource.resource_type, props, (resource.urn, templates))
    read[id(resource)] = (props, entries)
    for entry in entries:
        opened, sources = _opened(entry, strict)
        if not opened or not sources:
            continue
        scope = "from any source" if strict else "from anywhere"
        report(
            f"{label} '{resource.name}' allows {' and '.join(opened)} ingress from {', '.join(sources)}"
            f"{entry.where}; allow no SSH or RDP {scope}: reach instances through a session manager",
            resource.urn,
        )


_GROUP_TYPES = part_union(PARTS, "GROUPS")
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


def _openings(
    resources: list[PolicyResource], templates: Templates, read: _Read | None = None
) -> dict[tuple[str, str], _Opening]:
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
            known = read.get(id(resource)) if read is not None else None
            if known is not None:
                props, entries = known
            else:
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


def _judge_unions(
    args: StackValidationArgs, templates: Templates, report: ReportViolation, read: _Read | None = None
) -> None:
    """Security groups whose rules for one port together cover 0.0.0.0/0 or ::/0."""
    by_urn = {resource.urn: resource for resource in args.resources}
    for (key, label), opening in _openings(list(args.resources), templates, read).items():
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
    read: _Read = {}  # each rule resource's entries, read once for both judgements
    for resource in args.resources:
        if resource.resource_type not in _LABELS:
            continue

        def check(resource: PolicyResource = resource) -> None:
            _judge(resource, strict, templates, report, read)

        judge(resource.urn, check)
    if not strict:  # with strict every source is a finding already
        _judge_unions(args, templates, report, read)


POLICY = GfStackPolicy(RULE, validate)
