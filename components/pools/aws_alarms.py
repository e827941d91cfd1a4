"""The AWS pool's own alarm scaling (a pool cluster-autoscaler does not size, ``gpufleet:scaler =
alarms``): the ``-scale-out`` step and ``-scale-in`` simple policies, the ``-backlog`` target tracking,
and the alarms that fire them, gated by the burst order where it applies. How they fit together is in
:mod:`gpufleet.components.pools.aws`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws

from gpufleet.components.pools.aws_metrics import IN_FLIGHT_METRIC, IN_SERVICE_METRIC, QUEUE_METRIC
from gpufleet.components.pools.burst import SIGNAL_METRIC, SIGNAL_NAMESPACE, Gate
from gpufleet.components.pools.scaling import (
    GROUP_DIMENSION,
    IDLE_EXPRESSION,
    QUEUE_DIMENSION,
    STACK_DIMENSION,
    AlarmSpec,
    BacklogTarget,
    ScalingRules,
)


def alarm_scaling(
    name: str,
    *,
    rules: ScalingRules,
    target: BacklogTarget,
    alarms: Sequence[AlarmSpec],
    gate: Gate | None,
    group: aws.autoscaling.Group,
    queue_name: pulumi.Input[str],
    stack: str,
    region: str | None,
    tags: Mapping[str, str],
    child: pulumi.ResourceOptions,
) -> None:
    """The pool's scaling policies and the alarms that fire them (children of the pool)."""
    policies = {
        "out": aws.autoscaling.Policy(
            f"{name}-scale-out",
            autoscaling_group_name=group.name,
            policy_type="StepScaling",
            adjustment_type="ChangeInCapacity",
            metric_aggregation_type="Average",
            estimated_instance_warmup=rules.cooldown_s,
            region=region,
            step_adjustments=[
                aws.autoscaling.PolicyStepAdjustmentArgs(
                    scaling_adjustment=1, metric_interval_lower_bound="0"
                )
            ],
            opts=child,
        ),
        "in": aws.autoscaling.Policy(
            f"{name}-scale-in",
            autoscaling_group_name=group.name,
            policy_type="SimpleScaling",
            adjustment_type="ChangeInCapacity",
            scaling_adjustment=-1,
            cooldown=rules.cooldown_s,
            region=region,
            opts=child,
        ),
    }
    dimension_values: dict[str, pulumi.Input[str]] = {
        GROUP_DIMENSION: group.name,
        STACK_DIMENSION: stack,
        QUEUE_DIMENSION: queue_name,
    }
    _backlog_policy(name, target, gate, dimension_values=dimension_values, region=region, opts=child)
    for alarm in alarms:
        if gate is not None and alarm.direction == "out":
            # Burst order: scale out only with no GPU free ahead (the baseline, earlier sites).
            _gated_alarm(
                name,
                alarm,
                gate,
                dimension_values=dimension_values,
                action=policies["out"].arn,
                region=region,
                tags=tags,
                opts=child,
            )
            continue
        if alarm.while_queue_empty:
            _idle_alarm(
                name,
                alarm,
                dimension_values=dimension_values,
                action=policies[alarm.direction].arn,
                region=region,
                tags=tags,
                opts=child,
            )
            continue
        aws.cloudwatch.MetricAlarm(
            f"{name}-{alarm.suffix}",
            alarm_description=alarm.description,
            namespace=alarm.namespace,
            metric_name=alarm.metric_name,
            dimensions={dimension: dimension_values[dimension] for dimension in alarm.dimensions},
            statistic=alarm.statistic,
            comparison_operator=alarm.comparison_operator,
            threshold=alarm.threshold,
            period=alarm.period_s,
            evaluation_periods=alarm.evaluation_periods,
            datapoints_to_alarm=alarm.evaluation_periods,
            treat_missing_data=alarm.treat_missing_data,
            alarm_actions=[policies[alarm.direction].arn],
            region=region,
            tags=tags,
            opts=child,
        )


