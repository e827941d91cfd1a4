"""GF-NET-003: subnets that hold GPU pools have no direct internet route.

A GPU pool is an instance or group whose instance type is a GPU type (see `gpu_types`):

- AWS: `aws:ec2/instance:Instance` (instanceType, or its launch template's) -> subnetId;
  `aws:autoscaling/group:Group` (its launch template / launch configuration, or
  mixedInstancesPolicy overrides) -> vpcZoneIdentifiers; `aws:eks/nodeGroup:NodeGroup` (instanceTypes,
  GPU amiType or launch template) -> subnetIds.
- Alibaba Cloud: `alicloud:ecs/instance:Instance` -> vswitchId; `alicloud:ess/scalingGroup:ScalingGroup`
  (its scaling configurations or launch template) -> vswitchIds; `alicloud:cs/nodePool:NodePool`
  -> vswitchIds.
- Tencent Cloud: `tencentcloud:Instance/instance:Instance` -> subnetId; `tencentcloud:As/scalingGroup:
  ScalingGroup` (its scaling config) -> subnetIds; `tencentcloud:Kubernetes/nodePool:NodePool`
  (autoScalingConfig.instanceType) -> subnetIds.

A direct internet route is a `0.0.0.0/0` or `::/0` route in a route table associated with the subnet
whose next hop is an internet gateway: AWS `aws:ec2/route:Route` or inline `aws:ec2/routeTable:RouteTable`
routes with an `igw-` gateway (or a reference to an `aws:ec2/internetGateway:InternetGateway`),
associated by `aws:ec2/routeTableAssociation:RouteTableAssociation`; Alibaba `alicloud:vpc/routeEntry:
RouteEntry` to an `Ipv4Gateway`/`IPv6Gateway`, associated by `alicloud:vpc/routeTableAttachment`;
Tencent `tencentcloud:Route/tableEntry:TableEntry` with next type `EIP`, associated by the subnet's
`routeTableId` or `tencentcloud:Route/tableAssociation`. NAT gateway routes are fine.

Resources are joined by property dependencies (how references arrive from the engine). A subnet given
as a literal id that is not in the stack cannot be judged: that is reported, as this rule is advisory.
A subnet without an explicit association uses its VPC's main (system, default) route table: routes
added to it through the VPC's own output (AWS `mainRouteTableId`/`defaultRouteTableId`, Alibaba
`routeTableId`, Tencent `defaultRouteTableId`, joined by the property dependency on the VPC), the
inline routes of an `aws:ec2/defaultRouteTable:DefaultRouteTable`, and the table an
`aws:ec2/mainRouteTableAssociation:MainRouteTableAssociation` makes main are read for it. Without any
of those the main table only has the local route, unless changed outside the stack. Kubernetes has
no subnet resources: not applicable there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union, part_values, profile
from gpufleet.policies.gpu import is_gpu_ami_type, is_gpu_type
from gpufleet.policies.network._links import refs
from gpufleet.policies.props import as_list, get, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import sole

# Each cloud's facts: `SUBNET`, `VPC`, `POOLS`, `POOL_TEMPLATES`, `TABLE_ASSOCIATIONS`, `internet_routes`,
# and where the cloud has them `TABLED_SUBNETS`, `GROUP_CONFIGS`, `MAIN_ASSOCIATIONS`,
# `DEFAULT_ROUTE_TABLES`, `GPU_IMAGE_POOLS`, `pool_types`.
PARTS = {
    key: part for key, part in cloud_parts("gpufleet.policies.network").items() if hasattr(part, "POOLS")
}
SUBNETS = tuple(part_values(PARTS, "SUBNET").values())
VPCS = tuple(part_values(PARTS, "VPC").values())
# pool type -> (cloud, subnet property)
POOLS = {
    token: (key, prop) for key, pools in part_values(PARTS, "POOLS").items() for token, prop in pools.items()
}
TEMPLATES = {token: key for key, tokens in part_values(PARTS, "POOL_TEMPLATES").items() for token in tokens}
_ASSOCIATIONS: dict[str, str] = part_merged(PARTS, "TABLE_ASSOCIATIONS")
_TABLED_SUBNETS = part_union(PARTS, "TABLED_SUBNETS")
_GROUP_CONFIGS = part_union(PARTS, "GROUP_CONFIGS")
_MAIN_ASSOCIATIONS = part_union(PARTS, "MAIN_ASSOCIATIONS")
_DEFAULT_ROUTE_TABLES = part_union(PARTS, "DEFAULT_ROUTE_TABLES")
_GPU_IMAGE_POOLS = part_union(PARTS, "GPU_IMAGE_POOLS")

RULE = Rule(
    id="GF-NET-003",
    name="gpu-subnet-no-internet-route",
    description="GPU pools sit in subnets without a direct internet route.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation="Place GPU pools in private subnets: "
    + " ".join(f"{profile(key).name}, {part.INTERNET_ROUTE_REMEDIATION}" for key, part in PARTS.items()),
    url=sole(PARTS, "INTERNET_ROUTE_URL"),
)


@dataclass
class _Index:
    by_urn: dict[str, PolicyResource]
    tables_of_subnet: dict[str, list[str]]
    internet_routes: dict[str, list[str]]  # route table urn -> description of the internet route
    configs_of_group: dict[str, list[PolicyResource]]
    vpc_of_subnet: dict[str, str]
    # VPC urn -> tables that replace or manage its main route table
    main_associations: dict[str, list[str]]
    default_tables: dict[str, list[str]]


def _all_deps(resource: PolicyResource) -> Iterable[PolicyResource]:
    yield from resource.dependencies or []
    for deps in (resource.property_dependencies or {}).values():
        yield from deps or []


def _build_index(resources: list[PolicyResource]) -> _Index:
    index = _Index(
        {r.urn: r for r in resources},
        defaultdict(list),
        defaultdict(list),
        defaultdict(list),
        {},
        defaultdict(list),
        defaultdict(list),
    )
    for r in resources:
        _index_tables(index, r)
        _index_internet_routes(index, r)
    return index


def _index_tables(index: _Index, r: PolicyResource) -> None:
    """The subnet's VPC, the VPC's main and default route tables, the subnet's route tables and the
    scaling group's configurations."""
    t = r.resource_type
    if t in SUBNETS:
        for vpc in refs(r, "vpcId"):
            index.vpc_of_subnet[r.urn] = vpc
    if t in _MAIN_ASSOCIATIONS:
        for vpc in refs(r, "vpcId"):
            index.main_associations[vpc].extend(refs(r, "routeTableId"))
    if t in _DEFAULT_ROUTE_TABLES:
        for vpc in refs(r, "defaultRouteTableId"):
            index.default_tables[vpc].append(r.urn)
    if t in _ASSOCIATIONS:
        for subnet in refs(r, _ASSOCIATIONS[t]):
            index.tables_of_subnet[subnet].extend(refs(r, "routeTableId"))
    elif t in _TABLED_SUBNETS:
        index.tables_of_subnet[r.urn].extend(refs(r, "routeTableId"))
    elif t in _GROUP_CONFIGS:
        for group in refs(r, "scalingGroupId"):
            index.configs_of_group[group].append(r)


