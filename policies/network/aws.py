"""AWS facts of the network rules: type tokens, property names, messages and the checks that read them.

- GF-NET-001 (`vpn_strong_crypto`): `aws:ec2/vpnConnection:VpnConnection`, per tunnel (1 and 2):
  `tunnelNIkeVersions`, `tunnelNPhase{1,2}EncryptionAlgorithms`, `tunnelNPhase{1,2}IntegrityAlgorithms`,
  `tunnelNPhase{1,2}DhGroupNumbers`. An unset list means AWS offers all of its defaults, which include
  ikev1, AES128, SHA1 and DH group 2: that fails.
- GF-NET-002 (`range_overlap`): VPCs and their extra CIDR blocks; the on-prem side of VPN connections
  (AWS names the customer gateway's side "local" and its own side "remote") and routes, and routes to a
  virtual private gateway; the resources that join networks.
- GF-NET-003 (`gpu_subnet_internet_route`): GPU pools and their subnets, route tables, associations,
  the VPC's main and default route tables, and routes to an internet gateway.
- GF-NET-004 (`onprem_egress`): security groups' inline egress, security group rules and egress rules,
  which apply in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy.policy import PolicyResource

from gpufleet.policies.network._egress import Egress, entry, span
from gpufleet.policies.network._ipsec import weak_dh
from gpufleet.policies.network._links import is_default, refs
from gpufleet.policies.props import as_list, get, get_objects, get_ref, is_unknown

VPC = "aws:ec2/vpc:Vpc"
SUBNET = "aws:ec2/subnet:Subnet"
AWS_VPN = "aws:ec2/vpnConnection:VpnConnection"

# --- GF-NET-001: VPN crypto ---------------------------------------------------------------------------

VPN_TYPES = (AWS_VPN,)
AWS_ENCRYPTION = frozenset({"AES256", "AES256-GCM-16"})
AWS_INTEGRITY = frozenset({"SHA2-256", "SHA2-384", "SHA2-512"})
VPN_REMEDIATION = (
    "aws.ec2.VpnConnection, for tunnel1 and tunnel2: tunnelN_ike_versions=['ikev2'], "
    "tunnelN_phase{1,2}_encryption_algorithms=['AES256-GCM-16','AES256'], "
    "tunnelN_phase{1,2}_integrity_algorithms=['SHA2-256','SHA2-384','SHA2-512'], "
    "tunnelN_phase{1,2}_dh_group_numbers=[14,19,20,21]."
)
VPN_URL = "https://docs.aws.amazon.com/vpn/latest/s2svpn/VPNTunnels.html"


def _tunnel(props: Mapping[str, Any], tunnel: int) -> list[str]:
    prefix = f"tunnel{tunnel}"
    weak: list[str] = []
    versions = [str(v).lower() for v in as_list(get(props, f"{prefix}IkeVersions"))]
    if not versions:
        weak.append(f"{prefix}IkeVersions unset (AWS default includes ikev1)")
    elif set(versions) != {"ikev2"}:
        weak.append(f"{prefix}IkeVersions allows {', '.join(v for v in versions if v != 'ikev2')}")
    for phase in (1, 2):
        for what, allowed, default in (
            ("EncryptionAlgorithms", AWS_ENCRYPTION, "AES128"),
            ("IntegrityAlgorithms", AWS_INTEGRITY, "SHA1"),
        ):
            prop = f"{prefix}Phase{phase}{what}"
            values = [str(v) for v in as_list(get(props, prop))]
            if not values:
                weak.append(f"{prop} unset (AWS default includes {default})")
                continue
            bad = [v for v in values if v.upper() not in allowed]
            if bad:
                weak.append(f"{prop} allows {', '.join(bad)}")
        prop = f"{prefix}Phase{phase}DhGroupNumbers"
        groups = as_list(get(props, prop))
        if not groups:
            weak.append(f"{prop} unset (AWS default includes group 2)")
        elif bad_groups := weak_dh(groups):
            weak.append(f"{prop} allows group {', '.join(bad_groups)}")
    return weak


def vpn_findings(resource_type: str, props: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(tunnel, its weak settings) for each tunnel of a VPN connection."""
    return [(f"tunnel{n}", _tunnel(props, n)) for n in (1, 2)]


