"""What a GF-ACC-001 rule names in the stack: Tencent protocol and address templates (and their
groups), and AWS and Alibaba prefix lists, joined to the rules that name them.

The template and prefix list types are each cloud's facts (`TEMPLATE_KINDS`, `PREFIX_LISTS`,
`PREFIX_LIST_ENTRIES` in the cloud's module of this package)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pulumi_policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_of
from gpufleet.policies.access.ssh_rdp.entries import (
    _ALL,
    Ports,
    TemplateKinds,
    TemplateOutsideStack,
    _protocol,
    _range_text,
)
from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get_ref, is_unknown

PARTS = cloud_parts("gpufleet.policies.access.ssh_rdp")
# prefix list type -> the input listing its entries
_PREFIX_LISTS: dict[str, str] = part_merged(PARTS, "PREFIX_LISTS")
# prefix list type -> the resource type adding one entry to it
_PREFIX_LIST_ENTRIES: dict[str, str] = part_merged(PARTS, "PREFIX_LIST_ENTRIES")


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

    def _kinds(self, rule_urn: str) -> TemplateKinds:
        """The template kinds of the cloud of the rule (or template group) `rule_urn`."""
        kinds = getattr(part_of(PARTS, self.index.by_urn[rule_urn].resource_type), "TEMPLATE_KINDS", None)
        assert isinstance(kinds, TemplateKinds), rule_urn  # only rules of a cloud with templates name them
        return kinds

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
        kinds = self._kinds(rule_urn)
        candidates = self._named(rule_urn, prop, value, (kinds.protocol, kinds.protocol_group))
        if not candidates:
            if is_unknown(value):
                raise UnknownValueError(value, [path])
            raise TemplateOutsideStack(
                f"ports of service template {value}{where} are not in the stack; manage the "
                f"{kinds.protocol_resource} here or write the protocol and port on the rule",
                path,
            )
        readings = []
        for candidate in candidates:
            templates = [candidate]
            if candidate.resource_type == kinds.protocol_group:
                members = self._members(candidate, (kinds.protocol,))
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
            found = self.index.refs(
                replace(rule, dependency_urns={}), prop, tuple(_PREFIX_LISTS), value=value
            )
        if not found:
            found = self.index.refs(rule, prop, tuple(_PREFIX_LISTS), value="")
        if len(found) != 1:
            return None
        plist = found[0]
        entries = get_ref(plist.props, _PREFIX_LISTS[plist.resource_type])
        if is_unknown(entries):
            return plist.name, [entries]
        cidrs = [get_ref(item, "cidr") for item in as_list(entries) if isinstance(item, Mapping)]
        entry_type = _PREFIX_LIST_ENTRIES.get(plist.resource_type)
        if entry_type is not None:
            for extra in self.index.of_type(entry_type):
                if plist.urn in extra.dependency_urns.get("prefixListId", ()) or (
                    get_ref(extra.props, "prefixListId") in {plist.name, get_ref(plist.props, "id")}
                ):
                    cidrs.append(get_ref(extra.props, "cidr"))
        return plist.name, [c for c in cidrs if c is not None and c != ""]

    def addresses(self, rule_urn: str, prop: str, value: Any) -> list[Any] | None:
        """The addresses an address template or group lists, or None when it is not in the stack."""
        kinds = self._kinds(rule_urn)
        candidates = self._named(
            rule_urn, prop, value, (kinds.address, kinds.address_extra, kinds.address_group)
        )
        found: list[Any] = []
        for candidate in candidates:
            templates: list[ResourceView] | None = [candidate]
            if candidate.resource_type == kinds.address_group:
                templates = self._members(candidate, (kinds.address, kinds.address_extra))
            if not templates:
                return None
            for template in templates:
                found.extend(_template_addresses(template, kinds))
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


def _template_addresses(template: ResourceView, kinds: TemplateKinds) -> list[Any]:
    if template.resource_type == kinds.address_extra:
        value = get_ref(template.props, "addressesExtras")
        if is_unknown(value):
            return [value]
        return [get_ref(extra, "address") for extra in as_list(value)]
    return as_list(get_ref(template.props, "addresses"))
