"""Pure compilation of a pool's autoscaling rules into CloudWatch alarm specifications.

Scale out when GPU utilisation stays above ``gpu_util_out`` for ``out_for_s`` OR the pool's SQS queue
holds more than ``queue_out`` visible messages; scale in when utilisation stays below ``gpu_util_in``
for ``in_for_s``. Each alarm reads a metric something publishes:

- ``CWAgent/nvidia_smi_utilization_gpu``: the CloudWatch agent on the instances
  (:mod:`gpufleet.components.pools.userdata`), one minute apart, rolled up by ``AutoScalingGroupName`` and
  ``Stack`` (the stack's own dimension, so two stacks never share a series);
- ``AWS/SQS/ApproximateNumberOfMessagesVisible`` by ``QueueName``: SQS itself, for every active queue,
  every five minutes. An alarm period under 300 s on it never gets a datapoint, so its period is 300 s.

:func:`compile_band_alarms` is what the Alibaba and Tencent pools compile from: their target tracking
cannot read a queue, so the backlog drives several disjoint bands (:func:`backlog_bands`), each an alarm
on the queue's waiting messages that adds as many instances as the band's lower bound asks for at one job
per instance, besides the GPU rules of :func:`compile_alarms`. An AWS pool scales out on its
queue by target tracking instead (:func:`backlog_target`): the jobs per instance in service, counting
the jobs workers hold (in flight) and, once more than ``queue_out`` wait, the waiting ones, held at one
job per instance. A spike of waiting jobs asks for an instance for each at once (20 running and 180
waiting on 20 instances: 10 per instance, so 200 instances), and a pool at zero wakes for any waiting
job. Its GPU rules stay alarms (:func:`gpufleet.components.pools.aws_metrics.compile_aws_alarms`), the
scale-in one only while the queue is empty, so the two kinds of policy never pull against each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Set
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal, Protocol

PERIOD_S = 60  # the agent publishes the GPU metric every minute
SQS_PERIOD_S = 300  # AWS/SQS publishes every 5 minutes; a shorter alarm period never gets data
MAX_ALARM_WINDOW_S = 86_400  # CloudWatch evaluates at most one day of periods
GROUP_DIMENSION = "AutoScalingGroupName"
STACK_DIMENSION = "Stack"
QUEUE_DIMENSION = "QueueName"
GPU_METRIC = ("CWAgent", "nvidia_smi_utilization_gpu", (GROUP_DIMENSION, STACK_DIMENSION))
# The queue metric the spec's rules are written against (CloudWatch's spelling); the other clouds'
# alarm compilers map it to their own queue metric.
QUEUE_METRIC = ("AWS/SQS", "ApproximateNumberOfMessagesVisible", (QUEUE_DIMENSION,))
GROUP_METRICS = ("GroupInServiceInstances",)
JOBS_PER_INSTANCE = 1.0  # a worker runs one job at a time (gpufleet.worker)


def plain_number(value: float) -> str:
    """``value`` written out in full (``1600000``, ``2.5``), never in exponent form or rounded.

    Python's ``:g`` keeps six significant digits and switches to ``1.6e+06`` from a million on, so a
    ``queue_out`` of 200000 (the spec bounds it below only) put a band's ``8 * queue_out`` into the
    clouds as ``1.6e+06`` and 1234567 as ``1.23457e+06`` (1234570, another threshold). The values go
    into CloudMonitor's expression syntax (``@metric[period].$Maximum > N``, help/en/cms/user-guide/
    alert-rule-expressions), ESS and CloudMonitor thresholds, Tencent Cloud Monitor's rule ``Value``
    and CloudWatch metric math, each of which reads a decimal number."""
    number = float(value)
    if number.is_integer():
        return str(int(number))
    return format(Decimal(repr(number)), "f")


def backlog_expression(queue_out: float) -> str:
    """The target-tracking metric: jobs per instance in service, waiting ones only past ``queue_out``
    (at zero instances, every waiting job)."""
    return f"IF(m2 > 0, (m3 + IF(m1 > {plain_number(queue_out)}, m1, 0)) / m2, m1)"


# The GPU scale-in alarm's series: the GPU utilisation while the queue is empty, 100 while work
# waits, so no GPU scale-in happens while the backlog policy may want the capacity back.
IDLE_EXPRESSION = "IF(FILL(queue, 0) > 0, 100, gpu)"
# Where a cloud's target tracking cannot read a queue (Alibaba, Tencent): the backlog's bands start at
# k times queue_out (at least one message), for each k here; a band adds its lower bound in instances.
BACKLOG_BANDS = (1, 2, 4, 8)
# ESS ScalingRule ``adjustment_value`` (pulumi_alicloud/ess/scaling_rule.py): "The number of ECS instances
# to be adjusted in a single scaling activity cannot exceed 500", QuantityChangeInCapacity (0, 500]. AS
# states no bound below the group's maximum; one cap for both clouds.
MAX_STEP = 500


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


class SpecScaling(Protocol):
    """What :func:`rules_from_spec` reads: a pool's ``scaling`` as the spec parsed it
    (:class:`gpufleet.components.spec.pool.Scaling`, durations already in seconds)."""

    @property
    def gpu_util_out(self) -> float: ...
    @property
    def out_for_s(self) -> int: ...
    @property
    def queue_out(self) -> float: ...
    @property
    def gpu_util_in(self) -> float: ...
    @property
    def in_for_s(self) -> int: ...
    @property
    def cooldown_s(self) -> int: ...


def rules_from_spec(scaling: SpecScaling) -> ScalingRules:
    """The spec's ``scaling`` as every cloud's pool compiles it: the one conversion, for every site and
    the simulator."""
    return ScalingRules(
        gpu_util_out=scaling.gpu_util_out,
        out_for_s=scaling.out_for_s,
        queue_out=scaling.queue_out,
        gpu_util_in=scaling.gpu_util_in,
        in_for_s=scaling.in_for_s,
        cooldown_s=scaling.cooldown_s,
    )


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
    # Scale in only while the pool's queue is empty (a metric-math alarm, :data:`IDLE_EXPRESSION`).
    while_queue_empty: bool = False
    # A backlog band's upper bound (exclusive of the next band: the alarm holds while the metric is at
    # most this); None: no upper bound.
    upper: float | None = None
    # The instances the alarm's rule adds (out) or removes (in) at once.
    adjustment: int = 1

    @property
    def description(self) -> str:
        verb = "above" if self.comparison_operator.startswith("Greater") else "below"
        window = self.period_s * self.evaluation_periods
        bound = f" and at most {plain_number(self.upper)}" if self.upper is not None else ""
        threshold = plain_number(self.threshold)
        return f"scale {self.direction}: {self.metric_name} {verb} {threshold}{bound} for {window}s"


def _periods(window_s: int, period_s: int) -> int:
    """Whole periods within the window, at least one: the alarm fires no later than asked, except that
    a queue alarm never fires sooner than SQS's five minutes."""
    return max(1, window_s // period_s)


def compile_alarms(rules: ScalingRules) -> tuple[AlarmSpec, ...]:
    """The pool's alarms: GPU high and queue backlog (more than ``queue_out`` waiting, whatever the
    pool's minimum) scale out, GPU low scales in."""
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
            threshold=rules.queue_out,
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


@dataclass(frozen=True, kw_only=True)
class BacklogTarget:
    """A target-tracking policy on the jobs per instance: ``expression`` over ``m1`` (the queue's
    visible messages, Sum), ``m2`` (the group's instances in service, Average) and ``m3`` (the queue's
    messages in flight, Sum), held at ``target_value`` jobs per instance. Its scale-in is disabled:
    scaling in is the GPU alarm's, and only while the queue is empty."""

    target_value: float
    expression: str
    warmup_s: int
    disable_scale_in: bool = True


def backlog_target(rules: ScalingRules) -> BacklogTarget:
    """One job per instance in service (AWS's documented SQS backlog pattern, with jobs that hold an
    instance while they run: the acceptable backlog per instance is the job the instance runs)."""
    problems = rules.problems()
    if problems:
        raise ValueError("invalid scaling rules: " + "; ".join(problems))
    return BacklogTarget(
        target_value=JOBS_PER_INSTANCE,
        expression=backlog_expression(rules.queue_out),
        warmup_s=rules.cooldown_s,
    )


def backlog_desired(rules: ScalingRules, *, waiting: int, running: int, in_service: int) -> int:
    """The capacity the backlog policy asks for, as AWS computes it from the metric: the instances in
    service times the metric over the target (at zero in service, the metric itself)."""
    if in_service == 0:
        return math.ceil(waiting / JOBS_PER_INSTANCE)
    counted = waiting if waiting > rules.queue_out else 0
    return math.ceil((running + counted) / JOBS_PER_INSTANCE)


@dataclass(frozen=True)
class BacklogBand:
    """Waiting messages above ``lower`` and at most ``upper`` (None: no bound) add ``add`` instances."""

    multiple: int
    lower: float
    upper: float | None
    add: int


def backlog_bands(rules: ScalingRules, max_size: int) -> tuple[BacklogBand, ...]:
    """Step scale-out on the raw backlog where a cloud's target tracking cannot read a queue: disjoint
    bands starting at 1, 2, 4 and 8 times ``queue_out`` (a ``queue_out`` of 0: the first band wakes on
    any message, the others start at 2, 4 and 8 messages), each adding its lower bound in instances at
    :data:`JOBS_PER_INSTANCE` (at least one, at most ``max_size`` and :data:`MAX_STEP`). Disjoint, so one
    band's alarm holds at a time and the group's cooldown never lets a small band pre-empt a big one.
    Proportional: a 20 to 200 spike adds 10, 20, 40 and 80 at a time, not one per cooldown; adding the
    lower bound, never more than waits, the bands never overshoot the backlog."""
    unit = max(rules.queue_out, 1)
    lowers = [rules.queue_out] + [unit * multiple for multiple in BACKLOG_BANDS[1:]]
    bands = []
    for index, multiple in enumerate(BACKLOG_BANDS):
        upper = lowers[index + 1] if index + 1 < len(lowers) else None
        add = max(1, min(math.ceil(lowers[index] / JOBS_PER_INSTANCE), max_size, MAX_STEP))
        bands.append(BacklogBand(multiple=multiple, lower=lowers[index], upper=upper, add=add))
    return tuple(bands)


def band_suffix(band: BacklogBand) -> str:
    """``queue-deep`` for the first band (the queue alarm's name before the bands), ``queue-deep-x<k>``
    for the band from k times ``queue_out``."""
    return "queue-deep" if band.multiple == 1 else f"queue-deep-x{band.multiple}"


def compile_band_alarms(rules: ScalingRules, max_size: int) -> tuple[AlarmSpec, ...]:
    """An Alibaba or Tencent pool's alarms: GPU high (+1), one queue alarm per backlog band (its
    ``threshold`` the band's lower bound, ``upper`` its upper, ``adjustment`` the instances it adds),
    then GPU low (-1). The seed's windows and cooldown stay; a pool at zero wakes like any other once
    more than ``queue_out`` wait."""
    gpu_high, queue, gpu_low = compile_alarms(rules)
    bands = tuple(
        replace(queue, suffix=band_suffix(band), threshold=band.lower, upper=band.upper, adjustment=band.add)
        for band in backlog_bands(rules, max_size)
    )
    return (gpu_high, *bands, replace(gpu_low, adjustment=-1))


def cloud_operator(spec_operator: str, spelling: Mapping[str, str], allowed: Set[str], service: str) -> str:
    """The spec's (CloudWatch) comparison operator as another cloud's alarm service spells it; one
    already in that spelling passes as it is. Anything the service does not take is an error naming
    what it takes."""
    operator = spelling.get(spec_operator, spec_operator)
    if operator not in allowed:
        raise ValueError(f"comparison operator {spec_operator!r}: {service} takes {sorted(allowed)}")
    return operator
