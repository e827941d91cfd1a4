"""The GPU pool model: every GPU pool a program writes with the raw SDKs, described one way.

A *pool* is capacity that bills by the GPU hour: an AWS auto scaling group, EC2 fleet, spot fleet,
EKS node group, standalone instance or spot request; an Alibaba ESS scaling group or standalone ECS
instance (set); a Tencent AS scaling group or standalone CVM. `discover_pools` joins each pool to what
shapes its cost (launch template / launch configuration / scaling configuration, scaling policies and
the alarms that fire them, scheduled actions) and returns frozen `Pool` records. The cost rules
(GF-COST-003..008) and the cost estimate read pools, never raw resources.

Joins use, in order: the engine's property dependencies (a reference `group.name` in a policy's
`autoscalingGroupName` is an unknown string at preview, but the dependency names the group), then
literal names/ids matched against the target's own inputs and logical name. Every index is built
once per stack.

Values unknown at preview are kept as `None` and recorded in `Pool.unknown` (field -> wire path and
sentinel) so a rule that needs one can say it could not be judged instead of passing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError

from policies.context import environment, resource_region
from policies.gpu import CatalogLike, cloud_of, gpu_class_of
from policies.props import as_list, as_number, get_ref, is_unknown, plain, truthy

# --- type tokens (from the installed SDKs) ---------------------------------------------------
AWS_ASG = "aws:autoscaling/group:Group"
AWS_ASG_POLICY = "aws:autoscaling/policy:Policy"
AWS_ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
AWS_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_APPAS_TARGET = "aws:appautoscaling/target:Target"
AWS_APPAS_SCHEDULED_ACTION = "aws:appautoscaling/scheduledAction:ScheduledAction"
AWS_APPAS_POLICY = "aws:appautoscaling/policy:Policy"
SPOT_FLEET_DIMENSION = "ec2:spot-fleet-request:TargetCapacity"

ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_SCALING_RULE = "alicloud:ess/scalingRule:ScalingRule"
ALI_ESS_ALARM = "alicloud:ess/alarm:Alarm"
ALI_SCHEDULED_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
ALI_SCHEDULE = "alicloud:ess/schedule:Schedule"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_LAUNCH_TEMPLATES = (
    "alicloud:ecs/launchTemplate:LaunchTemplate",
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
)

TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_POLICY = "tencentcloud:As/scalingPolicy:ScalingPolicy"
TC_SCHEDULE = "tencentcloud:As/schedule:Schedule"
TC_ALARM_POLICY = "tencentcloud:Monitor/alarmPolicy:AlarmPolicy"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"

POOL_TYPES = frozenset(
    {
        AWS_ASG,
        AWS_INSTANCE,
        AWS_SPOT_REQUEST,
        AWS_SPOT_FLEET,
        AWS_FLEET,
        AWS_EKS_NODE_GROUP,
        ALI_SCALING_GROUP,
        ALI_INSTANCE,
        ALI_INSTANCE_SET,
        TC_SCALING_GROUP,
        TC_INSTANCE,
    }
)
SCALABLE_TYPES = frozenset({AWS_ASG, AWS_EKS_NODE_GROUP, ALI_SCALING_GROUP, TC_SCALING_GROUP})

HOURS_PER_MONTH = 730


# --- the catalogue this module reads (components.catalog) -------------------------------------
class PriceLike(Protocol):
    amount: float
    currency: str


class InstanceTypeLike(Protocol):
    gpu_class: str
    gpu_count: int

    @property
    def on_demand(self) -> Mapping[str, Any]: ...

    def hourly(self, region: str, spot: bool = False) -> Any: ...


# --- the model -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalingSignal:
    """One way a pool scales: a policy/rule, with the alarm that fires it when there is one."""

    urn: str
    name: str
    kind: str  # simple | step | target | predictive | alarm
    direction: str  # out | in | both | unknown
    metric: str | None = None
    threshold: float | None = None
    period_s: int | None = None
    evaluation_periods: int | None = None
    cooldown_s: int | None = None
    # False for an EC2 Auto Scaling step policy: it takes no cooldown (the group's default does not
    # apply either) and is re-run every minute while its alarm holds. Its `warmup_s`
    # (estimatedInstanceWarmup) paces scale-out only: warming instances count as capacity already added.
    takes_cooldown: bool = True
    warmup_s: int | None = None
    # False for a rule nothing in the stack fires (an ESS simple/step rule without an alarm task):
    # it only runs when someone executes it by hand.
    automatic: bool = True
    # When the signal is an alarm, the scaling policy/rule it fires: `cooldown_s` is that policy's
    # setting (named by `cooldown_setting`), so a finding about it must name the policy, not the alarm.
    policy: str | None = None
    cooldown_setting: str = "cooldown"
    # field -> (wire path, sentinel) of the decisive values that were unknown at preview
    unknown: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def require_known(self) -> None:
        """Raise UnknownValueError when a threshold, window or cooldown was unknown at preview."""
        for path, sentinel in self.unknown.values():
            raise UnknownValueError(sentinel, [path])

    @property
    def window_s(self) -> int | None:
        if self.period_s is None or self.evaluation_periods is None:
            return None
        return self.period_s * self.evaluation_periods


@dataclass(frozen=True)
class ScheduledAction:
    urn: str
    name: str
    min_size: int | None
    max_size: int | None
    desired: int | None
    recurrence: str | None
    timezone: str | None

    @property
    def scales_to_zero(self) -> bool:
        """A stop: the action caps the pool at zero. An action that leaves the maximum alone and sets
        the desired capacity to zero (an ESS rule to total capacity 0) stops it too; one that sets
        desired 0 under a positive maximum is the morning start of a pool whose minimum is 0."""
        if self.max_size is not None:
            return self.max_size == 0
        return self.desired == 0


@dataclass(frozen=True)
class Pool:
    cloud: str
    resource_type: str
    urn: str
    name: str
    region: str | None
    instance_types: tuple[str, ...]
    min_size: int | None
    max_size: int | None
    desired: int | None
    spot_percent: float | None
    on_demand_base: int
    scaling: tuple[ScalingSignal, ...] = ()
    schedules: tuple[ScheduledAction, ...] = ()
    env: str | None = None
    default_cooldown_s: int | None = None
    # An EC2 Auto Scaling group's defaultInstanceWarmup: what a step policy without its own warm-up uses.
    default_instance_warmup_s: int | None = None
    scalable: bool = False
    role_refs: tuple[str, ...] = ()  # URNs of the resources naming the instance role/profile
    # True when the pool asks for GPUs by attributes (`acceleratorTypes: ["gpu"]`) without naming
    # any GPU the model knows: a GPU pool whose GPU class (and so price) is unknown.
    gpu_class_unknown: bool = False
    unknown: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return POOL_KINDS.get(self.resource_type, self.resource_type)

    def known(self, attribute: str) -> Any:
        """The attribute's value, or raise UnknownValueError when it was unknown at preview."""
        if attribute in self.unknown:
            path, sentinel = self.unknown[attribute]
            raise UnknownValueError(sentinel, [path])
        return getattr(self, attribute)

    @property
    def scales_in(self) -> bool:
        return any(s.direction in ("in", "both") and s.automatic for s in self.scaling)

    @property
    def scheduled_to_zero(self) -> bool:
        return any(s.scales_to_zero for s in self.schedules)


