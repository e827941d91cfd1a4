"""Pure compilation of a pool's autoscaling rules into CloudWatch alarm specifications.

Scale out when GPU utilisation stays above ``gpu_util_out`` for ``out_for_s`` OR the job queue is
deeper than ``queue_out`` for the same window; scale in when utilisation stays below ``gpu_util_in``
for ``in_for_s``. The queue alarm is what wakes a pool that sits at zero instances: with no instances
there is no GPU metric, and a missing datapoint is treated as not breaching.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

PERIOD_S = 60
MAX_ALARM_WINDOW_S = 86_400  # CloudWatch evaluates at most one day of periods
GPU_METRIC = ("CWAgent", "nvidia_smi_utilization_gpu", "AutoScalingGroupName")
QUEUE_METRIC = ("gpufleet", "QueueDepth", "Pool")


@dataclass(frozen=True, kw_only=True)
class ScalingRules:
    gpu_util_out: float = 70
    out_for_s: int = 300
    queue_out: float = 10
    gpu_util_in: float = 30
    in_for_s: int = 1800
    cooldown_s: int = 300

    def problems(self) -> list[str]:
        found = []
        for name in ("gpu_util_out", "gpu_util_in"):
            if not 0 <= getattr(self, name) <= 100:
                found.append(f"{name}: {getattr(self, name)} is not a percentage")
        if self.gpu_util_in >= self.gpu_util_out:
            found.append(f"gpu_util_in ({self.gpu_util_in}) must be below gpu_util_out ({self.gpu_util_out})")
        for name in ("out_for_s", "in_for_s"):
            seconds = getattr(self, name)
            if not PERIOD_S <= seconds <= MAX_ALARM_WINDOW_S or seconds % PERIOD_S:
                found.append(f"{name}: {seconds}s must be a whole number of minutes between 60s and 1 day")
        if self.in_for_s < self.out_for_s:
            found.append("in_for_s must not be shorter than out_for_s (scale in slower than out)")
        if self.queue_out < 0:
            found.append(f"queue_out: {self.queue_out} must not be negative")
        if self.cooldown_s < 0:
            found.append(f"cooldown_s: {self.cooldown_s} must not be negative")
        return found


@dataclass(frozen=True, kw_only=True)
class AlarmSpec:
    suffix: str
    direction: Literal["out", "in"]
    namespace: str
    metric_name: str
    dimension: str
    comparison_operator: str
    threshold: float
    period_s: int
    evaluation_periods: int
    statistic: str = "Average"
    treat_missing_data: str = "notBreaching"

    @property
    def description(self) -> str:
        verb = "above" if self.comparison_operator.startswith("Greater") else "below"
        window = self.period_s * self.evaluation_periods
        return f"scale {self.direction}: {self.metric_name} {verb} {self.threshold:g} for {window}s"


def compile_alarms(rules: ScalingRules) -> tuple[AlarmSpec, ...]:
    problems = rules.problems()
    if problems:
        raise ValueError("invalid scaling rules: " + "; ".join(problems))
    out_periods = math.ceil(rules.out_for_s / PERIOD_S)
    in_periods = math.ceil(rules.in_for_s / PERIOD_S)
    gpu_ns, gpu_metric, gpu_dim = GPU_METRIC
    queue_ns, queue_metric, queue_dim = QUEUE_METRIC
    return (
        AlarmSpec(
            suffix="gpu-high",
            direction="out",
            namespace=gpu_ns,
            metric_name=gpu_metric,
            dimension=gpu_dim,
            comparison_operator="GreaterThanThreshold",
            threshold=rules.gpu_util_out,
            period_s=PERIOD_S,
            evaluation_periods=out_periods,
        ),
        AlarmSpec(
            suffix="queue-deep",
            direction="out",
            namespace=queue_ns,
            metric_name=queue_metric,
            dimension=queue_dim,
            comparison_operator="GreaterThanThreshold",
            threshold=rules.queue_out,
            period_s=PERIOD_S,
            evaluation_periods=out_periods,
            statistic="Maximum",
        ),
        AlarmSpec(
            suffix="gpu-low",
            direction="in",
            namespace=gpu_ns,
            metric_name=gpu_metric,
            dimension=gpu_dim,
            comparison_operator="LessThanThreshold",
            threshold=rules.gpu_util_in,
            period_s=PERIOD_S,
            evaluation_periods=in_periods,
        ),
    )
