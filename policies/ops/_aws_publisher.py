"""Can an EC2 instance of the stack publish a CloudWatch agent metric: role grants and network path.

The CloudWatch agent on an instance calls `cloudwatch:PutMetricData` (and `ec2:DescribeTags` when
its config appends the `AutoScalingGroupName` dimension; it drops every metric until that call
succeeds) with the credentials of the instance profile's role, over HTTPS to the `monitoring` and
`ec2` endpoints of the region. This module answers, for one launch source (launch template, launch
configuration, instance), three questions from the resources of the stack:

- which role the instances get (instance profile -> role), and what its policies allow: inline
  `inlinePolicies`, `aws:iam/rolePolicy`, `aws:iam/rolePolicyAttachment` / `aws:iam/policyAttachment`
  of a policy of the stack or of an AWS managed policy listed in `MANAGED_GRANTS`, `managedPolicyArns`;
- which subnets they run in;
- whether a subnet reaches a service: an interface endpoint of the service with private DNS in the
  subnet's VPC, or a default route to a NAT gateway, transit gateway, network interface or instance (or
  to an internet gateway when the instance gets a public IP).

A `Missing` result says what the stack lacks; `CannotTell` (raised) says what lies outside the stack.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
)
from gpufleet.policies.documents import DocumentError, Statement, glob_match, parse_document
from gpufleet.policies.ops._common import known_str
from gpufleet.policies.props import as_list, get_ref, is_unknown, truthy
from gpufleet.policies.rule import CannotTell

INSTANCE_PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ROLE_POLICY_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
MANAGED_POLICY = "aws:iam/policy:Policy"
SUBNET = "aws:ec2/subnet:Subnet"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ROUTE = "aws:ec2/route:Route"
ROUTE_TABLE_ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
VPC_ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"

PUT_METRIC_DATA = "cloudwatch:PutMetricData"
DESCRIBE_TAGS = "ec2:DescribeTags"

# AWS managed policies whose grants the pack knows (the actions this rule asks about).
MANAGED_GRANTS: Mapping[str, frozenset[str]] = {
    "CloudWatchAgentServerPolicy": frozenset({PUT_METRIC_DATA, DESCRIBE_TAGS}),
    "CloudWatchAgentAdminPolicy": frozenset({PUT_METRIC_DATA, DESCRIBE_TAGS}),
    "AdministratorAccess": frozenset({PUT_METRIC_DATA, DESCRIBE_TAGS}),
    "PowerUserAccess": frozenset({PUT_METRIC_DATA, DESCRIBE_TAGS}),
    "CloudWatchFullAccess": frozenset({PUT_METRIC_DATA}),
    "CloudWatchFullAccessV2": frozenset({PUT_METRIC_DATA}),
    "AmazonSSMManagedInstanceCore": frozenset(),
    "AmazonSSMManagedEC2InstanceDefaultPolicy": frozenset(),
    "AmazonEC2ContainerRegistryReadOnly": frozenset(),
    "AmazonS3ReadOnlyAccess": frozenset(),
    "AmazonEKSWorkerNodePolicy": frozenset({DESCRIBE_TAGS}),
    "AmazonEKS_CNI_Policy": frozenset({DESCRIBE_TAGS}),
    "AmazonEC2ReadOnlyAccess": frozenset({DESCRIBE_TAGS}),
}
_MANAGED_ARN = re.compile(r"^arn:aws[a-z-]*:iam::aws:policy/(?:.*/)?([^/]+)$")


@dataclass(frozen=True)
class Grants:
    """What a role's policies say about the actions this rule asks about."""

    role: str
    statements: tuple[Statement, ...]
    managed: tuple[str, ...]  # AWS managed policy names attached
    unknown_managed: tuple[str, ...]  # attached policies whose grants the pack cannot read
    # Documents unknown at preview: a grant found elsewhere still counts (an explicit Deny of these
    # actions is rare); with none found, the role could not be judged.
    unknown_documents: tuple[UnknownValueError, ...] = ()

    def allows(self, action: str, namespace: str | None = None) -> bool:
        if any(action in MANAGED_GRANTS.get(name, frozenset()) for name in self.managed):
            return not self._denied(action, namespace)
        allowed = any(
            s.is_allow and s.grants(action) and _namespace_ok(s, namespace) for s in self.statements
        )
        return allowed and not self._denied(action, namespace)

    def _denied(self, action: str, namespace: str | None) -> bool:
        return any(
            not s.is_allow and s.grants(action) and _namespace_ok(s, namespace) for s in self.statements
        )