POOL_KINDS = {
    AWS_ASG: "Auto Scaling group",
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_REQUEST: "EC2 spot instance request",
    AWS_SPOT_FLEET: "EC2 spot fleet request",
    AWS_FLEET: "EC2 fleet",
    AWS_EKS_NODE_GROUP: "EKS node group",
    ALI_SCALING_GROUP: "ESS scaling group",
    ALI_INSTANCE: "ECS instance",
    ALI_INSTANCE_SET: "ECS instance set",
    TC_SCALING_GROUP: "AS scaling group",
    TC_INSTANCE: "CVM instance",
}


# --- reading helpers -----------------------------------------------------------------------------
class _Reader:
    """Reads one resource's props, remembering which decisive values were unknown."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props
        self.unknown: dict[str, tuple[str, str]] = {}

    def value(self, path: str, attribute: str | None = None) -> Any:
        value = get_ref(self.props, path)
        if is_unknown(value):
            if attribute:
                self.unknown.setdefault(attribute, (path, value))
            return None
        return value

    def number(self, path: str, attribute: str | None = None) -> float | None:
        return _num(self.value(path, attribute))

    def integer(self, path: str, attribute: str | None = None) -> int | None:
        number = self.number(path, attribute)
        return None if number is None else int(number)

    def string(self, path: str) -> str | None:
        value = self.value(path)
        return value if isinstance(value, str) and value else None

    def strings(self, path: str, attribute: str | None = None) -> list[str]:
        value = self.value(path, attribute)
        out = []
        for item in as_list(value):
            if is_unknown(item):
                if attribute:
                    self.unknown.setdefault(attribute, (path, item))
                continue
            if isinstance(item, str) and item:
                out.append(item)
        return out


def _num(value: Any) -> float | None:
    if is_unknown(value):
        return None
    return as_number(value)


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


@dataclass(frozen=True)
class ResourceView:
    """A resource with plain props (unknowns kept as sentinels, never raised) for joining."""

    resource_type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    provider: Any
    dependency_urns: Mapping[str, tuple[str, ...]]
    original: Any = field(compare=False, repr=False)


def _view(resource: Any) -> ResourceView:
    props = plain(resource.props)
    dependencies = getattr(resource, "property_dependencies", None) or {}
    return ResourceView(
        resource_type=resource.resource_type,
        name=resource.name,
        urn=resource.urn,
        props=props if isinstance(props, Mapping) else {},
        provider=getattr(resource, "provider", None),
        dependency_urns={key: tuple(dep.urn for dep in deps) for key, deps in dependencies.items()},
        original=resource,
    )


class ResourceIndex:
    """One pass over the stack: resources by URN, by type, and by the names/ids they can be joined by.

    The index holds `ResourceView`s: plain copies of the props, so that reading a list that holds an
    unknown element never raises half-way through a join.
    """

    def __init__(self, resources: Sequence[Any]) -> None:
        self.resources = [_view(resource) for resource in resources]
        self.by_urn: dict[str, ResourceView] = {}
        self.by_type: dict[str, list[ResourceView]] = defaultdict(list)
        self._by_key: dict[tuple[str, str], list[ResourceView]] = defaultdict(list)
        for resource in self.resources:
            self.by_urn[resource.urn] = resource
            self.by_type[resource.resource_type].append(resource)
            for key in self._keys(resource):
                self._by_key[(resource.resource_type, key)].append(resource)

    _KEY_PROPS = (
        "name",
        "arn",
        "id",
        "bucket",
        "scalingGroupName",
        "scalingConfigurationName",
        "scalingRuleName",
        "configurationName",
        "policyName",
        "launchTemplateName",
        "roleName",
        "resourceId",
    )

    @classmethod
    def _keys(cls, resource: Any) -> set[str]:
        keys = {resource.name}
        props = resource.props
        for prop in cls._KEY_PROPS:
            value = get_ref(props, prop)
            if isinstance(value, str) and value and not is_unknown(value):
                keys.add(value)
        return keys

    def of_type(self, *types: str) -> list[Any]:
        out: list[Any] = []
        for resource_type in types:
            out.extend(self.by_type.get(resource_type, ()))
        return out

    def refs(self, resource: Any, prop: str, types: Iterable[str], value: Any = None) -> list[Any]:
        """Resources of `types` that `resource.props[prop]` (or `value`) refers to."""
        wanted = tuple(types)
        found: dict[str, Any] = {}
        for dep_urn in resource.dependency_urns.get(prop.split(".", maxsplit=1)[0], ()):
            dep = self.by_urn.get(dep_urn)
            if dep is not None and dep.resource_type in wanted:
                found[dep.urn] = dep
        candidates = as_list(value if value is not None else get_ref(resource.props, prop))
        for candidate in candidates:
            if isinstance(candidate, str) and candidate and not is_unknown(candidate):
                for resource_type in wanted:
                    for target in self._by_key.get((resource_type, candidate), ()):
                        found[target.urn] = target
                    # ARNs and ids built around a name ("arn:...:autoScalingGroupName/NAME").
                    tail = candidate.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
                    if tail != candidate:
                        for target in self._by_key.get((resource_type, tail), ()):
                            found[target.urn] = target
        return list(found.values())


# --- discovery -----------------------------------------------------------------------------------
def discover_pools(
    resources: Sequence[Any],
    catalog: CatalogLike | None = None,
    stack_tags: Mapping[str, str] | None = None,
    *,
    gpu_only: bool = True,
    index: ResourceIndex | None = None,
) -> list[Pool]:
    """Every (GPU) pool in the stack, with its scaling and schedules joined."""
    index = index or ResourceIndex(resources)
    attachments = _Attachments(index)
    pools: list[Pool] = []
    for resource in index.resources:
        builder = _BUILDERS.get(resource.resource_type)
        if builder is None:
            continue
        pool = builder(resource, index, attachments, stack_tags or {})
        if pool is None:
            continue
        if gpu_only and not _is_gpu_pool(pool, catalog):
            continue
        pools.append(pool)
    return pools


def _is_gpu_pool(pool: Pool, catalog: CatalogLike | None) -> bool:
    if pool.gpu_class_unknown:
        return True
    return any(gpu_class_of(pool.cloud, t, catalog)[0] for t in pool.instance_types)


class _Attachments:
    """Scaling policies, alarms and schedules, grouped by the pool URN they attach to (built once)."""

    def __init__(self, index: ResourceIndex) -> None:
        self.signals: dict[str, list[ScalingSignal]] = defaultdict(list)
        self.schedules: dict[str, list[ScheduledAction]] = defaultdict(list)
        self.ali_configs: dict[str, list[Any]] = defaultdict(list)
        # Spot fleet URN -> the `maxCapacity` values of the scalable targets that scale it (an
        # unknown one kept as its sentinel).
        self.fleet_max_capacity: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for config in index.of_type(ALI_SCALING_CONFIGURATION):
            for group in index.refs(config, "scalingGroupId", (ALI_SCALING_GROUP,)):
                self.ali_configs[group.urn].append(config)
        self._aws(index)
        self._alicloud(index)
        self._tencentcloud(index)

    # AWS ------------------------------------------------------------------------------------
    def _aws(self, index: ResourceIndex) -> None:
        groups = (AWS_ASG, AWS_EKS_NODE_GROUP)
        alarms_by_policy: dict[str, list[Any]] = defaultdict(list)
        for alarm in index.of_type(AWS_METRIC_ALARM):
            for policy in index.refs(alarm, "alarmActions", (AWS_ASG_POLICY,)):
                alarms_by_policy[policy.urn].append(alarm)
        for policy in index.of_type(AWS_ASG_POLICY):
            targets = index.refs(policy, "autoscalingGroupName", groups)
            if not targets:
                continue
            for signal in _aws_policy_signals(policy, alarms_by_policy.get(policy.urn, [])):
                for target in targets:
                    self.signals[target.urn].append(signal)
        for schedule in index.of_type(AWS_ASG_SCHEDULE):
            p = schedule.props
            action = ScheduledAction(
                urn=schedule.urn,
                name=schedule.name,
                min_size=_int(get_ref(p, "minSize")),
                max_size=_int(get_ref(p, "maxSize")),
                desired=_int(get_ref(p, "desiredCapacity")),
                recurrence=_str(get_ref(p, "recurrence")),
                timezone=_str(get_ref(p, "timeZone")),
            )
            for target in index.refs(schedule, "autoscalingGroupName", groups):
                self.schedules[target.urn].append(action)
        self._aws_spot_fleet_scaling(index)

    def _aws_spot_fleet_scaling(self, index: ResourceIndex) -> None:
        """Spot fleet requests scale through Application Auto Scaling: a scalable target on
        `ec2:spot-fleet-request:TargetCapacity` whose resourceId (`spot-fleet-request/<id>`) names the
        fleet, scheduled actions and policies that name the target by the same resourceId."""
        fleets_by_target: dict[str, list[Any]] = {}
        for target in index.of_type(AWS_APPAS_TARGET):
            if not _spot_fleet_dimension(target):
                continue
            fleets = index.refs(target, "resourceId", (AWS_SPOT_FLEET,))
            if fleets:
                fleets_by_target[target.urn] = fleets
            for fleet in fleets:
                self.fleet_max_capacity[fleet.urn].append((target.name, get_ref(target.props, "maxCapacity")))

        def fleets_of(resource: Any) -> list[Any]:
            if not _spot_fleet_dimension(resource):
                return []
            found = {f.urn: f for f in index.refs(resource, "resourceId", (AWS_SPOT_FLEET,))}
            for target in index.refs(resource, "resourceId", (AWS_APPAS_TARGET,)):
                found.update((f.urn, f) for f in fleets_by_target.get(target.urn, ()))
            return list(found.values())

        for scheduled in index.of_type(AWS_APPAS_SCHEDULED_ACTION):
            p = scheduled.props
            action = ScheduledAction(
                urn=scheduled.urn,
                name=scheduled.name,
                min_size=_int(get_ref(p, "scalableTargetAction.minCapacity")),
                max_size=_int(get_ref(p, "scalableTargetAction.maxCapacity")),
                desired=None,
                recurrence=_str(get_ref(p, "schedule")),
                timezone=_str(get_ref(p, "timezone")),
            )
            for fleet in fleets_of(scheduled):
                self.schedules[fleet.urn].append(action)
        for policy in index.of_type(AWS_APPAS_POLICY):
            signal = _appas_policy_signal(policy)
            for fleet in fleets_of(policy):
                self.signals[fleet.urn].append(signal)

    # Alibaba --------------------------------------------------------------------------------
    def _alicloud(self, index: ResourceIndex) -> None:
        alarms_by_rule: dict[str, list[Any]] = defaultdict(list)
        alarms_by_group: dict[str, list[Any]] = defaultdict(list)
        for alarm in index.of_type(ALI_ESS_ALARM):
            rules = index.refs(alarm, "alarmActions", (ALI_SCALING_RULE,))
            for rule in rules:
                alarms_by_rule[rule.urn].append(alarm)
            if not rules:
                for group in index.refs(alarm, "scalingGroupId", (ALI_SCALING_GROUP,)):
                    alarms_by_group[group.urn].append(alarm)
        for rule in index.of_type(ALI_SCALING_RULE):
            for group in index.refs(rule, "scalingGroupId", (ALI_SCALING_GROUP,)):
                self.signals[group.urn].extend(_ali_rule_signals(rule, alarms_by_rule.get(rule.urn, [])))
        for group_urn, alarms in alarms_by_group.items():
            self.signals[group_urn].extend(_ali_alarm_signal(alarm, None, None) for alarm in alarms)
        for task in index.of_type(ALI_SCHEDULED_TASK, ALI_SCHEDULE):
            p = task.props
            action = ScheduledAction(
                urn=task.urn,
                name=task.name,
                min_size=_int(get_ref(p, "minValue")),
                max_size=_int(get_ref(p, "maxValue")),
                desired=_int(get_ref(p, "desiredCapacity")),
                recurrence=_join(_str(get_ref(p, "recurrenceType")), _str(get_ref(p, "recurrenceValue"))),
                timezone="UTC",
            )
            groups = index.refs(task, "scalingGroupId", (ALI_SCALING_GROUP,))
            # A task that runs a scaling rule (scheduledAction = rule ARI) acts on that rule's group.
            for rule in index.refs(task, "scheduledAction", (ALI_SCALING_RULE,)):
                groups.extend(index.refs(rule, "scalingGroupId", (ALI_SCALING_GROUP,)))
                adjustment = _num(get_ref(rule.props, "adjustmentValue"))
                if _str(get_ref(rule.props, "adjustmentType")) == "TotalCapacity" and adjustment == 0:
                    action = ScheduledAction(action.urn, action.name, None, None, 0, action.recurrence, "UTC")
            for group in {g.urn: g for g in groups}.values():
                self.schedules[group.urn].append(action)

    # Tencent --------------------------------------------------------------------------------
    def _tencentcloud(self, index: ResourceIndex) -> None:
        for policy in index.of_type(TC_SCALING_POLICY):
            p = policy.props
            direction = _direction_of_adjustment(_num(get_ref(p, "adjustmentValue")))
            signal = ScalingSignal(
                urn=policy.urn,
                name=policy.name,
                kind="simple",
                direction=direction
                if direction != "unknown"
                else _direction_of_operator(get_ref(p, "comparisonOperator")),
                metric=_str(get_ref(p, "metricName")),
                threshold=_num(get_ref(p, "threshold")),
                period_s=_int(get_ref(p, "period")),
                evaluation_periods=_int(get_ref(p, "continuousTime")),
                cooldown_s=_int(get_ref(p, "cooldown")),
            )
            for group in index.refs(policy, "scalingGroupId", (TC_SCALING_GROUP,)):
                self.signals[group.urn].append(signal)
        for schedule in index.of_type(TC_SCHEDULE):
            p = schedule.props
            action = ScheduledAction(
                urn=schedule.urn,
                name=schedule.name,
                min_size=_int(get_ref(p, "minSize")),
                max_size=_int(get_ref(p, "maxSize")),
                desired=_int(get_ref(p, "desiredCapacity")),
                recurrence=_str(get_ref(p, "recurrence")),
                timezone=None,
            )
            for group in index.refs(schedule, "scalingGroupId", (TC_SCALING_GROUP,)):
                self.schedules[group.urn].append(action)
        policies_by_urn = {p.urn: p for p in index.of_type(TC_SCALING_POLICY)}
        for alarm in index.of_type(TC_ALARM_POLICY):
            groups: dict[str, Any] = {}
            policies: dict[str, Any] = {}
            for task in as_list(get_ref(alarm.props, "triggerTasks")):
                if not isinstance(task, Mapping) or str(get_ref(task, "type") or "").upper() != "AS":
                    continue
                config = _json(get_ref(task, "taskConfig"))
                for g in index.refs(
                    alarm, "triggerTasks", (TC_SCALING_GROUP,), value=config.get("Group", "")
                ):
                    groups[g.urn] = g
                for q in index.refs(
                    alarm, "triggerTasks", (TC_SCALING_POLICY,), value=config.get("Policy", "")
                ):
                    policies[q.urn] = q
            for q in policies.values():
                for g in index.refs(q, "scalingGroupId", (TC_SCALING_GROUP,)):
                    groups[g.urn] = g
            if not groups:
                continue
            direction = "unknown"
            cooldown = None
            fired: str | None = None
            for q in policies.values():
                direction = _direction_of_adjustment(_num(get_ref(q.props, "adjustmentValue")))
                cooldown = _int(get_ref(policies_by_urn[q.urn].props, "cooldown"))
                fired = q.name
            for rule in as_list(get_ref(alarm.props, "conditions.rules")):
                if not isinstance(rule, Mapping):
                    continue
                operator = get_ref(rule, "operator")
                signal = ScalingSignal(
                    urn=alarm.urn,
                    name=alarm.name,
                    kind="alarm",
                    direction=direction if direction != "unknown" else _direction_of_operator(operator),
                    metric=_str(get_ref(rule, "metricName")),
                    threshold=_num(get_ref(rule, "value")),
                    period_s=_int(get_ref(rule, "period")),
                    evaluation_periods=_int(get_ref(rule, "continuePeriod")),
                    cooldown_s=cooldown,
                    policy=fired,
                )
                for group in groups.values():
                    self.signals[group.urn].append(signal)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


# Attribute-based selection (`instanceRequirements.acceleratorNames`) names GPUs, not instance types:
# each name stands for the smallest current AWS type carrying that GPU, so the rules that judge GPU
# classes, spot shares and prices see the pool as the GPU pool it is.
_AWS_ACCELERATOR_TYPES = {
    "t4": "g4dn.xlarge",
    "t4g": "g5g.xlarge",
    "a10g": "g5.xlarge",
    "l4": "g6.xlarge",
    "l40s": "g6e.xlarge",
    "v100": "p3.2xlarge",
    "a100": "p4d.24xlarge",
    "h100": "p5.48xlarge",
    "h200": "p5e.48xlarge",
    "k80": "p2.xlarge",
    "m60": "g3s.xlarge",
}


def _asks_for_gpus(requirements: Any) -> bool:
    """`instanceRequirements.acceleratorTypes` includes "gpu" (an unknown list is not read as GPUs)."""
    if not isinstance(requirements, Mapping):
        return False
    return any(
        _str(t) and str(t).lower() == "gpu" for t in as_list(get_ref(requirements, "acceleratorTypes"))
    )


def _types_by_attributes(requirements: Any) -> list[str]:
    if not isinstance(requirements, Mapping):
        return []
    names = [_str(n) for n in as_list(get_ref(requirements, "acceleratorNames"))]
    return [_AWS_ACCELERATOR_TYPES[n.lower()] for n in names if n and n.lower() in _AWS_ACCELERATOR_TYPES]


def _instance_type(reader: _Reader, obj: Any, path: str) -> str | None:
    """`obj.instanceType` (an override, a launch specification, a launch template); an unknown type
    is recorded on the reader so that the rules judging instance types say it could not be judged."""
    value = get_ref(obj, "instanceType")
    if is_unknown(value):
        reader.unknown.setdefault("instance_types", (path, value))
        return None
    return _str(value)


def _instance_type_list(reader: _Reader, obj: Any, prop: str, path: str) -> list[str]:
    """The known types of a list (`instanceTypes` of a scaling configuration); an unknown list or
    element is recorded on the reader like `_instance_type` records an unknown single type."""
    value = get_ref(obj, prop)
    if is_unknown(value):
        reader.unknown.setdefault("instance_types", (path, value))
        return []
    found = []
    for item in as_list(value):
        if is_unknown(item):
            reader.unknown.setdefault("instance_types", (path, item))
        elif isinstance(item, str) and item:
            found.append(item)
    return found


def _template_types(reader: _Reader, templates: Iterable[Any]) -> list[str]:
    """The instance types launch templates name, in order."""
    return [t for lt in templates if (t := _instance_type(reader, lt.props, f"{lt.name}.instanceType"))]


def _override_types(reader: _Reader, obj: Any, prop: str, path: str) -> list[str]:
    """The instance types of a list of overrides (`overrides`, `instanceTypeOverrides`)."""
    return [t for o in as_list(get_ref(obj, prop)) if (t := _instance_type(reader, o, path))]


def _join(*parts: str | None) -> str | None:
    given = [p for p in parts if p]
    return " ".join(given) if given else None


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str) and not is_unknown(value):
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _spot_fleet_dimension(resource: Any) -> bool:
    """True unless the Application Auto Scaling resource names another dimension (an unknown one may
    still be the fleet's: the join by resourceId decides)."""
    dimension = get_ref(resource.props, "scalableDimension")
    return not isinstance(dimension, str) or is_unknown(dimension) or dimension == SPOT_FLEET_DIMENSION


def _appas_policy_signal(policy: Any) -> ScalingSignal:
    p = policy.props
    if (_str(get_ref(p, "policyType")) or "StepScaling") == "TargetTrackingScaling":
        config = "targetTrackingScalingPolicyConfiguration"
        disable_in = get_ref(p, f"{config}.disableScaleIn")
        metric = _str(get_ref(p, f"{config}.predefinedMetricSpecification.predefinedMetricType")) or _str(
            get_ref(p, f"{config}.customizedMetricSpecification.metricName")
        )
        return ScalingSignal(
            urn=policy.urn,
            name=policy.name,
            kind="target",
            direction="out" if disable_in is not None and truthy(disable_in) else "both",
            metric=metric,
            threshold=_num(get_ref(p, f"{config}.targetValue")),
        )
    config = "stepScalingPolicyConfiguration"
    adjustments = [
        _num(get_ref(step, "scalingAdjustment")) for step in as_list(get_ref(p, f"{config}.stepAdjustments"))
    ]
    signs = {_direction_of_adjustment(a) for a in adjustments} - {"unknown"}
    direction = signs.pop() if len(signs) == 1 else ("both" if signs else "unknown")
    return ScalingSignal(
        urn=policy.urn,
        name=policy.name,
        kind="step",
        direction=direction,
        cooldown_s=_int(get_ref(p, f"{config}.cooldown")),
    )


def _direction_of_adjustment(adjustment: float | None) -> str:
    if adjustment is None:
        return "unknown"
    if adjustment > 0:
        return "out"
    if adjustment < 0:
        return "in"
    return "unknown"


def _direction_of_operator(operator: Any) -> str:
    text = str(operator or "").strip().lower().replace("_", "")
    if text.startswith(("greater", ">", "gt", "ge")):
        return "out"
    if text.startswith(("less", "<", "lt", "le")):
        return "in"
    return "unknown"


def _aws_policy_signals(policy: Any, alarms: list[Any]) -> list[ScalingSignal]:
    p = policy.props
    policy_type = _str(get_ref(p, "policyType")) or "SimpleScaling"
    # Only the setting that paces the policy decides: a step policy's warm-up, a simple one's cooldown.
    decisive = (
        {"warmup_s": "estimatedInstanceWarmup"}
        if policy_type == "StepScaling"
        else {"cooldown_s": "cooldown"}
    )
    policy_unknown = _unknowns(policy, decisive)
    cooldown = _int(get_ref(p, "cooldown"))
    warmup = _int(get_ref(p, "estimatedInstanceWarmup"))
    if policy_type == "TargetTrackingScaling":
        disable_in = get_ref(p, "targetTrackingConfiguration.disableScaleIn")
        metric = _str(
            get_ref(p, "targetTrackingConfiguration.predefinedMetricSpecification.predefinedMetricType")
        )
        metric = metric or _str(
            get_ref(p, "targetTrackingConfiguration.customizedMetricSpecification.metricName")
        )
        if metric is None:
            for query in as_list(
                get_ref(p, "targetTrackingConfiguration.customizedMetricSpecification.metrics")
            ):
                metric = metric or _str(get_ref(query, "metricStat.metric.metricName"))
        return [
            ScalingSignal(
                urn=policy.urn,
                name=policy.name,
                kind="target",
                direction="out" if disable_in is not None and truthy(disable_in) else "both",
                metric=metric,
                threshold=_num(get_ref(p, "targetTrackingConfiguration.targetValue")),
                cooldown_s=warmup,
            )
        ]
    if policy_type == "PredictiveScaling":
        return [ScalingSignal(urn=policy.urn, name=policy.name, kind="predictive", direction="out")]
    if policy_type == "StepScaling":
        adjustments = [_num(get_ref(s, "scalingAdjustment")) for s in as_list(get_ref(p, "stepAdjustments"))]
        signs = {_direction_of_adjustment(a) for a in adjustments} - {"unknown"}
        direction = signs.pop() if len(signs) == 1 else ("both" if signs else "unknown")
        kind, policy_cooldown, setting, takes_cooldown = "step", None, "estimatedInstanceWarmup", False
    else:
        direction = _direction_of_adjustment(_num(get_ref(p, "scalingAdjustment")))
        kind, policy_cooldown, setting, takes_cooldown = "simple", cooldown, "cooldown", True
    if not alarms:
        return [
            ScalingSignal(
                urn=policy.urn,
                name=policy.name,
                kind=kind,
                direction=direction,
                cooldown_s=policy_cooldown,
                cooldown_setting=setting,
                takes_cooldown=takes_cooldown,
                warmup_s=warmup,
            )
        ]
    signals = []
    for alarm in alarms:
        a = alarm.props
        period = _int(get_ref(a, "period"))
        if period is None:
            for query in as_list(get_ref(a, "metricQueries")):
                period = period or _int(get_ref(query, "metric.period")) or _int(get_ref(query, "period"))
        metric = _str(get_ref(a, "metricName"))
        if metric is None:
            for query in as_list(get_ref(a, "metricQueries")):
                metric = (
                    metric or _str(get_ref(query, "metric.metricName")) or _str(get_ref(query, "expression"))
                )
        signals.append(
            ScalingSignal(
                urn=alarm.urn,
                name=alarm.name,
                kind=kind,
                direction=direction
                if direction != "unknown"
                else _direction_of_operator(get_ref(a, "comparisonOperator")),
                metric=metric,
                threshold=_num(get_ref(a, "threshold")),
                period_s=period,
                evaluation_periods=_int(get_ref(a, "evaluationPeriods")),
                cooldown_s=policy_cooldown,
                policy=policy.name,
                cooldown_setting=setting,
                takes_cooldown=takes_cooldown,
                warmup_s=warmup,
                unknown={
                    **policy_unknown,
                    **_unknowns(
                        alarm,
                        {"threshold": "threshold", "period_s": "period", "evaluations": "evaluationPeriods"},
                    ),
                },
            )
        )
    return signals


def _unknowns(resource: Any, paths: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The decisive values of `resource` (field -> wire path) that are unknown at preview."""
    found = {}
    for attribute, path in paths.items():
        value = get_ref(resource.props, path)
        if is_unknown(value):
            found[attribute] = (f"{resource.name}.{path}", value)
    return found


def _ali_rule_signals(rule: Any, alarms: list[Any]) -> list[ScalingSignal]:
    p = rule.props
    rule_type = _str(get_ref(p, "scalingRuleType")) or "SimpleScalingRule"
    cooldown = _int(get_ref(p, "cooldown"))
    if rule_type == "TargetTrackingScalingRule":
        disable_in = get_ref(p, "disableScaleIn")
        return [
            ScalingSignal(
                urn=rule.urn,
                name=rule.name,
                kind="target",
                direction="out" if disable_in is not None and truthy(disable_in) else "both",
                metric=_str(get_ref(p, "metricName")),
                threshold=_num(get_ref(p, "targetValue")),
                cooldown_s=_int(get_ref(p, "estimatedInstanceWarmup")),
            )
        ]
    if rule_type == "PredictiveScalingRule":
        return [ScalingSignal(urn=rule.urn, name=rule.name, kind="predictive", direction="out")]
    if rule_type == "StepScalingRule":
        adjustments = [_num(get_ref(s, "scalingAdjustment")) for s in as_list(get_ref(p, "stepAdjustments"))]
        signs = {_direction_of_adjustment(a) for a in adjustments} - {"unknown"}
        direction = signs.pop() if len(signs) == 1 else ("both" if signs else "unknown")
        kind = "step"
    else:
        direction = _direction_of_adjustment(_num(get_ref(p, "adjustmentValue")))
        if _str(get_ref(p, "adjustmentType")) == "TotalCapacity":
            direction = "unknown"
        kind = "simple"
    if not alarms:
        return [
            ScalingSignal(
                urn=rule.urn,
                name=rule.name,
                kind=kind,
                direction=direction,
                cooldown_s=cooldown,
                automatic=False,
            )
        ]
    return [_ali_alarm_signal(alarm, direction, cooldown, kind, rule.name) for alarm in alarms]


def _ali_alarm_signal(
    alarm: Any, direction: str | None, cooldown: int | None, kind: str = "alarm", rule: str | None = None
) -> ScalingSignal:
    a = alarm.props
    if direction in (None, "unknown"):
        direction = _direction_of_operator(get_ref(a, "comparisonOperator"))
    # ESS alarm task defaults: period 300 s, 3 evaluations.
    period = _int(get_ref(a, "period"))
    count = _int(get_ref(a, "evaluationCount"))
    return ScalingSignal(
        urn=alarm.urn,
        name=alarm.name,
        kind=kind,
        direction=direction,
        metric=_str(get_ref(a, "metricName")),
        threshold=_num(get_ref(a, "threshold")),
        period_s=300 if period is None else period,
        evaluation_periods=3 if count is None else count,
        cooldown_s=cooldown,
        policy=rule,
    )


# --- pool builders -------------------------------------------------------------------------------
def _pool(
    resource: Any,
    reader: _Reader,
    attachments: _Attachments,
    stack_tags: Mapping[str, str],
    **values: Any,
) -> Pool:
    values.setdefault("on_demand_base", 0)
    return Pool(
        cloud=cloud_of(resource.resource_type),
        resource_type=resource.resource_type,
        urn=resource.urn,
        name=resource.name,
        region=resource_region(resource.props, resource.provider),
        env=environment(resource.resource_type, resource.props, resource.urn, stack_tags),
        scaling=tuple(attachments.signals.get(resource.urn, ())),
        schedules=tuple(attachments.schedules.get(resource.urn, ())),
        unknown=dict(reader.unknown),
        **values,
    )


def _spot_share(size: int | None, base: int, on_demand_percent: float) -> float:
    """Percent of capacity on spot at `size`, given an on-demand base and a percentage above it."""
    if size is None or size <= 0:
        return 0.0 if base > 0 else 100.0 - on_demand_percent
    on_demand_base = min(base, size)
    above = size - on_demand_base
    spot = above * (100.0 - on_demand_percent) / 100.0
    return round(spot * 100.0 / size, 2)


def _aws_launch_template(index: ResourceIndex, resource: Any, prop: str, spec: Any) -> list[Any]:
    if not isinstance(spec, Mapping):
        return index.refs(resource, prop, (AWS_LAUNCH_TEMPLATE,))
    values = [get_ref(spec, key) for key in ("id", "name", "launchTemplateId", "launchTemplateName")]
    found: dict[str, Any] = {}
    for value in values:
        for lt in index.refs(
            resource, prop, (AWS_LAUNCH_TEMPLATE,), value=value if value is not None else ""
        ):
            found[lt.urn] = lt
    return list(found.values())


def _lt_spot(lt: Any) -> bool:
    market = get_ref(lt.props, "instanceMarketOptions.marketType")
    return isinstance(market, str) and market.lower() == "spot"


def _build_aws_asg(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    min_size = r.integer("minSize", "min_size")
    max_size = r.integer("maxSize", "max_size")
    desired = r.integer("desiredCapacity", "desired")
    instance_types: list[str] = []
    spot: float | None = 0.0
    base = 0
    role_refs: list[str] = []
    gpus_by_attributes = False
    mip = get_ref(resource.props, "mixedInstancesPolicy")
    if isinstance(mip, Mapping):
        base = (
            r.integer("mixedInstancesPolicy.instancesDistribution.onDemandBaseCapacity", "spot_percent") or 0
        )
        pct = r.number(
            "mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity", "spot_percent"
        )
        on_demand_pct = 100.0 if pct is None else pct
        lts = _aws_launch_template(
            index,
            resource,
            "mixedInstancesPolicy",
            get_ref(mip, "launchTemplate.launchTemplateSpecification"),
        )
        for override in as_list(get_ref(mip, "launchTemplate.overrides")):
            t = _instance_type(r, override, "mixedInstancesPolicy.launchTemplate.overrides.instanceType")
            if t:
                instance_types.append(t)
            requirements = get_ref(override, "instanceRequirements")
            named = _types_by_attributes(requirements)
            instance_types.extend(named)
            gpus_by_attributes = gpus_by_attributes or (not named and _asks_for_gpus(requirements))
            spec = get_ref(override, "launchTemplateSpecification")
            if isinstance(spec, Mapping):
                lts.extend(_aws_launch_template(index, resource, "mixedInstancesPolicy", spec))
        if not instance_types:
            instance_types = _template_types(r, lts)
        spot = _spot_share(max_size, base, on_demand_pct)
        role_refs.extend(lt.urn for lt in lts)
    elif get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        instance_types = _template_types(r, lts)
        spot = 100.0 if lts and all(_lt_spot(lt) for lt in lts) else 0.0
        role_refs.extend(lt.urn for lt in lts)
    else:
        lcs = index.refs(resource, "launchConfiguration", (AWS_LAUNCH_CONFIGURATION,))
        for lc in lcs:
            t = _str(get_ref(lc.props, "instanceType"))
            if t:
                instance_types.append(t)
        spot = 100.0 if lcs and all(get_ref(lc.props, "spotPrice") not in (None, "") for lc in lcs) else 0.0
        role_refs.extend(lc.urn for lc in lcs)
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=min_size,
        max_size=max_size,
        desired=desired,
        spot_percent=spot,
        on_demand_base=base,
        default_cooldown_s=r.integer("defaultCooldown"),
        default_instance_warmup_s=r.integer("defaultInstanceWarmup"),
        scalable=True,
        role_refs=tuple(role_refs),
        gpu_class_unknown=gpus_by_attributes,
    )


def _standalone_pool(
    resource: Any,
    reader: _Reader,
    attachments: _Attachments,
    stack_tags: Mapping[str, str],
    *,
    instance_types: Sequence[str],
    count: int,
    spot: bool,
    role_refs: tuple[str, ...],
) -> Pool:
    """`count` standalone instances of one resource, all spot or all on-demand."""
    return _pool(
        resource,
        reader,
        attachments,
        stack_tags,
        instance_types=tuple(instance_types),
        min_size=count,
        max_size=count,
        desired=count,
        spot_percent=100.0 if spot else 0.0,
        on_demand_base=0 if spot else count,
        role_refs=role_refs,
    )


def _build_aws_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    instance_types = [t for t in [r.string("instanceType")] if t]
    lts = []
    if get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        if not instance_types:
            instance_types = _template_types(r, lts)
    market = r.string("instanceMarketOptions.marketType")
    spot = resource.resource_type == AWS_SPOT_REQUEST or (market or "").lower() == "spot"
    if not spot and lts and all(_lt_spot(lt) for lt in lts):
        spot = True
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=instance_types,
        count=1,
        spot=spot,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _fleet_templates(resource: Any, index: ResourceIndex, r: _Reader) -> tuple[list[Any], list[str]]:
    """The launch templates and override instance types of a fleet's `launchTemplateConfigs`."""
    lts: list[Any] = []
    instance_types: list[str] = []
    for config in as_list(get_ref(resource.props, "launchTemplateConfigs")):
        spec = get_ref(config, "launchTemplateSpecification")
        lts.extend(_aws_launch_template(index, resource, "launchTemplateConfigs", spec))
        instance_types.extend(
            _override_types(r, config, "overrides", "launchTemplateConfigs.overrides.instanceType")
        )
    return lts, instance_types


def _build_aws_spot_fleet(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    target = r.integer("targetCapacity", "max_size")
    on_demand = r.integer("onDemandTargetCapacity", "spot_percent") or 0
    # Application Auto Scaling may grow the fleet up to its scalable target's maxCapacity.
    maximum = target
    for target_name, capacity in attachments.fleet_max_capacity.get(resource.urn, ()):
        if is_unknown(capacity):
            r.unknown.setdefault("max_size", (f"{target_name}.maxCapacity", capacity))
        elif (number := _int(capacity)) is not None and (maximum is None or number > maximum):
            maximum = number
    instance_types = _override_types(
        r, resource.props, "launchSpecifications", "launchSpecifications.instanceType"
    )
    lts, override_types = _fleet_templates(resource, index, r)
    instance_types = [*instance_types, *override_types] or _template_types(r, lts)
    spot = (
        None
        if target is None
        else (0.0 if target == 0 else round((target - min(on_demand, target)) * 100.0 / target, 2))
    )
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=target,
        max_size=maximum,
        desired=target,
        spot_percent=spot,
        on_demand_base=on_demand,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _build_aws_fleet(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    total = r.integer("targetCapacitySpecification.totalTargetCapacity", "max_size")
    on_demand = r.integer("targetCapacitySpecification.onDemandTargetCapacity", "spot_percent")
    spot_count = r.integer("targetCapacitySpecification.spotTargetCapacity", "spot_percent")
    default_type = (r.string("targetCapacitySpecification.defaultTargetCapacityType") or "on-demand").lower()
    lts, instance_types = _fleet_templates(resource, index, r)
    instance_types = instance_types or _template_types(r, lts)
    spot: float | None = None
    if total:
        if spot_count is not None:
            spot_n = spot_count
        elif on_demand is not None:
            spot_n = total - on_demand
        else:
            spot_n = total if default_type == "spot" else 0
        spot = round(max(0, min(spot_n, total)) * 100.0 / total, 2)
    elif total == 0:
        spot = 0.0
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=total,
        max_size=total,
        desired=total,
        spot_percent=spot,
        on_demand_base=on_demand or 0,
        role_refs=(resource.urn, *(lt.urn for lt in lts)),
    )


def _build_aws_node_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    instance_types = r.strings("instanceTypes", "instance_types")
    lts: list[Any] = []
    if get_ref(resource.props, "launchTemplate") is not None:
        lts = _aws_launch_template(
            index, resource, "launchTemplate", get_ref(resource.props, "launchTemplate")
        )
        if not instance_types:
            instance_types = _template_types(r, lts)
    if not instance_types and get_ref(resource.props, "launchTemplate") is None:
        instance_types = ["t3.medium"]  # EKS's default node type
    capacity = (r.string("capacityType") or "ON_DEMAND").upper()
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(instance_types),
        min_size=r.integer("scalingConfig.minSize", "min_size"),
        max_size=r.integer("scalingConfig.maxSize", "max_size"),
        desired=r.integer("scalingConfig.desiredSize", "desired"),
        spot_percent=100.0 if capacity == "SPOT" else 0.0,
        scalable=True,
        role_refs=(resource.urn,),
    )


def _ali_spot(strategy: Any) -> bool:
    return isinstance(strategy, str) and strategy in ("SpotAsPriceGo", "SpotWithPriceLimit")


def _build_ali_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    max_size = r.integer("maxSize", "max_size")
    configs = attachments.ali_configs.get(resource.urn, [])
    templates = index.refs(resource, "launchTemplateId", ALI_LAUNCH_TEMPLATES)
    instance_types: list[str] = []
    sources_spot: list[bool] = []
    for source in (*configs, *templates):
        single = _instance_type(r, source.props, f"{source.name}.instanceType")
        if single:
            instance_types.append(single)
        instance_types.extend(
            _instance_type_list(r, source.props, "instanceTypes", f"{source.name}.instanceTypes")
        )
        instance_types.extend(
            _override_types(
                r, source.props, "instanceTypeOverrides", f"{source.name}.instanceTypeOverrides.instanceType"
            )
        )
        strategy = get_ref(source.props, "spotStrategy")
        if is_unknown(strategy):
            r.unknown.setdefault("spot_percent", (f"{source.name}.spotStrategy", strategy))
        sources_spot.append(_ali_spot(strategy))
    instance_types.extend(
        _override_types(r, resource.props, "launchTemplateOverrides", "launchTemplateOverrides.instanceType")
    )
    policy = (r.string("multiAzPolicy") or "PRIORITY").upper()
    base = 0
    if policy in ("COST_OPTIMIZED", "COMPOSABLE"):
        base = (
            r.integer("onDemandBaseCapacity", "spot_percent")
            or r.integer("capacityOptionsOnDemandBaseCapacity")
            or 0
        )
        pct = r.number("onDemandPercentageAboveBaseCapacity", "spot_percent")
        if pct is None:
            pct = r.number("capacityOptionsOnDemandPercentageAboveBaseCapacity", "spot_percent")
        spot = _spot_share(max_size, base, 100.0 if pct is None else pct)
        # The percentages split capacity only when the configuration asks for spot at all
        # (spotStrategy); a NoSpot configuration launches on-demand whatever the split says.
        if sources_spot and not any(sources_spot):
            spot = 0.0
    else:
        spot = 100.0 if sources_spot and all(sources_spot) else 0.0
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=r.integer("minSize", "min_size"),
        max_size=max_size,
        desired=r.integer("desiredCapacity", "desired"),
        spot_percent=spot,
        on_demand_base=base,
        default_cooldown_s=r.integer("defaultCooldown"),
        scalable=True,
        role_refs=tuple(source.urn for source in (*configs, *templates)),
    )


def _build_ali_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    count = 1
    if resource.resource_type == ALI_INSTANCE_SET:
        count = r.integer("amount", "max_size") or 1
    spot = _ali_spot(r.value("spotStrategy", "spot_percent"))
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=[t for t in [r.string("instanceType")] if t],
        count=count,
        spot=spot,
        role_refs=(resource.urn,),
    )


