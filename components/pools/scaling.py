"""Pure compilation of a pool's autoscaling rules into CloudWatch alarm specifications.

Scale out when GPU utilisation stays above ``gpu_util_out`` for ``out_for_s`` OR the pool's SQS queue
holds more than ``queue_out`` visible messages; scale in when utilisation stays below ``gpu_util_in``
for ``in_for_s``. Each alarm reads a metric something publishes:

- ``CWAgent/nvidia_smi_utilization_gpu``: the CloudWatch agent on the instances
  (:mod:`components.pools.userdata`), one minute apart, rolled up by ``AutoScalingGroupName`` and
  ``Stack`` (the stack's own dimension, so two stacks never share a series);
- ``AWS/SQS/ApproximateNumberOfMessagesVisible`` by ``QueueName``: SQS itself, for every active queue,
  every five minutes. An alarm period under 300 s on it never gets a datapoint, so its period is 300 s.

The queue alarm is what wakes a pool that sits at zero instances: with no instances there is no GPU
metric, and a missing datapoint is treated as not breaching. A pool whose minimum is 0 therefore scales
out on any message left waiting (threshold 0): with a threshold of ``queue_out`` a backlog smaller
than that would wait at zero forever.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PERIOD_S = 60  # the agent publishes the GPU metric every minute
SQS_PERIOD_S = 300  # AWS/SQS publishes every 5 minutes; a shorter alarm period never gets data
MAX_ALARM_WINDOW_S = 86_400  # CloudWatch evaluates at most one day of periods
GROUP_DIMENSION = "AutoScalingGroupName"
STACK_DIMENSION = "Stack"
QUEUE_DIMENSION = "QueueName"
GPU_METRIC = ("CWAgent", "nvidia_smi_utilization_gpu", (GROUP_DIMENSION, STACK_DIMENSION))
QUEUE_METRIC = ("AWS/SQS", "ApproximateNumberOfMessagesVisible", (QUEUE_DIMENSION,))


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
        elif self.in_for_s < SQS_PERIOD_S:
            found.append(
                f"in_for_s: {self.in_for_s}s must be at least {SQS_PERIOD_S}s, the queue alarm's shortest "
                "window (SQS publishes its metrics every 5 minutes): scale in slower than out"
            )
        if self.queue_out < 0:
            found.append(f"queue_out: {self.queue_out} must not be negative")
        if self.cooldown_s < 0:
            found.append(f"cooldown_s: {self.cooldown_s} must not be negative")
        return found


@dataclass(frozen=True, kw_only=True)
class AlarmSpec:
    """One alarm; ``dimensions`` names the metric's dimensions, whose values the pool fills in."""

    suffix: str
    direction: Literal["out", "in"]
    namespace: str
    metric_name: str
    dimensions: tuple[str, ...]
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


def _periods(window_s: int, period_s: int) -> int:
    """Whole periods within the window, at least one: the alarm fires no later than asked, except that
    a queue alarm never fires sooner than SQS's five minutes."""
    return max(1, window_s // period_s)


def compile_alarms(rules: ScalingRules, min_size: int = 0) -> tuple[AlarmSpec, ...]:
    """The pool's alarms: GPU high and queue backlog scale out, GPU low scales in. ``min_size`` 0 sets
    the queue threshold to 0 (any waiting message wakes the pool)."""
    problems = rules.problems()
    if problems:
        raise ValueError("invalid scaling rules: " + "; ".join(problems))
    gpu_ns, gpu_metric, gpu_dims = GPU_METRIC
    queue_ns, queue_metric, queue_dims = QUEUE_METRIC
    return (
        AlarmSpec(
            suffix="gpu-high",
            direction="out",
            namespace=gpu_ns,
            metric_name=gpu_metric,
            dimensions=gpu_dims,
            comparison_operator="GreaterThanThreshold",
            threshold=rules.gpu_util_out,
            period_s=PERIOD_S,
            evaluation_periods=_periods(rules.out_for_s, PERIOD_S),
        ),
        AlarmSpec(
            suffix="queue-deep",
            direction="out",
            namespace=queue_ns,
            metric_name=queue_metric,
            dimensions=queue_dims,
            comparison_operator="GreaterThanThreshold",
            threshold=0 if min_size == 0 else rules.queue_out,
            period_s=SQS_PERIOD_S,
            evaluation_periods=_periods(rules.out_for_s, SQS_PERIOD_S),
            statistic="Maximum",
        ),
        AlarmSpec(
            suffix="gpu-low",
            direction="in",
            namespace=gpu_ns,
            metric_name=gpu_metric,
            dimensions=gpu_dims,
            comparison_operator="LessThanThreshold",
            threshold=rules.gpu_util_in,
            period_s=PERIOD_S,
            evaluation_periods=_periods(rules.in_for_s, PERIOD_S),
        ),
    )