def _namespace_ok(statement: Statement, namespace: str | None) -> bool:
    """A `cloudwatch:namespace` condition covers `namespace` (no such condition covers all)."""
    for operator, keys in statement.conditions.items():
        for key, values in keys.items():
            if key.lower() != "cloudwatch:namespace":
                continue
            if namespace is None:
                return False
            like = "like" in operator.lower()
            if not any(_matches(value, namespace, like) for value in values):
                return False
    return True


def _matches(pattern: str, value: str, like: bool) -> bool:
    """StringEquals / StringLike on `cloudwatch:namespace`: both case-sensitive, as IAM compares them."""
    if not like:
        return pattern == value
    return glob_match(pattern, value, case_sensitive=True)


class _Collected:
    """What the documents attached to one role say, and which of them could not be read."""

    def __init__(self) -> None:
        self.statements: list[Statement] = []
        self.managed: list[str] = []
        self.unreadable: list[str] = []
        self.unknown: list[UnknownValueError] = []

    def document(self, value: Any, path: str) -> None:
        try:
            document = parse_document(value, path, cloud="aws")
        except DocumentError:
            return
        except UnknownValueError as error:  # a document built at apply time: unknown at preview
            self.unknown.append(error)
            return
        self.statements.extend(document.statements if document else ())

    def attached(self, index: ResourceIndex, owner: ResourceView, prop: str) -> None:
        """The policies of the stack that `owner.props[prop]` attaches, and the AWS managed policies
        it names (known to the pack, or not)."""
        policies = index.refs(owner, prop, (MANAGED_POLICY,))
        for policy in policies:
            self.document(get_ref(policy.props, "policy"), f"{policy.name}.policy")
        arns = {str(get_ref(p.props, "arn")) for p in policies}
        names = {f"/{n}" for p in policies if (n := known_str(get_ref(p.props, "name")))}
        for arn in as_list(get_ref(owner.props, prop)):
            if is_unknown(arn):
                if not policies:
                    self.unknown.append(UnknownValueError(str(arn), [f"{owner.name}.{prop}"]))
                continue
            text = known_str(arn)
            if not text or text in arns or any(text.endswith(tail) for tail in names):
                continue
            match = _MANAGED_ARN.match(text)
            if match and match.group(1) in MANAGED_GRANTS:
                self.managed.append(match.group(1))
            else:
                self.unreadable.append(text)


class _StackJoins:
    """The joins this module needs, built in one pass per stack: role -> its policies and
    attachments, subnet -> its route tables, route table -> its routes, and each role's grants."""

    def __init__(self, index: ResourceIndex) -> None:
        self.role_policies: dict[str, list[ResourceView]] = defaultdict(list)
        self.role_attachments: dict[str, list[ResourceView]] = defaultdict(list)
        for policy in index.of_type(ROLE_POLICY):
            for role in index.refs(policy, "role", (ROLE,)):
                self.role_policies[role.urn].append(policy)
        for attachment in index.of_type(ROLE_POLICY_ATTACHMENT, POLICY_ATTACHMENT):
            prop = "role" if attachment.resource_type == ROLE_POLICY_ATTACHMENT else "roles"
            for role in index.refs(attachment, prop, (ROLE,)):
                self.role_attachments[role.urn].append(attachment)
        self.subnet_tables: dict[str, dict[str, ResourceView]] = defaultdict(dict)
        for association in index.of_type(ROUTE_TABLE_ASSOCIATION):
            tables = index.refs(association, "routeTableId", (ROUTE_TABLE,))
            for subnet in index.refs(association, "subnetId", (SUBNET,)):
                self.subnet_tables[subnet.urn].update((t.urn, t) for t in tables)
        self.table_routes: dict[str, list[ResourceView]] = defaultdict(list)
        for route in index.of_type(ROUTE):
            for table in index.refs(route, "routeTableId", (ROUTE_TABLE,)):
                self.table_routes[table.urn].append(route)
        self.grants: dict[str, Grants] = {}