def _index_internet_routes(index: _Index, r: PolicyResource) -> None:
    """The routes to the internet (a default route to an internet gateway or EIP), by route table."""
    part = part_of(PARTS, r.resource_type)
    if part is None:
        return
    routes: list[tuple[str, str]] = part.internet_routes(r)
    for table, route in routes:
        index.internet_routes[table].append(route)


def _template_is_gpu(template: PolicyResource) -> bool:
    cloud = TEMPLATES[template.resource_type]
    types = [get(template.props, "instanceType"), *as_list(get(template.props, "instanceTypes"))]
    types += [get(o, "instanceType") for o in as_list(get(template.props, "instanceTypeOverrides"))]
    return any(is_gpu_type(cloud, t) for t in types)


def _is_gpu_pool(resource: PolicyResource, index: _Index) -> bool:
    t, p = resource.resource_type, resource.props
    cloud = POOLS[t][0]
    types: list[object] = [get(p, "instanceType"), *as_list(get(p, "instanceTypes"))]
    more = getattr(PARTS[cloud], "pool_types", None)
    if more is not None:
        types += more(t, p)
    if t in _GPU_IMAGE_POOLS and is_gpu_ami_type(get(p, "amiType")):
        return True
    if any(is_gpu_type(cloud, x) for x in types):
        return True
    templates = [d for d in _all_deps(resource) if d.resource_type in TEMPLATES]
    templates += index.configs_of_group.get(resource.urn, [])
    return any(_template_is_gpu(index.by_urn.get(d.urn, d)) for d in templates)