# --- GF-NET-002: network ranges -----------------------------------------------------------------------

AWS_VPC_CIDR = "aws:ec2/vpcIpv4CidrBlockAssociation:VpcIpv4CidrBlockAssociation"
AWS_VPN_ROUTE = "aws:ec2/vpnConnectionRoute:VpnConnectionRoute"
AWS_ROUTE = "aws:ec2/route:Route"
AWS_VGW = "aws:ec2/vpnGateway:VpnGateway"

# extra CIDR block resource -> the property holding its range
VPC_CIDRS = {AWS_VPC_CIDR: "cidrBlock"}
RANGE_TYPES = (VPC, AWS_VPC_CIDR, AWS_VPN, AWS_VPN_ROUTE, AWS_ROUTE)
# Resources that route one network into another.
NETWORK_LINK_PREFIXES = (
    "aws:ec2/vpnConnection",
    "aws:ec2/vpnGateway",
    "aws:ec2/customerGateway",
    "aws:ec2/vpcPeeringConnection",
    "aws:ec2transitgateway/",
    "aws:directconnect/",
)
RANGE_VPC_HINT = "aws.ec2.Vpc cidr_block"
RANGE_ONPREM_HINT = (
    "VpnConnectionRoute destination_cidr_block, aws.ec2.VpnConnection local_ipv4_network_cidr (the "
    "customer gateway's side)"
)
RANGE_URL = "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html"


def onprem_ranges(resource: PolicyResource) -> tuple[list[Any], str] | None:
    """(on-prem range values, their source) of a VPN connection or route, or of a route to the virtual
    private gateway; None for any other resource."""
    kind, props, name = resource.resource_type, resource.props, resource.name
    if kind == AWS_VPN_ROUTE:
        return [get(props, "destinationCidrBlock")], f"VPN route '{name}'"
    if kind == AWS_VPN:
        # AWS reverses the usual naming: `local*NetworkCidr` is the customer gateway's (on-prem) side,
        # `remote*NetworkCidr` the AWS side, which is the VPC's own range and not a second network.
        customer_side = [get(props, "localIpv4NetworkCidr"), get(props, "localIpv6NetworkCidr")]
        return customer_side, f"VPN connection '{name}'"
    if kind == AWS_ROUTE:
        gateway = get_ref(props, "gatewayId")
        deps = resource.property_dependencies.get("gatewayId", []) or []
        named = isinstance(gateway, str) and not is_unknown(gateway) and gateway.startswith("vgw-")
        if named or any(dep.resource_type == AWS_VGW for dep in deps):
            label = f"route '{name}' to a virtual private gateway"
            return [get(props, "destinationCidrBlock")], label
    return None


# --- GF-NET-003: GPU subnets' internet routes --------------------------------------------------------

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_ASG = "aws:autoscaling/group:Group"
AWS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
AWS_ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
AWS_IGW = "aws:ec2/internetGateway:InternetGateway"
AWS_DEFAULT_ROUTE_TABLE = "aws:ec2/defaultRouteTable:DefaultRouteTable"
AWS_MAIN_ASSOCIATION = "aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation"

# pool type -> its subnet property
POOLS = {AWS_INSTANCE: "subnetId", AWS_ASG: "vpcZoneIdentifiers", AWS_NODE_GROUP: "subnetIds"}
POOL_TEMPLATES = (AWS_LAUNCH_TEMPLATE, AWS_LAUNCH_CONFIGURATION)
# route table association -> its subnet property
TABLE_ASSOCIATIONS = {AWS_ASSOCIATION: "subnetId"}
MAIN_ASSOCIATIONS = (AWS_MAIN_ASSOCIATION,)
DEFAULT_ROUTE_TABLES = (AWS_DEFAULT_ROUTE_TABLE,)
# pools whose image type (`amiType`) alone can make them GPU pools
GPU_IMAGE_POOLS = (AWS_NODE_GROUP,)
INTERNET_ROUTE_REMEDIATION = (
    "associate their subnets with a route table whose 0.0.0.0/0 route targets a NAT gateway "
    "(nat_gateway_id), not an internet gateway (gateway_id igw-...)."
)
INTERNET_ROUTE_URL = "https://docs.aws.amazon.com/vpc/latest/userguide/VPC_Scenario2.html"