_JOINS: WeakKeyDictionary[ResourceIndex, _StackJoins] = WeakKeyDictionary()


def _joins(index: ResourceIndex) -> _StackJoins:
    joins = _JOINS.get(index)
    if joins is None:
        joins = _JOINS[index] = _StackJoins(index)
    return joins


def role_grants(index: ResourceIndex, role: ResourceView) -> Grants:
    joins = _joins(index)
    cached = joins.grants.get(role.urn)
    if cached is not None:
        return cached
    found = _Collected()
    for inline in as_list(get_ref(role.props, "inlinePolicies")):
        if isinstance(inline, Mapping):
            found.document(get_ref(inline, "policy"), f"{role.name}.inlinePolicies.policy")
    found.attached(index, role, "managedPolicyArns")
    for policy in joins.role_policies.get(role.urn, ()):
        found.document(get_ref(policy.props, "policy"), f"{policy.name}.policy")
    for attachment in joins.role_attachments.get(role.urn, ()):
        found.attached(index, attachment, "policyArn")
    grants = joins.grants[role.urn] = Grants(
        role.name,
        tuple(found.statements),
        tuple(found.managed),
        tuple(found.unreadable),
        tuple(found.unknown),
    )
    return grants


def instance_roles(index: ResourceIndex, source: ResourceView) -> list[ResourceView] | None:
    """The roles the instances of `source` get; None when it names no instance profile. Raises
    CannotTell when the profile or its role is not created in the stack."""
    prop = "iamInstanceProfile"
    value = get_ref(source.props, prop)
    if value is None or value in ("", {}):
        return None
    candidates: list[Any] = [value]
    if isinstance(value, Mapping):
        candidates = [get_ref(value, "arn"), get_ref(value, "name")]
    profiles: dict[str, ResourceView] = {p.urn: p for p in index.refs(source, prop, (INSTANCE_PROFILE,))}
    for candidate in candidates:
        if candidate is not None:
            profiles.update(
                (p.urn, p) for p in index.refs(source, prop, (INSTANCE_PROFILE,), value=candidate)
            )
    if not profiles:
        shown = next((c for c in candidates if known_str(c)), "an instance profile")
        raise CannotTell(
            f"'{source.name}' uses {shown}, which is not created in the stack, so its role's grants are "
            "not known",
            prop,
        )
    roles: dict[str, ResourceView] = {}
    for profile in profiles.values():
        found = index.refs(profile, "role", (ROLE,))
        if not found:
            raise CannotTell(
                f"instance profile '{profile.name}' names a role that is not created in the stack", "role"
            )
        roles.update((r.urn, r) for r in found)
    return list(roles.values())


