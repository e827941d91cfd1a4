"""Alibaba Cloud scaling: ESS scaling rules with the alarm tasks that run them and ESS scheduled tasks,
read as `ScalingSignal`s and `ScheduledAction`s and joined to their scaling groups (:func:`attach`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from gpufleet.policies.cost.pools.attachments import _Attachments, _scheduled_action
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import ScalingSignal, ScheduledAction
from gpufleet.policies.cost.pools.reading import _int, _join, _num, _str
from gpufleet.policies.cost.pools.scaling import (
    _direction_of_adjustment,
    _direction_of_operator,
    _direction_of_steps,
    _direction_of_target,
)
from gpufleet.policies.cost.pools.tokens.alicloud import (
    ALI_ESS_ALARM,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
    ALI_SCHEDULE,
    ALI_SCHEDULED_TASK,
)
from gpufleet.policies.props import get_ref


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
                direction=_direction_of_target(disable_in),
                metric=_str(get_ref(p, "metricName")),
                threshold=_num(get_ref(p, "targetValue")),
                cooldown_s=_int(get_ref(p, "estimatedInstanceWarmup")),
            )
        ]
    if rule_type == "PredictiveScalingRule":
        return [ScalingSignal(urn=rule.urn, name=rule.name, kind="predictive", direction="out")]
    if rule_type == "StepScalingRule":
        direction = _direction_of_steps(get_ref(p, "stepAdjustments"))
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


def attach(found: _Attachments, index: ResourceIndex) -> None:
    """Fill ``found`` with the stack's ESS scaling configurations, scaling rules (with the alarm tasks
    that run them) and scheduled tasks by scaling group."""
    for config in index.of_type(ALI_SCALING_CONFIGURATION):
        for group in index.refs(config, "scalingGroupId", (ALI_SCALING_GROUP,)):
            found.ali_configs[group.urn].append(config)
    _rules(found, index)
    _scheduled_tasks(found, index)


def _rules(found: _Attachments, index: ResourceIndex) -> None:
    """The scaling rules' signals, and those of alarm tasks that run no rule, by scaling group."""
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
            found.signals[group.urn].extend(_ali_rule_signals(rule, alarms_by_rule.get(rule.urn, [])))
    for group_urn, alarms in alarms_by_group.items():
        found.signals[group_urn].extend(_ali_alarm_signal(alarm, None, None) for alarm in alarms)


def _scheduled_tasks(found: _Attachments, index: ResourceIndex) -> None:
    """The scheduled tasks by the scaling group they act on (directly or through a rule they run)."""
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
            found.schedules[group.urn].append(action)