def pool_types(resource_type: str, props: Any) -> list[object]:
    """Instance types of a pool beyond its `instanceType`/`instanceTypes` (a group's overrides)."""
    if resource_type != AWS_ASG:
        return []
    overrides = as_list(get(props, "mixedInstancesPolicy.launchTemplate.overrides"))
    return [get(o, "instanceType") for o in overrides]


def _gateway_is_igw(gateway: object, dep_types: set[str]) -> bool:
    if isinstance(gateway, str) and not is_unknown(gateway):
        return gateway.startswith("igw-")
    return gateway is not None and AWS_IGW in dep_types


def internet_routes(r: PolicyResource) -> list[tuple[str, str]]:
    """(route table urn, description) of each default route to an internet gateway `r` adds."""
    t, p = r.resource_type, r.props
    found: list[tuple[str, str]] = []
    if t == AWS_ROUTE:
        dep_types = {d.resource_type for d in r.property_dependencies.get("gatewayId", []) or []}
        destination = get_ref(p, "destinationCidrBlock") or get_ref(p, "destinationIpv6CidrBlock")
        if is_default(destination) and _gateway_is_igw(get_ref(p, "gatewayId"), dep_types):
            for table in refs(r, "routeTableId"):
                found.append((table, f"route '{r.name}' ({destination} to an internet gateway)"))
    elif t in (AWS_ROUTE_TABLE, AWS_DEFAULT_ROUTE_TABLE):
        dep_types = {d.resource_type for d in r.property_dependencies.get("routes", []) or []}
        for route in as_list(get_ref(p, "routes")):
            destination = get_ref(route, "cidrBlock") or get_ref(route, "ipv6CidrBlock")
            if is_default(destination) and _gateway_is_igw(get_ref(route, "gatewayId"), dep_types):
                found.append((r.urn, f"an inline route ({destination} to an internet gateway)"))
    return found


# --- GF-NET-004: egress towards on-prem ------------------------------------------------------------

AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
AWS_DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
AWS_SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"

# rules whose entries apply in order -> their label in messages
EGRESS_ORDERED = {
    AWS_SECURITY_GROUP: "Security group",
    AWS_DEFAULT_SECURITY_GROUP: "Default security group",
    AWS_SECURITY_GROUP_RULE: "Security group rule",
    AWS_EGRESS_RULE: "Security group egress rule",
}
EGRESS_REMEDIATION = "AWS: set protocol, from_port and to_port on the egress entry or rule"
EGRESS_URL = "https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html"


def egress_entries(resource_type: str, props: Mapping[str, Any]) -> list[Egress]:
    """The egress entries of a security group or rule, in order."""
    if resource_type in (AWS_SECURITY_GROUP, AWS_DEFAULT_SECURITY_GROUP):
        found = []
        for index, item in enumerate(get_objects(props, "egress")):
            path = f"egress.{index}"
            spans = span(get_ref(item, "fromPort"), get_ref(item, "toPort"), path)
            for cidr in as_list(get_ref(item, "cidrBlocks")):
                found.append(
                    entry(
                        get_ref(item, "protocol"),
                        spans,
                        cidr,
                        accept=True,
                        where=f" (egress rule {index + 1})",
                        path=path,
                    )
                )
        return found
    if resource_type == AWS_SECURITY_GROUP_RULE:
        if str(get_ref(props, "type")).lower() != "egress":
            return []
        spans = span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
        return [
            entry(get_ref(props, "protocol"), spans, c, accept=True)
            for c in as_list(get_ref(props, "cidrBlocks"))
        ]
    spans = span(get_ref(props, "fromPort"), get_ref(props, "toPort"), "")
    cidr = get_ref(props, "cidrIpv4")
    return [entry(get_ref(props, "ipProtocol"), spans, cidr, accept=True)] if cidr else []