def subnets_of(index: ResourceIndex, source: ResourceView, group: ResourceView | None) -> list[ResourceView]:
    """Subnets of the stack the instances run in; CannotTell when they are not in the stack."""
    found: dict[str, ResourceView] = {}
    wanted: list[tuple[ResourceView, str]] = []
    if group is not None:
        wanted.append((group, "vpcZoneIdentifiers"))
    if source.resource_type == AWS_INSTANCE:
        wanted.append((source, "subnetId"))
    if source.resource_type == AWS_LAUNCH_TEMPLATE:
        for interface in as_list(get_ref(source.props, "networkInterfaces")):
            subnet = get_ref(interface, "subnetId") if isinstance(interface, Mapping) else None
            found.update((s.urn, s) for s in index.refs(source, "networkInterfaces", (SUBNET,), value=subnet))
    given = False
    for owner, prop in wanted:
        value = get_ref(owner.props, prop)
        given = given or value not in (None, "", [])
        found.update((s.urn, s) for s in index.refs(owner, prop, (SUBNET,)))
    if not found:
        where = "subnets that are not created in the stack" if given else "the default VPC"
        raise CannotTell(f"'{source.name}' runs in {where}, so its network path is not known", "subnetId")
    return list(found.values())


def _same(a: ResourceView, prop_a: str, b: ResourceView, prop_b: str) -> bool:
    """Two resources name the same thing in `prop_a` / `prop_b` (one dependency or one literal)."""
    deps_a = set(a.dependency_urns.get(prop_a, ()))
    deps_b = set(b.dependency_urns.get(prop_b, ()))
    if deps_a & deps_b:
        return True
    value_a, value_b = get_ref(a.props, prop_a), get_ref(b.props, prop_b)
    return bool(known_str(value_a)) and value_a == value_b


def endpoint_for(index: ResourceIndex, subnet: ResourceView, service: str) -> ResourceView | None:
    endpoints: list[ResourceView] = index.of_type(VPC_ENDPOINT)
    for endpoint in endpoints:
        name = known_str(get_ref(endpoint.props, "serviceName"))
        kind = str(get_ref(endpoint.props, "vpcEndpointType") or "Gateway")
        if not name or not name.endswith(f".{service}") or kind != "Interface":
            continue
        if not truthy(get_ref(endpoint.props, "privateDnsEnabled") or False):
            continue
        if _same(endpoint, "vpcId", subnet, "vpcId"):
            return endpoint
    return None


_EGRESS_TARGETS = (
    "natGatewayId",
    "transitGatewayId",
    "networkInterfaceId",
    "instanceId",
    "egressOnlyGatewayId",
)


def _default_route(route: Any, public_ip: bool) -> bool:
    if not isinstance(route, Mapping):
        return False
    cidr = get_ref(route, "cidrBlock") or get_ref(route, "destinationCidrBlock")
    if cidr != "0.0.0.0/0":
        return False
    if any(get_ref(route, target) for target in _EGRESS_TARGETS):
        return True
    gateway = get_ref(route, "gatewayId")
    return bool(gateway) and public_ip


def reaches_internet(index: ResourceIndex, subnet: ResourceView, public_ip: bool) -> bool:
    joins = _joins(index)
    for table in joins.subnet_tables.get(subnet.urn, {}).values():
        if any(_default_route(route, public_ip) for route in as_list(get_ref(table.props, "routes"))):
            return True
        if any(_default_route(route.props, public_ip) for route in joins.table_routes.get(table.urn, ())):
            return True
    return False


def public_ip(source: ResourceView, subnet: ResourceView) -> bool:
    if source.resource_type == AWS_INSTANCE:
        value = get_ref(source.props, "associatePublicIpAddress")
        if value is not None and not is_unknown(value):
            return truthy(value)
    if source.resource_type == AWS_LAUNCH_TEMPLATE:
        for interface in as_list(get_ref(source.props, "networkInterfaces")):
            value = get_ref(interface, "associatePublicIpAddress") if isinstance(interface, Mapping) else None
            if value is not None and not is_unknown(value):
                return truthy(value)
    if source.resource_type == AWS_LAUNCH_CONFIGURATION:
        value = get_ref(source.props, "associatePublicIpAddress")
        if value is not None and not is_unknown(value):
            return truthy(value)
    return truthy(get_ref(subnet.props, "mapPublicIpOnLaunch") or False)