def _build_tc_group(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    configs = index.refs(resource, "configurationId", (TC_SCALING_CONFIG,))
    instance_types: list[str] = []
    spots: list[bool] = []
    for config in configs:
        instance_types.extend(
            _instance_type_list(r, config.props, "instanceTypes", f"{config.name}.instanceTypes")
        )
        charge = get_ref(config.props, "instanceChargeType")
        if is_unknown(charge):
            r.unknown.setdefault("spot_percent", (f"{config.name}.instanceChargeType", charge))
        spots.append(str(charge or "").upper() == "SPOTPAID")
    return _pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=tuple(dict.fromkeys(instance_types)),
        min_size=r.integer("minSize", "min_size"),
        max_size=r.integer("maxSize", "max_size"),
        desired=r.integer("desiredCapacity", "desired"),
        spot_percent=100.0 if spots and all(spots) else 0.0,
        default_cooldown_s=r.integer("defaultCooldown"),
        scalable=True,
        role_refs=tuple(c.urn for c in configs),
    )


def _build_tc_instance(
    resource: Any, index: ResourceIndex, attachments: _Attachments, stack_tags: Mapping[str, str]
) -> Pool:
    r = _Reader(resource.props)
    spot = str(r.value("instanceChargeType", "spot_percent") or "").upper() == "SPOTPAID"
    return _standalone_pool(
        resource,
        r,
        attachments,
        stack_tags,
        instance_types=[t for t in [r.string("instanceType")] if t],
        count=1,
        spot=spot,
        role_refs=(resource.urn,),
    )


