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


# --- what the rule and its templates read of AWS ----------------------------------------------------------

# ingress rule resources -> their label in messages
INGRESS_RULES = {
    AWS_SECURITY_GROUP: "Security group",
    AWS_DEFAULT_SECURITY_GROUP: "Default security group",
    AWS_SECURITY_GROUP_RULE: "Security group rule",
    AWS_INGRESS_RULE: "Security group ingress rule",
}
# the security groups themselves (their rules join them by `securityGroupId`)
GROUPS = (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP)
# The input a rule's prefix list reference sits in (its property dependencies are recorded on it).
PREFIX_PROPS = {
    AWS_SECURITY_GROUP: "ingress",
    AWS_DEFAULT_SECURITY_GROUP: "ingress",
    AWS_SECURITY_GROUP_RULE: "prefixListIds",
    AWS_INGRESS_RULE: "prefixListId",
}
# prefix list -> the input listing its entries
PREFIX_LISTS = {AWS_PREFIX_LIST: "entries"}
# prefix list -> the resource that adds one entry to it
PREFIX_LIST_ENTRIES = {AWS_PREFIX_LIST: AWS_PREFIX_LIST_ENTRY}
SESSION_TOOL = "AWS Systems Manager Session Manager"
REMEDIATION = (
    "AWS: drop the `ingress` entry of aws.ec2.SecurityGroup or the aws.ec2.SecurityGroupRule / "
    "aws.vpc.SecurityGroupIngressRule resource"
)
URL = "https://docs.aws.amazon.com/securityhub/latest/userguide/ec2-controls.html#ec2-13"
CHECKOV = ("CKV_AWS_24", "CKV_AWS_25")


def ingress_entries(resource_type: str, props: Mapping[str, Any], rule: object = None) -> list[Entry]:
    """The accepting ingress permissions of a security group or rule (prefix lists as named)."""
    return _aws_entries(resource_type, props)
