"""GF-ACC-001 on Alibaba Cloud: ECS `SecurityGroupRule` read as entries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.access.ssh_rdp.entries import _ALL, Entry, _protocol, _range_text, _sources, _with
from gpufleet.policies.props import get, get_ref

ALI_SECURITY_GROUP_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
ALI_PREFIX_LIST = "alicloud:vpc/prefixList:PrefixList"


def _ali_entries(props: Mapping[str, Any]) -> list[Entry]:
    if str(get(props, "type")).lower() != "ingress":
        return []
    if str(get(props, "policy") or "accept").lower() == "drop":
        return []
    base = _sources(props, ("cidrIp", "ipv6CidrIp"), ("sourceSecurityGroupId", "prefixListId"))
    protocol = _protocol(get(props, "ipProtocol"))
    ports = None if protocol == _ALL else _range_text(get_ref(props, "portRange"), "portRange", "/")
    return [_with(base, protocol, ports, "")]


# --- what the rule and its templates read of Alibaba Cloud ------------------------------------------------

# ingress rule resources -> their label in messages
INGRESS_RULES = {ALI_SECURITY_GROUP_RULE: "ECS security group rule"}
# The input a rule's prefix list reference sits in (its property dependencies are recorded on it).
PREFIX_PROPS = {ALI_SECURITY_GROUP_RULE: "prefixListId"}
# prefix list -> the input listing its entries
PREFIX_LISTS = {ALI_PREFIX_LIST: "entrys"}
SESSION_TOOL = "Alibaba Cloud Assistant"
REMEDIATION = "Alibaba: drop the alicloud.ecs.SecurityGroupRule or set `policy: drop`"


def ingress_entries(resource_type: str, props: Mapping[str, Any], rule: object = None) -> list[Entry]:
    """The accepting ingress permissions of a security group rule (prefix lists as named)."""
    return _ali_entries(props)