_BUILDERS = {
    AWS_ASG: _build_aws_asg,
    AWS_INSTANCE: _build_aws_instance,
    AWS_SPOT_REQUEST: _build_aws_instance,
    AWS_SPOT_FLEET: _build_aws_spot_fleet,
    AWS_FLEET: _build_aws_fleet,
    AWS_EKS_NODE_GROUP: _build_aws_node_group,
    ALI_SCALING_GROUP: _build_ali_group,
    ALI_INSTANCE: _build_ali_instance,
    ALI_INSTANCE_SET: _build_ali_instance,
    TC_SCALING_GROUP: _build_tc_group,
    TC_INSTANCE: _build_tc_instance,
}


# --- pricing -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PriceLine:
    """One pool's contribution to the envelope, for messages and reports."""

    pool: str
    instance_type: str
    region: str | None
    count_min: int
    count_max: int
    hourly_each: float
    currency: str
    note: str = ""

    def render(self) -> str:
        where = self.region or "region unknown"
        extra = f", {self.note}" if self.note else ""
        return (
            f"{self.pool}: {self.count_max} x {self.instance_type} ({where}) at "
            f"{self.hourly_each:.2f} {self.currency}/h{extra}"
        )


@dataclass(frozen=True)
class Envelope:
    min_hourly: float
    max_hourly: float
    currency: str
    lines: tuple[PriceLine, ...]
    unpriced: tuple[str, ...]  # "pool: type" that the catalogue could not price


