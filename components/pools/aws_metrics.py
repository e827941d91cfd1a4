"""The AWS metrics a pool's scaling reads, and its GPU alarms beside the backlog target (the cloud-neutral
rules are :mod:`gpufleet.components.pools.scaling`). Pure data and functions: no SDK.

- ``AWS/SQS`` ``ApproximateNumberOfMessagesVisible`` by ``QueueName`` (:data:`QUEUE_METRIC`, the spec's
  queue metric, defined beside the rules) and ``ApproximateNumberOfMessagesNotVisible``: SQS itself,
  for every active queue, every five minutes (:data:`gpufleet.components.pools.scaling.SQS_PERIOD_S`).
- ``AWS/AutoScaling`` ``GroupInServiceInstances``: Auto Scaling, once a minute, only for a group whose
  metrics collection names it.
"""

from __future__ import annotations

from dataclasses import replace

from gpufleet.components.pools.scaling import (
    GROUP_DIMENSION,
    QUEUE_METRIC,
    SQS_PERIOD_S,
    AlarmSpec,
    ScalingRules,
    compile_alarms,
)

# Published by Auto Scaling once a minute, only for a group whose metrics collection names it.
IN_SERVICE_METRIC = ("AWS/AutoScaling", "GroupInServiceInstances", (GROUP_DIMENSION,))
# m1: messages visible (waiting jobs), m2: instances in service, m3: messages not visible (jobs the
# workers hold). A running pool counts the waiting jobs once more than queue_out wait (the seed's
# "queue depth > 10"); a pool at zero counts every waiting job, so no job waits for company to start.
IN_FLIGHT_METRIC = ("AWS/SQS", "ApproximateNumberOfMessagesNotVisible", ("QueueName",))


def compile_aws_alarms(rules: ScalingRules) -> tuple[AlarmSpec, ...]:
    """An AWS pool's alarms beside its backlog target: GPU high scales out one step; GPU low scales in
    one instance per cooldown, over whole 5-minute periods (the queue's, so both series line up)
    covering at least ``in_for``, and only while the queue is empty."""
    gpu_high, _queue, gpu_low = compile_alarms(rules)
    periods = -(-rules.in_for_s // SQS_PERIOD_S)
    return (
        gpu_high,
        replace(gpu_low, period_s=SQS_PERIOD_S, evaluation_periods=periods, while_queue_empty=True),
    )


__all__ = ["IN_FLIGHT_METRIC", "IN_SERVICE_METRIC", "QUEUE_METRIC", "compile_aws_alarms"]
