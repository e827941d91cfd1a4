"""Alibaba Cloud facts of the network rules: type tokens, property names, messages and the checks that
read them.

- GF-NET-001 (`vpn_strong_crypto`): `alicloud:vpn/connection:Connection` and
  `alicloud:vpn/gatewayVpnAttachment:GatewayVpnAttachment`: `ikeConfig` {ikeVersion, ikeEncAlg,
  ikeAuthAlg, ikePfs} and `ipsecConfig` {ipsecEncAlg, ipsecAuthAlg, ipsecPfs}, or in dual-tunnel mode
  each `tunnelOptionsSpecifications[].tunnelIkeConfig` / `tunnelIpsecConfig`. Unset fields take the API
  defaults (ikev1, aes, md5, group2), which fail.
- GF-NET-002 (`range_overlap`): VPCs (with `secondaryCidrBlocks`) and their IPv4 CIDR blocks; the
  on-prem side of VPN connections, attachments and routes, and routes to a VPN gateway; the resources
  that join networks (VPN, CEN, Express Connect, VPC peering).
- GF-NET-003 (`gpu_subnet_internet_route`): GPU pools and their vSwitches, route table attachments and
  route entries to an IPv4 or IPv6 gateway.
- GF-NET-004 (`onprem_egress`): security group rules, which apply by priority within their group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy.policy import PolicyResource

from gpufleet.policies.network._egress import PriorityRule, action, entry, text_spans
from gpufleet.policies.network._ipsec import check_dh, check_value
from gpufleet.policies.network._links import is_default, refs
from gpufleet.policies.props import as_int, as_list, get, get_ref

VPC = "alicloud:vpc/network:Network"
SUBNET = "alicloud:vpc/switch:Switch"
ALI_VPN = "alicloud:vpn/connection:Connection"
ALI_VPN_ATTACHMENT = "alicloud:vpn/gatewayVpnAttachment:GatewayVpnAttachment"

# --- GF-NET-001: VPN crypto ---------------------------------------------------------------------------

VPN_TYPES = (ALI_VPN, ALI_VPN_ATTACHMENT)
ALI_ENCRYPTION = frozenset({"aes256"})
ALI_INTEGRITY = frozenset({"sha2", "sha256", "sha384", "sha512"})
VPN_REMEDIATION = (
    "alicloud.vpn.Connection: "
    "ike_config(ike_version='ikev2', ike_enc_alg='aes256', ike_auth_alg='sha256', ike_pfs='group14'), "
    "ipsec_config(ipsec_enc_alg='aes256', ipsec_auth_alg='sha256', ipsec_pfs='group14') (and the same in "
    "each tunnel_options_specifications entry)."
)


def _phases(ike: Any, ipsec: Any) -> list[str]:
    weak: list[str] = []
    check_value(weak, ike, "ikeVersion", frozenset({"ikev2"}), "ikev1")
    check_value(weak, ike, "ikeEncAlg", ALI_ENCRYPTION, "aes")
    check_value(weak, ike, "ikeAuthAlg", ALI_INTEGRITY, "md5")
    check_dh(weak, ike, "ikePfs", "group2")
    check_value(weak, ipsec, "ipsecEncAlg", ALI_ENCRYPTION, "aes")
    check_value(weak, ipsec, "ipsecAuthAlg", ALI_INTEGRITY, "md5")
    check_dh(weak, ipsec, "ipsecPfs", "group2")
    return weak


def vpn_findings(resource_type: str, props: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(tunnel, its weak settings) for each tunnel of a dual-tunnel connection, else ("", the
    connection's weak settings)."""
    tunnels = as_list(get(props, "tunnelOptionsSpecifications"))
    if tunnels:
        return [
            (
                f"tunnel {index + 1}",
                _phases(get(tunnel, "tunnelIkeConfig"), get(tunnel, "tunnelIpsecConfig")),
            )
            for index, tunnel in enumerate(tunnels)
        ]
    return [("", _phases(get(props, "ikeConfig"), get(props, "ipsecConfig")))]


# --- GF-NET-002: network ranges -----------------------------------------------------------------------

ALI_VPC_CIDR = "alicloud:vpc/ipv4CidrBlock:Ipv4CidrBlock"
ALI_VPN_ROUTE = "alicloud:vpn/routeEntry:RouteEntry"
ALI_VPN_PBR_ROUTE = "alicloud:vpn/pbrRouteEntry:PbrRouteEntry"
ALI_ROUTE_ENTRY = "alicloud:vpc/routeEntry:RouteEntry"

