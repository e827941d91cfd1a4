"""Tencent Cloud facts of the network rules: type tokens, property names, messages and the checks that
read them.

- GF-NET-001 (`vpn_strong_crypto`): `tencentcloud:Vpn/connection:Connection`: `ikeVersion`,
  `ikeProtoEncryAlgorithm`, `ikeProtoAuthenAlgorithm`, `ikeDhGroupName`, `ipsecEncryptAlgorithm`,
  `ipsecIntegrityAlgorithm`, `ipsecPfsDhGroup`. Unset fields take the API defaults (IKEV1, MD5, GROUP1,
  3DES-CBC, no PFS), which fail.
- GF-NET-002 (`range_overlap`): VPCs; the on-prem side of VPN connections and gateway routes, dedicated
  tunnels and Direct Connect gateway routes, and route entries to a VPN or Direct Connect gateway; the
  resources that join networks (VPN, CCN, Direct Connect, VPC peering).
- GF-NET-003 (`gpu_subnet_internet_route`): GPU pools and their subnets (which may name their route
  table), route table associations and route entries to an EIP.
- GF-NET-004 (`onprem_egress`): security group rule sets and lite rule sets, whose entries apply in
  order (`ACTION#DEST#PORT#PROTOCOL` for lite rules), and single security group rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.network._egress import Egress, action, entry, text_spans
from gpufleet.policies.network._ipsec import check_dh, check_value
from gpufleet.policies.network._links import is_default, refs
from gpufleet.policies.props import as_list, get, get_objects, get_ref, is_unknown

VPC = "tencentcloud:Vpc/instance:Instance"
SUBNET = "tencentcloud:Subnet/instance:Instance"
TC_VPN = "tencentcloud:Vpn/connection:Connection"

# --- GF-NET-001: VPN crypto ---------------------------------------------------------------------------

VPN_TYPES = (TC_VPN,)
TC_ENCRYPTION = frozenset({"AES-CBC-256", "AES256GCM128"})
TC_INTEGRITY = frozenset({"SHA-256", "SHA-384", "SHA-512"})
VPN_REMEDIATION = (
    "tencentcloud.vpn.Connection: "
    "ike_version='IKEV2', ike_proto_encry_algorithm='AES-CBC-256', ike_proto_authen_algorithm='SHA-256', "
    "ike_dh_group_name='GROUP14', ipsec_encrypt_algorithm='AES-CBC-256', "
    "ipsec_integrity_algorithm='SHA-256', ipsec_pfs_dh_group='DH-GROUP14'."
)


def vpn_findings(resource_type: str, props: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """("", the connection's weak settings)."""
    weak: list[str] = []
    check_value(weak, props, "ikeVersion", frozenset({"IKEV2"}), "IKEV1", upper=True)
    check_value(weak, props, "ikeProtoEncryAlgorithm", TC_ENCRYPTION, "3DES-CBC", upper=True)
    check_value(weak, props, "ikeProtoAuthenAlgorithm", TC_INTEGRITY, "MD5", upper=True)
    check_dh(weak, props, "ikeDhGroupName", "GROUP1")
    check_value(weak, props, "ipsecEncryptAlgorithm", TC_ENCRYPTION, "3DES-CBC", upper=True)
    check_value(weak, props, "ipsecIntegrityAlgorithm", TC_INTEGRITY, "MD5", upper=True)
    check_dh(weak, props, "ipsecPfsDhGroup", "NULL, no PFS")
    return [("", weak)]


# --- GF-NET-002: network ranges -----------------------------------------------------------------------

TC_VPN_ROUTE = "tencentcloud:Vpn/gatewayRoute:GatewayRoute"
TC_DEDICATED_TUNNEL = "tencentcloud:Dcx/instance:Instance"
TC_DCG_CCN_ROUTE = "tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute"
TC_ROUTE_ENTRY = "tencentcloud:Route/tableEntry:TableEntry"

RANGE_TYPES = (VPC, TC_VPN, TC_VPN_ROUTE, TC_DEDICATED_TUNNEL, TC_DCG_CCN_ROUTE, TC_ROUTE_ENTRY)
# Resources that route one network into another.
NETWORK_LINK_PREFIXES = (
    "tencentcloud:Vpn/",
    "tencentcloud:Ccn/",
    "tencentcloud:Dc/",
    "tencentcloud:Dcg/",
    "tencentcloud:Vpc/peerConnect",
)
RANGE_VPC_HINT = "tencentcloud.vpc.Instance cidr_block"
RANGE_ONPREM_HINT = "tencentcloud.vpn.Connection security_group_policies remote_cidr_blocks"


def onprem_ranges(resource: PolicyResource) -> tuple[list[Any], str] | None:
    """(on-prem range values, their source) of a VPN connection or gateway route, a dedicated tunnel,
    a Direct Connect gateway route, or a route entry to a VPN or Direct Connect gateway; None for any
    other resource."""
    kind, props, name = resource.resource_type, resource.props, resource.name
    if kind == TC_VPN:
        remote = [
            cidr
            for policy in as_list(get(props, "securityGroupPolicies"))
            for cidr in as_list(get(policy, "remoteCidrBlocks"))
        ]
        return remote, f"VPN connection '{name}'"
    if kind == TC_VPN_ROUTE:
        return [get(props, "destinationCidrBlock")], f"VPN route '{name}'"
    if kind == TC_DEDICATED_TUNNEL:
        return as_list(get(props, "routeFilterPrefixes")), f"dedicated tunnel '{name}'"
    if kind == TC_DCG_CCN_ROUTE:
        return [get(props, "cidrBlock")], f"Direct Connect gateway route '{name}'"
    if kind == TC_ROUTE_ENTRY and get(props, "nextType") in ("VPN", "DIRECTCONNECT"):
        label = f"route '{name}' to a VPN or Direct Connect gateway"
        return [get(props, "destinationCidrBlock")], label
    return None


# --- GF-NET-003: GPU subnets' internet routes --------------------------------------------------------

TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"
TC_ASSOCIATION = "tencentcloud:Route/tableAssociation:TableAssociation"

# pool type -> its subnet property
POOLS = {TC_INSTANCE: "subnetId", TC_SCALING_GROUP: "subnetIds", TC_NODE_POOL: "subnetIds"}
POOL_TEMPLATES = (TC_SCALING_CONFIG,)
# route table association -> its subnet property
TABLE_ASSOCIATIONS = {TC_ASSOCIATION: "subnetId"}
# subnets that name their route table (`routeTableId`)
TABLED_SUBNETS = (SUBNET,)
INTERNET_ROUTE_REMEDIATION = "route the subnet's 0.0.0.0/0 to a NAT gateway (next_type NAT), not EIP."


def pool_types(resource_type: str, props: Any) -> list[object]:
    """Instance types of a pool beyond its `instanceType`/`instanceTypes` (a node pool's)."""
    return [get(props, "autoScalingConfig.instanceType")] if resource_type == TC_NODE_POOL else []


def internet_routes(r: PolicyResource) -> list[tuple[str, str]]:
    """(route table urn, description) of each default route to an EIP `r` adds."""
    if r.resource_type != TC_ROUTE_ENTRY:
        return []
    p = r.props
    destination = get_ref(p, "destinationCidrBlock")
    if is_default(destination) and get_ref(p, "nextType") == "EIP" and not get_ref(p, "disabled"):
        return [
            (table, f"route entry '{r.name}' ({destination} to EIP)") for table in refs(r, "routeTableId")
        ]
    return []


# --- GF-NET-004: egress towards on-prem ------------------------------------------------------------

TC_GROUP_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_GROUP_LITE_RULE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"
TC_GROUP_RULE = "tencentcloud:Security/groupRule:GroupRule"

# rules whose entries apply in order -> their label in messages
EGRESS_ORDERED = {
    TC_GROUP_RULE_SET: "Security group rule set",
    TC_GROUP_LITE_RULE: "Security group lite rule",
    TC_GROUP_RULE: "Security group rule",
}
EGRESS_REMEDIATION = (
    "Tencent: protocol TCP/UDP and a port on the rule-set entry, or an earlier DROP entry for the "
    "on-prem range"
)


def egress_entries(resource_type: str, props: Mapping[str, Any]) -> list[Egress]:
    """The egress entries of a security group rule, rule set or lite rule set, in order."""
    if resource_type == TC_GROUP_RULE:
        if str(get_ref(props, "type")).lower() != "egress":
            return []
        spans = text_spans(get_ref(props, "portRange"), "portRange", "-")
        accept = action(get_ref(props, "policy"), "policy", "ACCEPT")
        cidr = get_ref(props, "cidrIp")
        return [entry(get_ref(props, "ipProtocol"), spans, cidr, accept=accept)] if cidr else []
    found: list[Egress] = []
    lite = resource_type == TC_GROUP_LITE_RULE
    items = as_list(get_ref(props, "egresses")) if lite else get_objects(props, "egresses")
    for index, item in enumerate(items):
        path, where = f"egresses.{index}", f" (egress rule {index + 1})"
        if lite:
            if is_unknown(item):
                raise UnknownValueError(item, [path])
            parts = str(item).split("#")
            if len(parts) != 4:
                continue
            verdict, cidr, port, protocol = parts
            accept = action(verdict, path, "ACCEPT")
            found.append(
                entry(protocol, text_spans(port, path, "-"), cidr, accept=accept, where=where, path=path)
            )
            continue
        cidr = get_ref(item, "cidrBlock")
        if not cidr:
            continue
        accept = action(get_ref(item, "action"), f"{path}.action", "ACCEPT")
        spans = text_spans(get_ref(item, "port"), f"{path}.port", "-")
        found.append(entry(get_ref(item, "protocol"), spans, cidr, accept=accept, where=where, path=path))
    return found