def _gated_alarm(
    name: str,
    alarm: AlarmSpec,
    gate: Gate,
    *,
    dimension_values: Mapping[str, pulumi.Input[str]],
    action: pulumi.Input[str],
    region: str | None,
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> aws.cloudwatch.MetricAlarm:
    """A scale-out alarm as metric math: the pool's own metric, passed through only while the
    ``gpufleet/Baseline`` signal for the pool's site says no GPU is free ahead of it. The signal's
    maximum over the period: one free GPU at any moment of it holds the pool back."""
    ahead = ", then ".join(("baseline", *gate.ahead))
    return _math_alarm(
        name,
        alarm,
        description=f"{alarm.description}, only when no GPU is free ahead ({ahead})",
        queries=[
            _alarm_query(
                "ahead",
                SIGNAL_NAMESPACE,
                SIGNAL_METRIC,
                gate.dimensions,
                period_s=alarm.period_s,
                stat="Maximum",
            ),
            _own_query("own", alarm, dimension_values),
            aws.cloudwatch.MetricAlarmMetricQueryArgs(
                id="gated",
                expression=gate.expression("ahead", "own"),
                label=f"{alarm.metric_name} while no GPU is free ahead of {gate.site}",
                return_data=True,
            ),
        ],
        action=action,
        region=region,
        tags=tags,
        opts=opts,
    )


def _math_alarm(
    name: str,
    alarm: AlarmSpec,
    *,
    description: str,
    queries: Sequence[aws.cloudwatch.MetricAlarmMetricQueryArgs],
    action: pulumi.Input[str],
    region: str | None,
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> aws.cloudwatch.MetricAlarm:
    """``alarm`` judged on metric math: its threshold, periods and missing-data rule over ``queries``
    (the one returning data is what it compares)."""
    return aws.cloudwatch.MetricAlarm(
        f"{name}-{alarm.suffix}",
        alarm_description=description,
        comparison_operator=alarm.comparison_operator,
        threshold=alarm.threshold,
        evaluation_periods=alarm.evaluation_periods,
        datapoints_to_alarm=alarm.evaluation_periods,
        treat_missing_data=alarm.treat_missing_data,
        metric_queries=list(queries),
        alarm_actions=[action],
        region=region,
        tags=tags,
        opts=opts,
    )


def _alarm_query(
    query_id: str,
    namespace: str,
    metric: str,
    dimensions: Mapping[str, pulumi.Input[str]],
    *,
    period_s: int,
    stat: str,
) -> aws.cloudwatch.MetricAlarmMetricQueryArgs:
    """One metric of a metric-math alarm, an input of its expression (returns no data itself)."""
    return aws.cloudwatch.MetricAlarmMetricQueryArgs(
        id=query_id,
        metric=aws.cloudwatch.MetricAlarmMetricQueryMetricArgs(
            namespace=namespace,
            metric_name=metric,
            dimensions=dimensions,
            period=period_s,
            stat=stat,
        ),
        return_data=False,
    )


def _own_query(
    query_id: str, alarm: AlarmSpec, dimension_values: Mapping[str, pulumi.Input[str]]
) -> aws.cloudwatch.MetricAlarmMetricQueryArgs:
    """The alarm's own metric, statistic and period as one query of its metric math."""
    dimensions = {dimension: dimension_values[dimension] for dimension in alarm.dimensions}
    return _alarm_query(
        query_id,
        alarm.namespace,
        alarm.metric_name,
        dimensions,
        period_s=alarm.period_s,
        stat=alarm.statistic,
    )


def _metric_query(
    query_id: str, namespace: str, metric: str, dimensions: Mapping[str, pulumi.Input[str]], stat: str
) -> aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricArgs:
    return aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricArgs(
        id=query_id,
        metric_stat=aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricMetricStatArgs(
            metric=aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricMetricStatMetricArgs(
                namespace=namespace,
                metric_name=metric,
                dimensions=[
                    aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricMetricStatMetricDimensionArgs(
                        name=key, value=value
                    )
                    for key, value in dimensions.items()
                ],
            ),
            stat=stat,
        ),
        return_data=False,
    )


def _backlog_policy(
    name: str,
    target: BacklogTarget,
    gate: Gate | None,
    *,
    dimension_values: Mapping[str, pulumi.Input[str]],
    region: str | None,
    opts: pulumi.ResourceOptions,
) -> aws.autoscaling.Policy:
    """``-backlog``: target tracking on the backlog per instance in service. Behind a burst gate the
    backlog counts only while no GPU is free ahead (0 otherwise: no scale-out; the policy never scales
    in, so a 0 removes nothing)."""
    queue_ns, queue_metric, queue_dims = QUEUE_METRIC
    group_ns, group_metric, group_dims = IN_SERVICE_METRIC
    flight_ns, flight_metric, flight_dims = IN_FLIGHT_METRIC
    queries = [
        _metric_query("m1", queue_ns, queue_metric, {d: dimension_values[d] for d in queue_dims}, "Sum"),
        _metric_query("m2", group_ns, group_metric, {d: dimension_values[d] for d in group_dims}, "Average"),
        _metric_query("m3", flight_ns, flight_metric, {d: dimension_values[d] for d in flight_dims}, "Sum"),
    ]
    expression, label = target.expression, "jobs per instance in service"
    if gate is not None:
        queries.append(_metric_query("ahead", SIGNAL_NAMESPACE, SIGNAL_METRIC, gate.dimensions, "Maximum"))
        expression = gate.expression("ahead", target.expression)
        label = f"{label}, while no GPU is free ahead of {gate.site}"
    queries.append(
        aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationMetricArgs(
            id="e1", expression=expression, label=label, return_data=True
        )
    )
    return aws.autoscaling.Policy(
        f"{name}-backlog",
        autoscaling_group_name=dimension_values[GROUP_DIMENSION],
        policy_type="TargetTrackingScaling",
        estimated_instance_warmup=target.warmup_s,
        region=region,
        target_tracking_configuration=aws.autoscaling.PolicyTargetTrackingConfigurationArgs(
            target_value=target.target_value,
            disable_scale_in=target.disable_scale_in,
            customized_metric_specification=aws.autoscaling.PolicyTargetTrackingConfigurationCustomizedMetricSpecificationArgs(
                metrics=queries
            ),
        ),
        opts=opts,
    )


def _idle_alarm(
    name: str,
    alarm: AlarmSpec,
    *,
    dimension_values: Mapping[str, pulumi.Input[str]],
    action: pulumi.Input[str],
    region: str | None,
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
) -> aws.cloudwatch.MetricAlarm:
    """The GPU scale-in alarm as metric math: the GPU utilisation while the queue is empty, 100 while
    any message waits (:data:`IDLE_EXPRESSION`). A queue with no datapoint is an idle queue: SQS
    stops publishing for a queue inactive for six hours."""
    queue_ns, queue_metric, queue_dims = QUEUE_METRIC
    queue_dimensions = {dimension: dimension_values[dimension] for dimension in queue_dims}
    return _math_alarm(
        name,
        alarm,
        description=f"{alarm.description}, only while the queue is empty",
        queries=[
            _own_query("gpu", alarm, dimension_values),
            _alarm_query(
                "queue", queue_ns, queue_metric, queue_dimensions, period_s=alarm.period_s, stat="Maximum"
            ),
            aws.cloudwatch.MetricAlarmMetricQueryArgs(
                id="idle",
                expression=IDLE_EXPRESSION,
                label=f"{alarm.metric_name} while the queue is empty (100 while work waits)",
                return_data=True,
            ),
        ],
        action=action,
        region=region,
        tags=tags,
        opts=opts,
    )