def _tables_of(subnet_urn: str, index: _Index) -> list[str]:
    """The route tables a subnet uses: its explicit ones, else its VPC's main table (see module doc)."""
    explicit = index.tables_of_subnet.get(subnet_urn, [])
    if explicit:
        return list(dict.fromkeys(explicit))
    vpc = index.vpc_of_subnet.get(subnet_urn)
    if vpc is None:
        return []
    if index.main_associations.get(vpc):
        return list(dict.fromkeys(index.main_associations[vpc]))
    return [vpc, *dict.fromkeys(index.default_tables.get(vpc, []))]


def _table_text(table_urn: str, index: _Index) -> str:
    table = index.by_urn.get(table_urn)
    if table is None:
        return f"route table '{table_urn}'"
    if table.resource_type in VPCS:
        return f"main route table of VPC '{table.name}'"
    if table.resource_type in _DEFAULT_ROUTE_TABLES:
        return f"default route table '{table.name}'"
    return f"route table '{table.name}'"


def _judge_pool(resource: PolicyResource, index: _Index, report: ReportViolation) -> bool:
    """Judge one pool; False when it is not a GPU pool."""
    if not _is_gpu_pool(resource, index):
        return False
    prop = POOLS[resource.resource_type][1]
    subnet_urns = [
        u for u in refs(resource, prop) if u in index.by_urn and index.by_urn[u].resource_type in SUBNETS
    ]
    if subnet_urns:
        for subnet_urn in dict.fromkeys(subnet_urns):
            subnet = index.by_urn[subnet_urn]
            explicit = bool(index.tables_of_subnet.get(subnet_urn))
            for table_urn in _tables_of(subnet_urn, index):
                whose = "whose" if explicit else "which has no route table association, so its"
                for route in index.internet_routes.get(table_urn, []):
                    report(
                        f"GPU pool '{resource.name}' sits in subnet '{subnet.name}', {whose} "
                        f"{_table_text(table_urn, index)} has {route}; use a private subnet that reaches "
                        "the internet through a NAT gateway",
                        resource.urn,
                    )
        return True
    given = [v for v in as_list(get_ref(resource.props, prop)) if v]
    if given:
        shown = ", ".join("(unknown)" if is_unknown(v) else str(v) for v in given)
        report(
            f"GPU pool '{resource.name}' uses subnet {shown}, which is not in this stack, so its routes "
            "could not be judged; check that it has no 0.0.0.0/0 route to an internet gateway",
            resource.urn,
        )
    return True


def _unjudged(resource: PolicyResource, index: _Index) -> bool:
    """True when the pool's GPU-ness itself could not be told (an unknown instance type)."""
    try:
        _is_gpu_pool(resource, index)
    except UnknownValueError:
        return True
    return False


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = _build_index(args.resources)
    judged = 0
    for resource in args.resources:
        if resource.resource_type not in POOLS:
            continue

        def check(resource: PolicyResource = resource) -> None:
            nonlocal judged
            judged += 1 if _judge_pool(resource, index, report) else 0

        before = judged
        judge(resource.urn, check)
        if judged == before and _unjudged(resource, index):
            judged += 1
    if judged == 0:
        args.not_applicable("the stack has no GPU instances, groups or node pools")


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(POOLS),
)
