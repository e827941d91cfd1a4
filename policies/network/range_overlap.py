"""GF-NET-002: the on-prem and cloud network ranges of one hybrid fleet do not overlap.

Ranges collected from the stack, each tagged with the network it belongs to:

- cloud networks, one per VPC: AWS `aws:ec2/vpc:Vpc` (cidrBlock, ipv6CidrBlock) and
  `aws:ec2/vpcIpv4CidrBlockAssociation:VpcIpv4CidrBlockAssociation` (joined to its VPC through the
  `vpcId` property dependency); Alibaba `alicloud:vpc/network:Network` (cidrBlock, secondaryCidrBlocks)
  and `alicloud:vpc/ipv4CidrBlock:Ipv4CidrBlock`; Tencent `tencentcloud:Vpc/instance:Instance`.
- the on-prem network: AWS `aws:ec2/vpnConnectionRoute:VpnConnectionRoute.destinationCidrBlock` and
  `aws:ec2/vpnConnection:VpnConnection.localIpv4NetworkCidr` and `.localIpv6NetworkCidr` (AWS names
  the customer gateway's side "local" and its own side "remote"); Alibaba
  `alicloud:vpn/connection:Connection.remoteSubnets`, `alicloud:vpn/gatewayVpnAttachment:
  GatewayVpnAttachment.remoteSubnet`, `alicloud:vpn/routeEntry:RouteEntry.routeDest` and
  `alicloud:vpn/pbrRouteEntry:PbrRouteEntry.routeDest`; Tencent `tencentcloud:Vpn/connection:Connection
  .securityGroupPolicies[].remoteCidrBlocks` and `tencentcloud:Vpn/gatewayRoute:GatewayRoute
  .destinationCidrBlock`; dedicated lines: Tencent `tencentcloud:Dcx/instance:Instance
  .routeFilterPrefixes` and `tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute.cidrBlock`; routes in a
  VPC's tables whose next hop is the VPN or Direct Connect gateway (AWS `aws:ec2/route:Route` to a
  `vgw-` gateway or an `aws:ec2/vpnGateway:VpnGateway`, Alibaba `alicloud:vpc/routeEntry:RouteEntry`
  with `nexthopType: VpnGateway`, Tencent `tencentcloud:Route/tableEntry:TableEntry` with `nextType`
  VPN or DIRECTCONNECT); the pack config `onprem_cidrs`; and the `gpufleet.io/node-cidr` annotation
  (or label) of a Kubernetes Namespace or ConfigMap.
- Kubernetes cluster ranges, which Pulumi resources rarely carry: the `gpufleet.io/pod-cidr` and
  `gpufleet.io/service-cidr` annotations (or labels) of a Namespace or ConfigMap.
- the on-prem cluster's own address pools, as custom resources (`kubernetes:<group>/<version>:<Kind>`
  or a generic `apiextensions.k8s.io` CustomResource): Calico `IPPool` (`crd.projectcalico.org` or
  `projectcalico.org`) `spec.cidr`, unless `spec.disabled`; Cilium (`cilium.io`) `CiliumPodIPPool`
  `spec.ipv4.cidrs[]` and `spec.ipv6.cidrs[]`, and `CiliumLoadBalancerIPPool` `spec.blocks[].cidr`
  (older `spec.cidrs[].cidr`), unless `spec.disabled`. They count as on-prem ranges: pods and service
  addresses of the on-prem cluster that VPN routes reach.

Reported: a cloud range overlapping any range of another network, and a pod range overlapping a
service range. Two cloud networks conflict only when the stack is a hybrid fleet: it joins networks
(a VPN, peering, transit gateway, CEN/CCN or dedicated-line resource), has an on-prem or cluster
range, or spans more than one cloud. Separate VPCs of one cloud that nothing routes together may
reuse a range, as a copied per-region network often does.
Not reported: on-prem ranges against each other or against cluster ranges (VPN routes
commonly advertise routable pod ranges), the VPN's own cloud-side subnets (AWS
`remoteIpv4NetworkCidr`/`remoteIpv6NetworkCidr`, Alibaba `localSubnets`, Tencent `localCidrBlock`),
`0.0.0.0/0`-style "any" ranges, and ranges an IPAM pool allocates (not known before deployment). Each
overlapping pair is reported once; ranges are swept in address order, not compared pairwise.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource

from gpufleet.components.clouds import KUBERNETES, cloud_parts, part_merged, part_of, part_union, part_values
from gpufleet.policies.k8s.templates import api_of
from gpufleet.policies.props import as_list, get, is_unknown, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import chained, joined, sole

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Each cloud's range facts: `VPC`, `VPC_CIDRS`, `onprem_ranges`, `NETWORK_LINK_PREFIXES`, `RANGE_TYPES`.
PARTS = cloud_parts("gpufleet.policies.network")
VPCS = tuple(part_values(PARTS, "VPC").values())
VPC_CIDRS: dict[str, str] = part_merged(PARTS, "VPC_CIDRS")
K8S_NAMESPACE = "kubernetes:core/v1:Namespace"
K8S_CONFIGMAP = "kubernetes:core/v1:ConfigMap"

POD_CIDR_KEY = "gpufleet.io/pod-cidr"
SERVICE_CIDR_KEY = "gpufleet.io/service-cidr"
NODE_CIDR_KEY = "gpufleet.io/node-cidr"

ONPREM = "onprem"

RULE = Rule(
    id="GF-NET-002",
    name="network-ranges-no-overlap",
    description="On-prem and cloud network ranges of one hybrid fleet do not overlap.",
    clouds=(*part_values(PARTS, "VPC"), KUBERNETES),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Give every VPC ({joined(PARTS, 'RANGE_VPC_HINT', ', ')}) a range disjoint "
        "from the on-prem ranges reached over VPN "
        f"({joined(PARTS, 'RANGE_ONPREM_HINT', ', ')}), from the other VPCs of the "
        "fleet and from the Kubernetes pod and service ranges (Calico IPPool and Cilium pool CIDRs, or "
        "declare them with the gpufleet.io/pod-cidr and gpufleet.io/service-cidr annotations, or list "
        "on-prem ranges in the onprem_cidrs policy config)."
    ),
    url=sole(PARTS, "RANGE_URL"),
    config={"onprem_cidrs": {"type": "array", "items": {"type": "string"}, "default": []}},
)


@dataclass(frozen=True)
class Range:
    network: IpNetwork
    group: str  # "cloud:<urn>", ONPREM, "k8s-pod" or "k8s-service"
    source: str  # "VPC 'main'", "VPN connection 'vpn' remoteSubnets"
    urn: str | None


def _parse(value: Any) -> list[IpNetwork]:
    """CIDRs from a string ("10.0.0.0/16", "10.0.0.0/16,10.1.0.0/16"); unparsable text is skipped."""
    if value is None or is_unknown(value) or not isinstance(value, str):
        return []
    nets: list[IpNetwork] = []
    for part in value.split(","):
        try:
            net = ipaddress.ip_network(part.strip(), strict=False)
        except ValueError:
            continue
        if net.prefixlen > 0:
            nets.append(net)
    return nets


def _ranges(values: Iterable[Any], group: str, source: str, urn: str | None) -> list[Range]:
    return [Range(net, group, source, urn) for value in values for net in _parse(value)]


def _vpc_group(resource: PolicyResource, vpc_urns: set[str]) -> str:
    for dep in resource.property_dependencies.get("vpcId", []) or []:
        if dep.urn in vpc_urns:
            return f"cloud:{dep.urn}"
    return f"cloud:{resource.urn}"


def _metadata_values(props: Mapping[str, Any], key: str) -> list[Any]:
    values = []
    for section in ("annotations", "labels"):
        mapping = get(props, f"metadata.{section}")
        if isinstance(mapping, Mapping) and key in mapping:
            values.append(mapping[key])
    return values


def _collect(resource: PolicyResource, vpc_urns: set[str]) -> list[Range]:
    kind = resource.resource_type
    props = resource.props
    urn, name = resource.urn, resource.name
    if kind in VPCS:
        label = f"VPC '{name}'"
        values = [get(props, "cidrBlock"), get(props, "ipv6CidrBlock")]
        values += as_list(get(props, "secondaryCidrBlocks"))
        return _ranges(values, f"cloud:{urn}", label, urn)
    if kind in VPC_CIDRS:
        value = get(props, VPC_CIDRS[kind])
        return _ranges([value], _vpc_group(resource, vpc_urns), f"VPC CIDR '{name}'", urn)
    onprem = _onprem_ranges(resource)
    if onprem is not None:
        return onprem
    pool = _cluster_pool(resource)
    if pool is not None:
        return pool
    if kind in (K8S_NAMESPACE, K8S_CONFIGMAP):
        label = "Namespace" if kind == K8S_NAMESPACE else "ConfigMap"
        found: list[Range] = []
        for key, group in (
            (POD_CIDR_KEY, "k8s-pod"),
            (SERVICE_CIDR_KEY, "k8s-service"),
            (NODE_CIDR_KEY, ONPREM),
        ):
            found += _ranges(_metadata_values(props, key), group, f"{label} '{name}' {key}", urn)
        return found
    return []


def _onprem_ranges(resource: PolicyResource) -> list[Range] | None:
    """The on-prem side of a VPN connection, attachment or route, of a dedicated tunnel or Direct
    Connect route, or the destination of a route to the VPN or Direct Connect gateway (the cloud's
    `onprem_ranges`). None for any other resource."""
    read = getattr(part_of(PARTS, resource.resource_type), "onprem_ranges", None)
    found: tuple[list[Any], str] | None = read(resource) if read is not None else None
    if found is None:
        return None
    values, source = found
    return _ranges(values, ONPREM, source, resource.urn)


CALICO_GROUPS = ("crd.projectcalico.org", "projectcalico.org")
CILIUM_GROUP = "cilium.io"


def _cluster_pool(resource: PolicyResource) -> list[Range] | None:
    """The ranges of a Calico or Cilium address pool (on-prem), or None for any other resource."""
    api = api_of(resource.resource_type, resource.props)
    if api is None:
        return None
    group, kind = api
    props, name, urn = resource.props, resource.name, resource.urn
    if group in CALICO_GROUPS and kind == "IPPool":
        if truthy(get(props, "spec.disabled", False)):
            return []
        return _ranges([get(props, "spec.cidr")], ONPREM, f"Calico IPPool '{name}' spec.cidr", urn)
    if group == CILIUM_GROUP and kind == "CiliumPodIPPool":
        cidrs = [*as_list(get(props, "spec.ipv4.cidrs")), *as_list(get(props, "spec.ipv6.cidrs"))]
        return _ranges(cidrs, ONPREM, f"CiliumPodIPPool '{name}'", urn)
    if group == CILIUM_GROUP and kind == "CiliumLoadBalancerIPPool":
        if truthy(get(props, "spec.disabled", False)):
            return []
        blocks = [*as_list(get(props, "spec.blocks")), *as_list(get(props, "spec.cidrs"))]
        cidrs = [get(block, "cidr") for block in blocks]
        return _ranges(cidrs, ONPREM, f"CiliumLoadBalancerIPPool '{name}'", urn)
    return None


# Resources that route one network into another: with any of them (or an on-prem or cluster range) the
# stack is a hybrid fleet and its VPCs must not reuse each other's ranges either.
LINK_TOKEN_PREFIXES = chained(PARTS, "NETWORK_LINK_PREFIXES")


def collect_ranges(resource: PolicyResource, vpc_urns: set[str]) -> list[Range]:
    """The ranges one resource holds, each tagged with its network (GF-NET-004 reads the on-prem ones)."""
    return _collect(resource, vpc_urns)


def joins_networks(resources: Iterable[PolicyResource]) -> bool:
    return any(r.resource_type.startswith(LINK_TOKEN_PREFIXES) for r in resources)


def _conflicts(a: Range, b: Range, *, joined: bool = True) -> bool:
    if a.group == b.group:
        return False
    a_cloud, b_cloud = a.group.startswith("cloud:"), b.group.startswith("cloud:")
    if a_cloud and b_cloud:
        return joined
    if a_cloud or b_cloud:
        return True
    return {a.group, b.group} == {"k8s-pod", "k8s-service"}


def overlapping_pairs(ranges: list[Range], *, joined: bool = True) -> list[tuple[Range, Range]]:
    """Pairs of conflicting overlapping ranges, each once, found by a sweep in address order. With
    `joined` false, two cloud networks never conflict (nothing routes between them)."""
    pairs: list[tuple[Range, Range]] = []
    for version in (4, 6):
        ordered = sorted(
            (r for r in ranges if r.network.version == version),
            key=lambda r: (int(r.network.network_address), -r.network.prefixlen),
        )
        active: list[Range] = []
        for current in ordered:
            start = int(current.network.network_address)
            active = [r for r in active if int(r.network.broadcast_address) >= start]
            pairs.extend(
                (earlier, current) for earlier in active if _conflicts(earlier, current, joined=joined)
            )
            active.append(current)
    return pairs


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    vpc_urns = {r.urn for r in args.resources if r.resource_type in VPCS}
    ranges: list[Range] = []
    for resource in args.resources:

        def collect(resource: PolicyResource = resource) -> None:
            ranges.extend(_collect(resource, vpc_urns))

        judge(resource.urn, collect)
    configured = RULE.settings(args)["onprem_cidrs"] or []
    ranges += _ranges(as_list(configured), ONPREM, "policy config onprem_cidrs", None)
    clouds = {r.resource_type.split(":", 1)[0] for r in args.resources if r.urn in vpc_urns}
    hybrid = (
        joins_networks(args.resources)
        or len(clouds) > 1
        or any(not r.group.startswith("cloud:") for r in ranges)
    )
    for a, b in overlapping_pairs(ranges, joined=hybrid):
        # Name the cloud range first: that is the one the stack can change.
        swap = b.group.startswith("cloud:") and not a.group.startswith("cloud:")
        first, second = (b, a) if swap else (a, b)
        report(
            f"{first.source} range {first.network} overlaps {second.source} range {second.network}; "
            "give each network of the fleet a disjoint range",
            first.urn or second.urn,
        )


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(part_union(PARTS, "RANGE_TYPES"), prefixes=("kubernetes:",)),
)
