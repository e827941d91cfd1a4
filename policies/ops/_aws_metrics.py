"""GF-OPS-001 on AWS: who publishes the metric a scaling alarm or target-tracking policy watches.

`aws:cloudwatch/metricAlarm:MetricAlarm` whose `alarmActions` fire an `aws:autoscaling/policy` or
`aws:appautoscaling/policy`, and target-tracking policies (`_aws_watchers`). `AWS/<service>` namespaces
are filled by the service for resources that exist; the CloudWatch agent's namespaces need instances
whose role may publish and that can reach `monitoring` (`_aws_publisher`, `_aws_sources`); any other
namespace needs a role of the stack allowed to `PutMetricData` into it. The rule's own module
(`scaling_metric_published`) says the whole contract.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_METRIC_ALARM,
)
from gpufleet.policies.ops import _aws_publisher as pub
from gpufleet.policies.ops._aws_sources import agent_namespaces, group_sources
from gpufleet.policies.ops._aws_watchers import Watcher, candidates, watcher
from gpufleet.policies.ops._common import quoted, unknown
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import CannotTell

AWS_SQS_QUEUE = "aws:sqs/queue:Queue"
# The burst order's signal (gpufleet.components.pools.burst; policies do not import the fleet's modules).
SIGNAL_NAMESPACE = "gpufleet/Baseline"
SIGNAL_METRIC = "FreeGpusAhead"
EC2_FLEETS = ("aws:ec2/fleet:Fleet", "aws:ec2/spotFleetRequest:SpotFleetRequest")

# AWS/<service> namespace -> resource types whose existence makes the service publish it.
SERVICE_RESOURCES: Mapping[str, tuple[str, ...]] = {
    "AWS/ApplicationELB": ("aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer"),
    "AWS/NetworkELB": ("aws:lb/loadBalancer:LoadBalancer",),
    "AWS/ELB": ("aws:elb/loadBalancer:LoadBalancer",),
    "AWS/Lambda": ("aws:lambda/function:Function",),
    "AWS/DynamoDB": ("aws:dynamodb/table:Table",),
    "AWS/ECS": ("aws:ecs/service:Service", "aws:ecs/cluster:Cluster"),
    "AWS/Kinesis": ("aws:kinesis/stream:Stream",),
    "AWS/SNS": ("aws:sns/topic:Topic",),
    "AWS/RDS": ("aws:rds/instance:Instance", "aws:rds/cluster:Cluster"),
    "AWS/EBS": ("aws:ebs/volume:Volume", AWS_INSTANCE, AWS_ASG),
    "AWS/SageMaker": ("aws:sagemaker/endpoint:Endpoint",),
    "AWS/EC2Spot": ("aws:ec2/spotFleetRequest:SpotFleetRequest",),
}


def _listed(namespace: str, dims: Mapping[str, Any], listed: list[str]) -> bool:
    if namespace in listed:
        return True
    return any(f"{namespace}:{value}" in listed for value in dims.values() if isinstance(value, str))


def _by_dimension(index: ResourceIndex, w: Watcher, types: tuple[str, ...], value: Any) -> list[Any]:
    """Resources of `types` a dimension value names (by dependency or by name)."""
    if value is None:
        return []
    return index.refs(w.view, w.dims_prop, types, value=value)


def _aws_queue(index: ResourceIndex, w: Watcher, metric: str, dims: Mapping[str, Any]) -> str | None:
    """AWS/SQS: the queue the dimension names (or any queue) is created by the stack."""
    label = w.label
    queue = dims.get("QueueName")
    if queue is None:
        if index.of_type(AWS_SQS_QUEUE):
            return None
        return f"{label} scales on AWS/SQS {metric} but the stack has no queue"
    if _by_dimension(index, w, (AWS_SQS_QUEUE,), queue):
        return None
    if is_unknown(queue):
        raise unknown(queue, "dimensions.QueueName")
    return (
        f"{label} scales on AWS/SQS {metric} of queue '{queue}', which the stack does not create: SQS "
        f"publishes metrics only for a queue that exists; create the queue in the stack or list "
        f"'AWS/SQS:{queue}' in published_namespaces"
    )


def _aws_groups(
    index: ResourceIndex, w: Watcher, ns: str, metric: str, dims: Mapping[str, Any]
) -> str | None:
    """AWS/EC2 and AWS/AutoScaling: the group the dimension names is created by the stack (and collects
    the group metric), or the stack has something EC2 reports on."""
    label = w.label
    group_name = dims.get("AutoScalingGroupName")
    groups = _by_dimension(index, w, (AWS_ASG,), group_name)
    if group_name is not None and not groups:
        if is_unknown(group_name):
            raise unknown(group_name, "dimensions.AutoScalingGroupName")
        return (
            f"{label} scales on {ns} {metric} of group '{group_name}', which the stack does not create; "
            f"create it in the stack or list '{ns}:{group_name}' in published_namespaces"
        )
    if ns == "AWS/AutoScaling":
        for group in groups:
            enabled = get_ref(group.props, "enabledMetrics")
            if is_unknown(enabled):
                raise unknown(enabled, "enabledMetrics")
            if metric not in [str(m) for m in as_list(enabled)]:
                return (
                    f"{label} scales on AWS/AutoScaling {metric}, but group '{group.name}' does not "
                    f"collect it; add '{metric}' to the group's enabledMetrics"
                )
        return None
    if groups or index.of_type(AWS_ASG, AWS_INSTANCE, *EC2_FLEETS):
        return None
    return f"{label} scales on AWS/EC2 {metric} but the stack has no instance or group EC2 reports on"


def _aws_service(
    index: ResourceIndex, w: Watcher, ns: str, metric: str, dims: Mapping[str, Any]
) -> str | None:
    label = w.label
    if ns == "AWS/SQS":
        return _aws_queue(index, w, metric, dims)
    if ns in ("AWS/EC2", "AWS/AutoScaling"):
        return _aws_groups(index, w, ns, metric, dims)
    types = SERVICE_RESOURCES.get(ns)
    if types is None:
        raise CannotTell(
            f"{label} scales on {ns} {metric}; which resources publish {ns} is not known to the pack: list "
            f"'{ns}' in published_namespaces if something publishes it",
            "namespace",
        )
    if index.of_type(*types):
        return None
    return f"{label} scales on {ns} {metric} but the stack creates nothing that {ns} reports on"


def _agent(index: ResourceIndex, w: Watcher, ns: str, metric: str, dims: Mapping[str, Any]) -> list[str]:
    label = w.label
    group_name = dims.get("AutoScalingGroupName")
    needs_tags = group_name is not None
    groups = _by_dimension(index, w, (AWS_ASG,), group_name)
    if group_name is not None and not groups:
        raise CannotTell(
            f"{label} watches group '{group_name}', which is not created in the stack", "dimensions"
        )
    groups = groups or list(w.groups)  # a target-tracking policy's metric comes from its own group
    sources = group_sources(index, groups) if groups else _every_source(index)
    if not sources:
        return [f"{label} scales on {ns} {metric}, but no instance of the stack runs the agent publishing it"]
    problems: list[str] = []
    for source, group in sources:
        roles = pub.instance_roles(index, source)
        if roles is None:
            problems.append(
                f"{label} scales on {ns} {metric}, published by the CloudWatch agent on '{source.name}', "
                "which has no instance profile, so the agent cannot call cloudwatch:PutMetricData"
            )
            continue
        grants = [pub.role_grants(index, role) for role in roles]
        wanted = [(pub.PUT_METRIC_DATA, ns)] + ([(pub.DESCRIBE_TAGS, None)] if needs_tags else [])
        for action, namespace in wanted:
            if any(g.allows(action, namespace) for g in grants):
                continue
            for grant in grants:
                for error in grant.unknown_documents:
                    raise error
            unreadable = [name for g in grants for name in g.unknown_managed]
            if unreadable:
                raise CannotTell(
                    f"whether role {quoted(g.role for g in grants)} may call {action} depends on "
                    f"{quoted(unreadable)}, which the pack cannot read",
                    "policyArn",
                )
            problems.append(_grant_problem(label, f"{ns} {metric}", source, grants, action))
        problems.extend(_network(index, label, source, group, needs_tags))
    return list(dict.fromkeys(problems))


def _every_source(index: ResourceIndex) -> list[tuple[ResourceView, ResourceView | None]]:
    """Every launch source of the stack, with the group that launches from it when there is one."""
    sources = group_sources(index, index.of_type(AWS_ASG))
    used = {source.urn for source, _ in sources}
    for source in index.of_type(AWS_LAUNCH_TEMPLATE, AWS_LAUNCH_CONFIGURATION, AWS_INSTANCE):
        if source.urn not in used:
            sources.append((source, None))
    return sources


def _grant_problem(
    label: str, metric: str, source: ResourceView, grants: list[pub.Grants], action: str
) -> str:
    roles = quoted(g.role for g in grants)
    if action == pub.DESCRIBE_TAGS:
        return (
            f"{label} watches {metric} by AutoScalingGroupName, which the CloudWatch agent on "
            f"'{source.name}' appends only after ec2:DescribeTags succeeds, but role {roles} does not allow "
            "it, so every metric is dropped; allow ec2:DescribeTags"
        )
    namespace = metric.split(" ", 1)[0]
    return (
        f"{label} scales on {metric}, but role {roles} of '{source.name}' may not call "
        f"cloudwatch:PutMetricData for namespace {namespace}; allow it (cloudwatch:namespace = {namespace})"
    )


def _network(
    index: ResourceIndex, label: str, source: ResourceView, group: ResourceView | None, needs_tags: bool
) -> list[str]:
    services = ["monitoring"] + (["ec2"] if needs_tags else [])
    cut_off: dict[str, list[str]] = {}
    for subnet in pub.subnets_of(index, source, group):
        if pub.reaches_internet(index, subnet, pub.public_ip(source, subnet)):
            continue
        for service in services:
            if pub.endpoint_for(index, subnet, service) is None:
                cut_off.setdefault(service, []).append(subnet.name)
    problems = []
    for service, subnets in cut_off.items():
        noun = "subnet" if len(subnets) == 1 else "subnets"
        problems.append(
            f"{label}: the CloudWatch agent on '{source.name}' cannot reach {service} from {noun} "
            f"{quoted(sorted(subnets))}: no route out and no interface endpoint for {service} with private "
            "DNS in the VPC; add the endpoint or a NAT route"
        )
    return problems


def _custom(index: ResourceIndex, w: Watcher, ns: str, metric: str) -> str | None:
    if not _nobody_publishes(index, ns):
        return None
    nobody = f"which nothing in the stack may publish (no role allows cloudwatch:PutMetricData for {ns})"
    listed = f"list '{ns}' in published_namespaces if it is published outside the stack"
    filled = _filled_to_zero(w.view, ns, metric)
    if filled is not None and (ns, metric) == (SIGNAL_NAMESPACE, SIGNAL_METRIC):
        return (
            f"{w.label} gates its scale-out on {ns} {metric} through FILL({filled}, 0), {nobody}: the alarm "
            "still fires, but the burst order is not enforced (the pool scales as if nothing were free ahead "
            "of it); build the publisher (onprem.signal: the BaselineSignal role and the on-prem exporter), "
            f"or {listed}"
        )
    if filled is not None:
        return (
            f"{w.label} reads {ns} {metric} through FILL({filled}, 0), {nobody}: the alarm sees 0 for it in "
            f"every period; scale on a metric the stack publishes, or {listed}"
        )
    return (
        f"{w.label} scales on {ns} {metric}, {nobody}: the alarm never fires; scale on a metric the stack "
        f"publishes, or {listed}"
    )


def _filled_to_zero(alarm: ResourceView, ns: str, metric: str) -> str | None:
    """The id of the alarm's metric query on `ns` `metric` when every expression of the alarm reads it
    only as FILL(id, 0), so a missing metric reads as 0 rather than leaving the alarm without data;
    None otherwise (not a metric-math alarm, or the id read bare somewhere)."""
    if alarm.resource_type != AWS_METRIC_ALARM:
        return None
    queries = [q for q in as_list(get_ref(alarm.props, "metricQueries")) if isinstance(q, Mapping)]
    expressions = [e for q in queries if isinstance(e := get_ref(q, "expression"), str)]
    for query in queries:
        watched = get_ref(query, "metric")
        if not isinstance(watched, Mapping):
            continue
        if (get_ref(watched, "namespace"), get_ref(watched, "metricName")) != (ns, metric):
            continue
        query_id = get_ref(query, "id")
        if not isinstance(query_id, str) or not query_id:
            continue
        filled = {m.group(1) for e in expressions for m in _FILL_ZERO.finditer(e)}
        bare = {word for e in expressions for word in _IDENTIFIER.findall(_FILL_ZERO.sub(" ", e))}
        if query_id in filled and query_id not in bare:
            return query_id
    return None


# `FILL(<id>, 0)` in a metric-math expression; no nested quantifier, so linear on any input.
_FILL_ZERO = re.compile(r"FILL\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*0(?:\.0+)?\s*\)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _nobody_publishes(index: ResourceIndex, ns: str) -> bool:
    """True when no role of the stack may publish to `ns`; raises when none is known to and one of
    their documents is unknown at preview. Grants are read once per role (`role_grants` keeps them)."""
    unknown_documents: list[UnknownValueError] = []
    for role in index.of_type(pub.ROLE):
        grants = pub.role_grants(index, role)
        if grants.allows(pub.PUT_METRIC_DATA, ns):
            return False
        unknown_documents.extend(grants.unknown_documents)
    if unknown_documents:
        raise unknown_documents[0]
    return True


def _judge_aws(index: ResourceIndex, view: ResourceView, listed: list[str], agent: set[str]) -> list[str]:
    w = watcher(index, view)
    problems: list[str] = []
    for metric in w.metrics:
        ns, name, dims = metric.namespace, metric.name, metric.dims
        if _listed(ns, dims, listed):
            continue
        if ns.startswith("AWS/"):
            problem = _aws_service(index, w, ns, name, dims)
            problems.extend([problem] if problem else [])
        elif ns in agent:
            problems.extend(_agent(index, w, ns, name, dims))
        else:
            problem = _custom(index, w, ns, name)
            problems.extend([problem] if problem else [])
    return problems


# What the rule judges on AWS: alarms and the scaling policies they fire (target tracking included).
METRIC_TYPES = (AWS_METRIC_ALARM, AWS_ASG_POLICY, AWS_APPAS_POLICY)


def metric_alarms(index: ResourceIndex) -> list[ResourceView]:
    """The alarms and target-tracking policies of the stack that drive scaling."""
    return list(candidates(index))


def metric_judge(
    index: ResourceIndex, alarms: list[ResourceView], listed: list[str]
) -> Callable[[ResourceView], list[str]]:
    """The problems of one of `alarms`; the CloudWatch agent's namespaces are read once for them all."""
    agent = agent_namespaces(index) if alarms else set()
    return lambda alarm: _judge_aws(index, alarm, listed, agent)
