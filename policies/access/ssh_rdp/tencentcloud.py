"""GF-ACC-001 on Tencent Cloud: `GroupRuleSet` and `GroupLiteRule` ingresses and `GroupRule` read as
entries, with the service and address templates they name read through `templates.Templates`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access.ssh_rdp.entries import (
    _ALL,
    Entry,
    Ports,
    TemplateKinds,
    TemplateOutsideStack,
    _merge,
    _protocol,
    _range_text,
    _sources,
    _with,
)
from gpufleet.policies.props import Malformed, get, get_list, get_objects, get_ref, is_unknown, json_kind

if TYPE_CHECKING:
    from gpufleet.policies.access.ssh_rdp.templates import Templates

TC_GROUP_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_GROUP_RULE = "tencentcloud:Security/groupRule:GroupRule"
TC_GROUP_LITE_RULE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"
TC_PROTOCOL_TEMPLATE = "tencentcloud:Protocol/template:Template"
TC_PROTOCOL_TEMPLATE_GROUP = "tencentcloud:Protocol/templateGroup:TemplateGroup"
TC_ADDRESS_TEMPLATE = "tencentcloud:Address/template:Template"
TC_ADDRESS_EXTRA_TEMPLATE = "tencentcloud:Address/extraTemplate:ExtraTemplate"
TC_ADDRESS_TEMPLATE_GROUP = "tencentcloud:Address/templateGroup:TemplateGroup"


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


# --- what the rule and its templates read of Tencent Cloud ------------------------------------------------

# ingress rule resources -> their label in messages
INGRESS_RULES = {
    TC_GROUP_RULE_SET: "Security group rule set",
    TC_GROUP_RULE: "Security group rule",
    TC_GROUP_LITE_RULE: "Security group lite rule",
}
SESSION_TOOL = "Tencent TAT"
REMEDIATION = (
    "Tencent: drop the ingress entry of tencentcloud.security.GroupRuleSet/GroupLiteRule or the GroupRule, "
    "or set its action to DROP"
)
# The service (protocol) and address templates a rule may name, and what to manage to read them.
TEMPLATE_KINDS = TemplateKinds(
    protocol=TC_PROTOCOL_TEMPLATE,
    protocol_group=TC_PROTOCOL_TEMPLATE_GROUP,
    address=TC_ADDRESS_TEMPLATE,
    address_extra=TC_ADDRESS_EXTRA_TEMPLATE,
    address_group=TC_ADDRESS_TEMPLATE_GROUP,
    protocol_resource="tencentcloud.protocol.Template",
)


def ingress_entries(
    resource_type: str, props: Mapping[str, Any], rule: tuple[str, Templates] | None = None
) -> list[Entry]:
    """The accepting ingress permissions of a rule, rule set or lite rule set (templates of the stack
    read through `rule`)."""
    return _tc_entries(resource_type, props, rule)
