"""Tencent Cloud scaling: AS scaling policies and scheduled actions, and Monitor alarm policies whose
AS trigger tasks fire them, read as `ScalingSignal`s and `ScheduledAction`s and joined to their
scaling groups (:func:`attach`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.attachments import _GROUP_SIZES, _Attachments, _scheduled_action
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import ScalingSignal
from gpufleet.policies.cost.pools.reading import _int, _json, _num, _str
from gpufleet.policies.cost.pools.scaling import _direction_of_adjustment, _direction_of_operator
from gpufleet.policies.cost.pools.tokens.tencentcloud import (
    TC_ALARM_POLICY,
    TC_SCALING_GROUP,
    TC_SCALING_POLICY,
    TC_SCHEDULE,
)
from gpufleet.policies.props import as_list, get_ref


def attach(found: _Attachments, index: ResourceIndex) -> None:
    """Fill ``found`` with the stack's AS scaling policies, scheduled actions and the Monitor alarm
    policies whose AS trigger tasks name a scaling group or policy, by scaling group."""
    for policy in index.of_type(TC_SCALING_POLICY):
        signal = _tc_policy_signal(policy)
        for group in index.refs(policy, "scalingGroupId", (TC_SCALING_GROUP,)):
            found.signals[group.urn].append(signal)
    for schedule in index.of_type(TC_SCHEDULE):
        p = schedule.props
        action = _scheduled_action(schedule, _GROUP_SIZES, _str(get_ref(p, "recurrence")), None)
        for group in index.refs(schedule, "scalingGroupId", (TC_SCALING_GROUP,)):
            found.schedules[group.urn].append(action)
    for alarm in index.of_type(TC_ALARM_POLICY):
        groups, policies = _tc_alarm_targets(index, alarm)
        if not groups:
            continue
        for signal in _tc_alarm_signals(alarm, policies):
            for group in groups:
                found.signals[group.urn].append(signal)


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
