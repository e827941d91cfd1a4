"""GF-COST-005: non-production GPU pools scale to zero off-hours or scale in when idle.

A pool passes with a scheduled action that scales it to zero (AWS `aws:autoscaling/schedule:Schedule`
with desiredCapacity or maxSize 0; Alibaba `ess/scheduledTask` / `ess/schedule` with
desiredCapacity or maxValue 0, or running a TotalCapacity-0 scaling rule; Tencent `As/schedule`
with desiredCapacity or maxSize 0) or with a scale-in policy (AWS scaling policies with a negative
adjustment or target tracking, Alibaba scaling rules and ESS alarms, Tencent AS scaling policies and
Cloud Monitor alarm policies with an AS trigger). A minimum size of 0 alone is not enough: nothing
takes the pool there, except where a scaler removes idle capacity down to that minimum: an EKS node
group with minSize 0 in a stack that installs cluster-autoscaler or Karpenter (a Helm release/chart
whose chart name says so); an AWS Batch compute environment with `minVcpus` 0 (Batch ends idle
instances itself); an ACK node pool whose `scalingConfig` (enabled) has minSize 0; a TKE node pool
with `enableAutoScale` (the default) and minSize 0. Such a pool with a higher minimum keeps that
capacity running when idle and fails. A standalone EC2 instance passes when a CloudWatch alarm on
it (`dimensions.InstanceId`) stops or terminates it (an `arn:aws:automate:<region>:ec2:stop|terminate`
alarm action): that is its idle scale-in. Other standalone instances and fixed fleets (and node pools
of a fixed size) cannot scale to zero and fail in non-production environments.

Off-hours means nights and weekends (`weekends_off`, default true): a pool that passes on its schedule
alone (no idle scale-in) must stay at zero from Saturday 00:00 to Monday 00:00 in the schedule's time
zone. Its stop and start recurrences are replayed over a week (see `gpufleet.policies.cost._weekly`); a
schedule that stops the pool every night and starts it every morning, weekends included, fails. A
schedule that cannot be replayed as a week (one that depends on the date, an Alibaba task's
`Daily`/`Weekly` recurrence) is not judged on its weekends.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import part_of, part_union
from gpufleet.policies.cost._clouds import PARTS, sole
from gpufleet.policies.cost._common import describe, stack_pools, unknown_env_message
from gpufleet.policies.cost._weekly import NotReplayable, weekend_running_minutes
from gpufleet.policies.cost.pools import Pool, ResourceIndex
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.props import get_ref
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-COST-005",
    name="non-prod-gpu-pools-scale-to-zero",
    description=(
        "Non-production GPU pools have an off-hours schedule (scale to zero nights and weekends) or "
        "idle scale-in."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Run GPU capacity in a scaling group and add a scheduled action to zero for nights and weekends "
        f"({'; '.join(p.OFF_HOURS_SCHEDULE for p in PARTS.values())}), or a scale-in policy on low GPU "
        f"utilisation ({', '.join(p.OFF_HOURS_SCALE_IN for p in PARTS.values())})."
    ),
    url=sole(PARTS, "OFF_HOURS_URL"),
    config={"weekends_off": {"type": "boolean", "default": True}},
)

NON_PROD = ("dev", "staging")
HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v4:Chart")
NODE_SCALERS = ("cluster-autoscaler", "karpenter")
# Node groups a cluster's own node autoscaler (installed by one of those Helm charts) sizes, per cloud.
HELM_NODE_SCALED = part_union(PARTS, "HELM_NODE_SCALED")


def _has_node_autoscaler(args: StackValidationArgs) -> bool:
    for resource in args.resources:
        if resource.resource_type in HELM_TYPES:
            chart = get_ref(resource.props, "chart")
            if isinstance(chart, str) and any(name in chart for name in NODE_SCALERS):
                return True
    return False


def _stopped_when_idle(pool: Pool, index: ResourceIndex) -> bool:
    """The pool's cloud stops it when idle (AWS: a CloudWatch alarm on the instance whose action stops or
    terminates it)."""
    stopped: Callable[[Pool, ResourceIndex], bool] | None = getattr(
        part_of(PARTS, pool.resource_type), "stopped_when_idle", None
    )
    return stopped is not None and stopped(pool, index)


def _weekend_problem(pool: Pool) -> str | None:
    """Why the pool's schedule leaves it running over the weekend, or None."""
    stops = [a.recurrence for a in pool.schedules if a.scales_to_zero and a.recurrence]
    starts = [a.recurrence for a in pool.schedules if not a.scales_to_zero and a.recurrence]
    if not stops:
        return None  # a one-off stop (or one unknown at preview) is not a weekly schedule
    try:
        minutes = weekend_running_minutes(stops, starts)
    except NotReplayable:
        return None
    if minutes == 0:
        return None
    shown = "; ".join(f"start '{s}'" for s in starts)
    return (
        f"{describe(pool)} ({pool.env}) is scaled to zero at night only: its schedule ({shown}) brings it "
        f"back on weekends ({minutes / 60:g} of the weekend's 48 h); start it on weekdays only (day of week "
        "1-5) so it stays at zero from Saturday to Monday"
    )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    weekends_off = bool(RULE.settings(args)["weekends_off"])
    pools, index = stack_pools(args)
    node_autoscaler = _has_node_autoscaler(args)
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            if pool.env is None:
                report(unknown_env_message(pool), pool.urn)
                return
            if pool.env not in NON_PROD or pool.scales_in:
                return
            if pool.scheduled_to_zero:
                problem = _weekend_problem(pool) if weekends_off else None
                if problem:
                    report(problem, pool.urn)
                return
            if pool.resource_type in HELM_NODE_SCALED and node_autoscaler and pool.min_size == 0:
                return
            if pool.idles_to_zero:
                return
            if pool.idle_scale_in:
                floor = (
                    f"minVcpus {pool.min_vcpus}"
                    if pool.min_vcpus is not None
                    else f"minimum size {pool.min_size}"
                )
                report(
                    f"{describe(pool)} ({pool.env}) keeps its {floor} running when idle and has no "
                    "off-hours schedule to zero; set the minimum to 0",
                    pool.urn,
                )
                return
            if pool.cluster_scaled and pool.resource_type not in HELM_NODE_SCALED:
                report(
                    f"{describe(pool)} ({pool.env}) has a fixed size and no off-hours schedule to zero; "
                    "enable its autoscaling with a minimum of 0",
                    pool.urn,
                )
                return
            if _stopped_when_idle(pool, index):
                return
            if not pool.scalable:
                report(
                    f"{describe(pool)} ({pool.env}) runs around the clock: it cannot scale to zero "
                    "off-hours; run it in a scaling group with an off-hours schedule or idle scale-in",
                    pool.urn,
                )
                return
            report(
                f"{describe(pool)} ({pool.env}) has no off-hours schedule to zero and no scale-in "
                "policy; add a scheduled action to zero or a scale-in policy on idle GPUs",
                pool.urn,
            )

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
