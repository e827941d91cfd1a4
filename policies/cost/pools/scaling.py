"""Scaling policies and rules as `ScalingSignal`s: AWS Auto Scaling and Application Auto Scaling
policies with their CloudWatch alarms, Alibaba ESS rules with their alarm tasks; the direction a
policy scales from its adjustments or its alarm's operator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.model import ScalingSignal
from gpufleet.policies.cost.pools.reading import _int, _num, _str
from gpufleet.policies.cost.pools.tokens import SPOT_FLEET_DIMENSION
from gpufleet.policies.props import as_list, get_ref, is_unknown, truthy


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


def _direction_of_adjustment(adjustment: float | None) -> str:
    if adjustment is None:
        return "unknown"
    if adjustment > 0:
        return "out"
    if adjustment < 0:
        return "in"
    return "unknown"


def _direction_of_steps(steps: Any) -> str:
    """A step policy's direction from the signs of its steps' adjustments; both when they disagree."""
    adjustments = [_num(get_ref(step, "scalingAdjustment")) for step in as_list(steps)]
    signs = {_direction_of_adjustment(a) for a in adjustments} - {"unknown"}
    return signs.pop() if len(signs) == 1 else ("both" if signs else "unknown")


def _direction_of_target(disable_in: Any) -> str:
    """Target tracking scales both ways unless its scale-in is disabled."""
    return "out" if disable_in is not None and truthy(disable_in) else "both"


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
