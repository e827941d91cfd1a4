"""What watches a metric to scale on AWS: alarms whose actions fire a scaling policy, and target-tracking
policies (AWS creates their alarms, so the metric needs a publisher all the same).

- `aws:cloudwatch/metricAlarm:MetricAlarm` whose `alarmActions` fire an `aws:autoscaling/policy` or
  `aws:appautoscaling/policy` (of the stack, or by an Auto Scaling ARN): its own `namespace`,
  `metricName`, `dimensions` map, or each `metricQueries[].metric`;
- `aws:autoscaling/policy:Policy` of type `TargetTrackingScaling`:
  `targetTrackingConfiguration.customizedMetricSpecification` (`namespace`, `metricName`,
  `metricDimensions[]` of {name, value}, or `metrics[].metricStat.metric` with `dimensions[]`), and the
  predefined `ALBRequestCountPerTarget` (AWS/ApplicationELB); the other predefined metrics are the
  group's own EC2 metrics, which AWS publishes for every group;
- `aws:appautoscaling/policy:Policy` of type `TargetTrackingScaling`:
  `targetTrackingScalingPolicyConfiguration.customizedMetricSpecification` likewise.
A value unknown at preview (a namespace, a dimension map) raises: the watcher is judged later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_METRIC_ALARM,
)
from gpufleet.policies.ops._common import unknown
from gpufleet.policies.props import as_list, get_ref, is_unknown

_SCALING_ARN = re.compile(r"^arn:aws[a-z-]*:autoscaling:")
_ASG_TT = "targetTrackingConfiguration"
_APPAS_TT = "targetTrackingScalingPolicyConfiguration"


@dataclass(frozen=True)
class Metric:
    namespace: str
    name: str
    dims: Mapping[str, Any]


@dataclass(frozen=True)
class Watcher:
    """One thing that scales on metrics: how findings name it, the input its dimensions come from
    (for joins by property dependency), the groups it scales itself, and the metrics it watches."""

    view: ResourceView
    label: str
    dims_prop: str
    groups: tuple[ResourceView, ...]
    metrics: tuple[Metric, ...]


def _drives_scaling(index: ResourceIndex, alarm: ResourceView) -> bool:
    if index.refs(alarm, "alarmActions", (AWS_ASG_POLICY, AWS_APPAS_POLICY)):
        return True
    return any(
        isinstance(action, str) and _SCALING_ARN.match(action)
        for action in as_list(get_ref(alarm.props, "alarmActions"))
    )


def _target_tracking(view: ResourceView) -> bool:
    policy_type = get_ref(view.props, "policyType")
    if is_unknown(policy_type):
        return True  # judged (and reported as unknown) like any other
    return bool(policy_type == "TargetTrackingScaling")


def candidates(index: ResourceIndex) -> list[ResourceView]:
    """The alarms that drive scaling and the target-tracking policies of the stack."""
    alarms = [a for a in index.of_type(AWS_METRIC_ALARM) if _drives_scaling(index, a)]
    policies = [p for p in index.of_type(AWS_ASG_POLICY, AWS_APPAS_POLICY) if _target_tracking(p)]
    return alarms + policies


def _str(value: Any, path: str) -> str:
    if is_unknown(value):
        raise unknown(value, path)
    return "" if value is None else str(value)


def dims_map(value: Any, path: str) -> dict[str, Any]:
    """A dimension map (`{name: value}`) or list (`[{name, value}]`); unknown raises."""
    if is_unknown(value):
        raise unknown(value, path)
    if isinstance(value, Mapping):
        return {str(k): value[k] for k in value}
    out: dict[str, Any] = {}
    for item in as_list(value):
        if isinstance(item, Mapping) and isinstance(item.get("name"), str):
            out[item["name"]] = item.get("value")
    return out


def _alarm(view: ResourceView) -> Watcher:
    metrics: list[Metric] = []
    namespace = get_ref(view.props, "namespace")
    if namespace is not None:
        metrics.append(
            Metric(
                _str(namespace, "namespace"),
                _str(get_ref(view.props, "metricName"), "metricName"),
                dims_map(get_ref(view.props, "dimensions"), "dimensions"),
            )
        )
    for i, query in enumerate(as_list(get_ref(view.props, "metricQueries"))):
        metric = get_ref(query, "metric") if isinstance(query, Mapping) else None
        if isinstance(metric, Mapping) and get_ref(metric, "namespace"):
            path = f"metricQueries.{i}.metric"
            metrics.append(
                Metric(
                    _str(get_ref(metric, "namespace"), f"{path}.namespace"),
                    _str(get_ref(metric, "metricName"), f"{path}.metricName"),
                    dims_map(get_ref(metric, "dimensions"), f"{path}.dimensions"),
                )
            )
    return Watcher(view, f"alarm '{view.name}'", "dimensions", (), tuple(metrics))


def _customized(spec: Any, path: str, dims_key: str) -> list[Metric]:
    if not isinstance(spec, Mapping):
        return []
    metrics: list[Metric] = []
    if get_ref(spec, "namespace") is not None:
        metrics.append(
            Metric(
                _str(get_ref(spec, "namespace"), f"{path}.namespace"),
                _str(get_ref(spec, "metricName"), f"{path}.metricName"),
                dims_map(get_ref(spec, dims_key), f"{path}.{dims_key}"),
            )
        )
    for i, query in enumerate(as_list(get_ref(spec, "metrics"))):
        metric = get_ref(query, "metricStat.metric") if isinstance(query, Mapping) else None
        if isinstance(metric, Mapping) and get_ref(metric, "namespace"):
            where = f"{path}.metrics.{i}.metricStat.metric"
            metrics.append(
                Metric(
                    _str(get_ref(metric, "namespace"), f"{where}.namespace"),
                    _str(get_ref(metric, "metricName"), f"{where}.metricName"),
                    dims_map(get_ref(metric, "dimensions"), f"{where}.dimensions"),
                )
            )
    return metrics


def _policy(index: ResourceIndex, view: ResourceView) -> Watcher:
    _str(get_ref(view.props, "policyType"), "policyType")
    if view.resource_type == AWS_ASG_POLICY:
        spec = f"{_ASG_TT}.customizedMetricSpecification"
        metrics = _customized(get_ref(view.props, spec), spec, "metricDimensions")
        predefined = get_ref(view.props, f"{_ASG_TT}.predefinedMetricSpecification.predefinedMetricType")
        if _str(predefined, f"{_ASG_TT}.predefinedMetricSpecification.predefinedMetricType") == (
            "ALBRequestCountPerTarget"
        ):
            metrics.append(Metric("AWS/ApplicationELB", "RequestCountPerTarget", {}))
        groups = tuple(index.refs(view, "autoscalingGroupName", (AWS_ASG,)))
        return Watcher(view, f"target-tracking policy '{view.name}'", _ASG_TT, groups, tuple(metrics))
    spec = f"{_APPAS_TT}.customizedMetricSpecification"
    metrics = _customized(get_ref(view.props, spec), spec, "dimensions")
    return Watcher(view, f"target-tracking policy '{view.name}'", _APPAS_TT, (), tuple(metrics))


def watcher(index: ResourceIndex, view: ResourceView) -> Watcher:
    return _alarm(view) if view.resource_type == AWS_METRIC_ALARM else _policy(index, view)
