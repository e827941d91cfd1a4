"""The spec's pool settings in the shape the AWS pool components take."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from gpufleet.components.pools.aws import OffHours
from gpufleet.components.pools.aws_queue import ExistingQueue, NewQueue, QueueSource
from gpufleet.components.pools.scaling import ScalingRules

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec, Pool


def pool_scaling(pool: Pool) -> ScalingRules:
    rules = pool.scaling
    return ScalingRules(
        gpu_util_out=rules.gpu_util_out,
        out_for_s=rules.out_for_s,
        queue_out=rules.queue_out,
        gpu_util_in=rules.gpu_util_in,
        in_for_s=rules.in_for_s,
        cooldown_s=rules.cooldown_s,
    )


def pool_queue(pool: Pool) -> QueueSource:
    queue = pool.queue
    if queue.existing:
        return ExistingQueue(name=queue.name, arn=queue.arn, kms_key_arn=queue.kms_key_arn)
    return NewQueue(visibility_timeout_s=queue.visibility_timeout_s, max_receives=queue.max_receives)


def pool_off_hours(spec: FleetSpec, pool_name: str, pool: Pool) -> OffHours | None:
    if pool.off_hours is None:
        return None
    if spec.environment == "prod":
        # Production capacity is never switched off by a timetable; scale-in still applies.
        pulumi.log.warn(f"pools.{pool_name}.off_hours is ignored in prod")
        return None
    hours = pool.off_hours
    return OffHours(timezone=hours.timezone, stop_cron=hours.stop_cron, start_cron=hours.start_cron)