def _on_demand_price(
    catalog: CatalogLike, cloud: str, instance_type: str, region: str | None
) -> tuple[float, str, str] | None:
    found = catalog.find(cloud, instance_type)
    if found is None:
        return None
    if region and region in found.on_demand:
        price = found.hourly(region, spot=False)
        return float(price.amount), str(price.currency), ""
    # Region unknown or unlisted: the worst case takes the highest listed regional price.
    best: tuple[float, str, str] | None = None
    for listed_region in found.on_demand:
        price = found.hourly(listed_region, spot=False)
        if best is None or float(price.amount) > best[0]:
            best = (float(price.amount), str(price.currency), f"highest listed price ({listed_region})")
    return best


def hourly_envelope(pools: Iterable[Pool], catalog: CatalogLike | None, currency: str = "USD") -> Envelope:
    """Hourly spend at min size and at max size, every instance at its on-demand price.

    A pool of several instance types is priced at its most expensive type (the worst case a
    mixed-instances policy can reach). Prices in other currencies are converted with the catalogue.
    """
    lines: list[PriceLine] = []
    unpriced: list[str] = []
    low = high = 0.0
    for pool in pools:
        best: tuple[float, str, str, str] | None = None
        for instance_type in pool.instance_types:
            priced = _on_demand_price(catalog, pool.cloud, instance_type, pool.region) if catalog else None
            if priced is None:
                unpriced.append(f"{pool.name}: {instance_type}")
                continue
            amount, price_currency, note = priced
            if price_currency != currency and catalog is not None:
                amount = catalog.convert(amount, price_currency, currency)
            if best is None or amount > best[0]:
                best = (amount, instance_type, note, price_currency)
        if not pool.instance_types:
            unpriced.append(f"{pool.name}: instance type unknown")
        if best is None:
            continue
        count_min = pool.min_size or 0
        count_max = pool.max_size if pool.max_size is not None else count_min
        lines.append(
            PriceLine(pool.name, best[1], pool.region, count_min, count_max, best[0], currency, best[2])
        )
        low += best[0] * count_min
        high += best[0] * count_max
    return Envelope(round(low, 4), round(high, 4), currency, tuple(lines), tuple(unpriced))


def monthly_estimate(envelope: Envelope) -> float:
    """The committed floor: every pool at its minimum size around the clock (730 h a month)."""
    return round(envelope.min_hourly * HOURS_PER_MONTH, 2)


def unknown_number(path: str) -> UnknownValueError:
    return UnknownValueError(UNKNOWN_NUMBER_VALUE, [path])
