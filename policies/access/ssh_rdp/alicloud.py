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
