"""What attaches to a pool: scaling policies, alarms and schedules on each cloud, grouped by the pool
URN they act on (built once per stack)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import ScalingSignal, ScheduledAction
from gpufleet.policies.cost.pools.reading import _int, _join, _json, _num, _str
from gpufleet.policies.cost.pools.scaling import (
    _ali_alarm_signal,
    _ali_rule_signals,
    _appas_policy_signal,
    _aws_policy_signals,
    _direction_of_adjustment,
    _direction_of_operator,
    _spot_fleet_dimension,
)
from gpufleet.policies.cost.pools.tokens import (
    ALI_ESS_ALARM,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
    ALI_SCHEDULE,
    ALI_SCHEDULED_TASK,
    AWS_APPAS_POLICY,
    AWS_APPAS_SCHEDULED_ACTION,
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_ASG_SCHEDULE,
    AWS_EKS_NODE_GROUP,
    AWS_METRIC_ALARM,
    AWS_SPOT_FLEET,
    TC_ALARM_POLICY,
    TC_SCALING_GROUP,
    TC_SCALING_POLICY,
    TC_SCHEDULE,
)
from gpufleet.policies.props import as_list, get_ref

# The (min, max, desired) size paths of an AWS Auto Scaling or Tencent AS scheduled action.
_GROUP_SIZES = ("minSize", "maxSize", "desiredCapacity")


def _scheduled_action(
    resource: Any,
    sizes: tuple[str | None, str | None, str | None],
    recurrence: str | None,
    timezone: str | None,
) -> ScheduledAction:
    """A scheduled action read from the wire paths of its (min, max, desired) sizes; None where the
    cloud's action has no such size."""
    min_size, max_size, desired = (_int(get_ref(resource.props, path)) if path else None for path in sizes)
    return ScheduledAction(resource.urn, resource.name, min_size, max_size, desired, recurrence, timezone)


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
            action = _scheduled_action(
                schedule, _GROUP_SIZES, _str(get_ref(p, "recurrence")), _str(get_ref(p, "timeZone"))
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
            action = _scheduled_action(
                scheduled,
                ("scalableTargetAction.minCapacity", "scalableTargetAction.maxCapacity", None),
                _str(get_ref(p, "schedule")),
                _str(get_ref(p, "timezone")),
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
            action = _scheduled_action(
                task,
                ("minValue", "maxValue", "desiredCapacity"),
                _join(_str(get_ref(p, "recurrenceType")), _str(get_ref(p, "recurrenceValue"))),
                "UTC",
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
            signal = _tc_policy_signal(policy)
            for group in index.refs(policy, "scalingGroupId", (TC_SCALING_GROUP,)):
                self.signals[group.urn].append(signal)
        for schedule in index.of_type(TC_SCHEDULE):
            p = schedule.props
            action = _scheduled_action(schedule, _GROUP_SIZES, _str(get_ref(p, "recurrence")), None)
            for group in index.refs(schedule, "scalingGroupId", (TC_SCALING_GROUP,)):
                self.schedules[group.urn].append(action)
        for alarm in index.of_type(TC_ALARM_POLICY):
            groups, policies = _tc_alarm_targets(index, alarm)
            if not groups:
                continue
            for signal in _tc_alarm_signals(alarm, policies):
                for group in groups:
                    self.signals[group.urn].append(signal)


def _tc_policy_signal(policy: Any) -> ScalingSignal:
    """A Tencent AS scaling policy: its direction from its adjustment, else from its comparison."""
    p = policy.props
    direction = _direction_of_adjustment(_num(get_ref(p, "adjustmentValue")))
    return ScalingSignal(
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


def _tc_alarm_targets(index: ResourceIndex, alarm: Any) -> tuple[list[Any], list[Any]]:
    """The scaling groups and policies a Tencent alarm policy's AS trigger tasks name; a policy's own
    group counts as a target too."""
    groups: dict[str, Any] = {}
    policies: dict[str, Any] = {}
    for task in as_list(get_ref(alarm.props, "triggerTasks")):
        if not isinstance(task, Mapping) or str(get_ref(task, "type") or "").upper() != "AS":
            continue
        config = _json(get_ref(task, "taskConfig"))
        for g in index.refs(alarm, "triggerTasks", (TC_SCALING_GROUP,), value=config.get("Group", "")):
            groups[g.urn] = g
        for q in index.refs(alarm, "triggerTasks", (TC_SCALING_POLICY,), value=config.get("Policy", "")):
            policies[q.urn] = q
    for q in policies.values():
        for g in index.refs(q, "scalingGroupId", (TC_SCALING_GROUP,)):
            groups[g.urn] = g
    return list(groups.values()), list(policies.values())


def _tc_alarm_signals(alarm: Any, policies: list[Any]) -> list[ScalingSignal]:
    """One signal per condition rule of a Tencent alarm policy; the direction and cooldown are those of
    the last scaling policy it fires, the direction else from the rule's operator."""
    direction = "unknown"
    cooldown = None
    fired: str | None = None
    for q in policies:
        direction = _direction_of_adjustment(_num(get_ref(q.props, "adjustmentValue")))
        cooldown = _int(get_ref(q.props, "cooldown"))
        fired = q.name
    signals = []
    for rule in as_list(get_ref(alarm.props, "conditions.rules")):
        if not isinstance(rule, Mapping):
            continue
        operator = get_ref(rule, "operator")
        signals.append(
            ScalingSignal(
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
        )
    return signals
