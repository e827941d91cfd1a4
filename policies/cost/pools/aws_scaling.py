"""AWS scaling: Auto Scaling policies with the CloudWatch alarms that fire them, scheduled actions, and
the Application Auto Scaling targets, scheduled actions and policies that scale spot fleet requests,
read as `ScalingSignal`s and `ScheduledAction`s and joined to their pools (:func:`attach`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from gpufleet.policies.cost.pools.attachments import _GROUP_SIZES, _Attachments, _scheduled_action
from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import ScalingSignal
from gpufleet.policies.cost.pools.reading import _int, _num, _str
from gpufleet.policies.cost.pools.scaling import (
    _direction_of_adjustment,
    _direction_of_operator,
    _direction_of_steps,
    _direction_of_target,
    _unknowns,
)
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_APPAS_SCHEDULED_ACTION,
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_ASG_SCHEDULE,
    AWS_EKS_NODE_GROUP,
    AWS_METRIC_ALARM,
    AWS_SPOT_FLEET,
    SPOT_FLEET_DIMENSION,
)
from gpufleet.policies.props import as_list, get_ref, is_unknown


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
            direction=_direction_of_target(disable_in),
            metric=metric,
            threshold=_num(get_ref(p, f"{config}.targetValue")),
        )
    config = "stepScalingPolicyConfiguration"
    return ScalingSignal(
        urn=policy.urn,
        name=policy.name,
        kind="step",
        direction=_direction_of_steps(get_ref(p, f"{config}.stepAdjustments")),
        cooldown_s=_int(get_ref(p, f"{config}.cooldown")),
    )


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
                direction=_direction_of_target(disable_in),
                metric=metric,
                threshold=_num(get_ref(p, "targetTrackingConfiguration.targetValue")),
                cooldown_s=warmup,
            )
        ]
    if policy_type == "PredictiveScaling":
        return [ScalingSignal(urn=policy.urn, name=policy.name, kind="predictive", direction="out")]
    if policy_type == "StepScaling":
        direction = _direction_of_steps(get_ref(p, "stepAdjustments"))
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


def attach(found: _Attachments, index: ResourceIndex) -> None:
    """Fill ``found`` with the stack's Auto Scaling policies (with the CloudWatch alarms that fire
    them) and scheduled actions by group, and the spot fleets' Application Auto Scaling."""
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
                found.signals[target.urn].append(signal)
    for schedule in index.of_type(AWS_ASG_SCHEDULE):
        p = schedule.props
        action = _scheduled_action(
            schedule, _GROUP_SIZES, _str(get_ref(p, "recurrence")), _str(get_ref(p, "timeZone"))
        )
        for target in index.refs(schedule, "autoscalingGroupName", groups):
            found.schedules[target.urn].append(action)
    _spot_fleet_scaling(found, index)


def _spot_fleet_scaling(found: _Attachments, index: ResourceIndex) -> None:
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
            found.fleet_max_capacity[fleet.urn].append((target.name, get_ref(target.props, "maxCapacity")))

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
            found.schedules[fleet.urn].append(action)
    for policy in index.of_type(AWS_APPAS_POLICY):
        signal = _appas_policy_signal(policy)
        for fleet in fleets_of(policy):
            found.signals[fleet.urn].append(signal)
