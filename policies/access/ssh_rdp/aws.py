"""GF-ACC-001 on AWS: security groups' inline `ingress`, `SecurityGroupRule` and
`SecurityGroupIngressRule` read as entries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.access.ssh_rdp.entries import _ALL, Entry, _protocol, _sources, _span, _with
from gpufleet.policies.props import get, get_objects, get_ref

AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AWS_DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
AWS_SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
AWS_PREFIX_LIST = "aws:ec2/managedPrefixList:ManagedPrefixList"
AWS_PREFIX_LIST_ENTRY = "aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry"


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