# extra CIDR block resource -> the property holding its range
VPC_CIDRS = {ALI_VPC_CIDR: "secondaryCidrBlock"}
RANGE_TYPES = (
    VPC,
    ALI_VPC_CIDR,
    ALI_VPN,
    ALI_VPN_ATTACHMENT,
    ALI_VPN_ROUTE,
    ALI_VPN_PBR_ROUTE,
    ALI_ROUTE_ENTRY,
)
# Resources that route one network into another.
NETWORK_LINK_PREFIXES = (
    "alicloud:vpn/",
    "alicloud:cen/",
    "alicloud:expressconnect/",
    "alicloud:vpc/peerConnection",
)
RANGE_VPC_HINT = "alicloud.vpc.Network cidr_block"
RANGE_ONPREM_HINT = "alicloud.vpn.Connection remote_subnets"


def onprem_ranges(resource: PolicyResource) -> tuple[list[Any], str] | None:
    """(on-prem range values, their source) of a VPN connection, attachment or route, or of a route
    entry to the VPN gateway; None for any other resource."""
    kind, props, name = resource.resource_type, resource.props, resource.name
    if kind == ALI_VPN:
        return as_list(get(props, "remoteSubnets")), f"VPN connection '{name}'"
    if kind == ALI_VPN_ATTACHMENT:
        return [get(props, "remoteSubnet")], f"VPN attachment '{name}'"
    if kind in (ALI_VPN_ROUTE, ALI_VPN_PBR_ROUTE):
        return [get(props, "routeDest")], f"VPN route '{name}'"
    if kind == ALI_ROUTE_ENTRY and get(props, "nexthopType") == "VpnGateway":
        return [get(props, "destinationCidrblock")], f"route '{name}' to a VPN gateway"
    return None


# --- GF-NET-003: GPU subnets' internet routes --------------------------------------------------------

ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
ALI_ATTACHMENT = "alicloud:vpc/routeTableAttachment:RouteTableAttachment"

# pool type -> its subnet property
POOLS = {ALI_INSTANCE: "vswitchId", ALI_SCALING_GROUP: "vswitchIds", ALI_NODE_POOL: "vswitchIds"}
POOL_TEMPLATES = (
    "alicloud:ecs/launchTemplate:LaunchTemplate",
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
    ALI_SCALING_CONFIGURATION,
)
# configurations that name their scaling group (`scalingGroupId`)
GROUP_CONFIGS = (ALI_SCALING_CONFIGURATION,)
# route table association -> its subnet property
TABLE_ASSOCIATIONS = {ALI_ATTACHMENT: "vswitchId"}
INTERNET_ROUTE_REMEDIATION = "route the vSwitch's 0.0.0.0/0 to a NatGateway, not an Ipv4Gateway."


def internet_routes(r: PolicyResource) -> list[tuple[str, str]]:
    """(route table urn, description) of each default route to an IPv4/IPv6 gateway `r` adds."""
    if r.resource_type != ALI_ROUTE_ENTRY:
        return []
    hop = get_ref(r.props, "nexthopType")
    destination = get_ref(r.props, "destinationCidrblock")
    if is_default(destination) and hop in ("Ipv4Gateway", "IPv6Gateway"):
        return [
            (table, f"route entry '{r.name}' ({destination} to an {hop})")
            for table in refs(r, "routeTableId")
        ]
    return []


# --- GF-NET-004: egress towards on-prem ------------------------------------------------------------

ALI_SECURITY_GROUP_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"

# rules that apply by priority within their group -> their label in messages
EGRESS_PRIORITISED = {ALI_SECURITY_GROUP_RULE: "ECS security group rule"}
EGRESS_REMEDIATION = (
    "Alibaba: ip_protocol tcp/udp and a port_range, or a drop rule for the on-prem range at a higher priority"
)


def egress_rule(props: Mapping[str, Any]) -> PriorityRule | None:
    """The egress rule a security group rule is, None for an ingress rule or one without a CIDR."""
    if str(get_ref(props, "type")).lower() != "egress":
        return None
    cidr = get_ref(props, "cidrIp")
    if not cidr:
        return None
    accept = action(get_ref(props, "policy"), "policy", "accept")
    spans = text_spans(get_ref(props, "portRange"), "portRange", "/")
    priority = as_int(get_ref(props, "priority"))
    found = entry(get_ref(props, "ipProtocol"), spans, cidr, accept=accept)
    return PriorityRule(get_ref(props, "securityGroupId"), priority if priority is not None else 1, found)
