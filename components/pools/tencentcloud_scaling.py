"""A Tencent pool's scaling values: the AS scaling policies the Cloud Monitor alarm policies run, and
those alarm policies' conditions, each value within what AS and Cloud Monitor take.

AS's own alarm policies read CPU, memory and traffic only, and AS has no target tracking on a queue, so
Cloud Monitor alarm policies drive the groups: GPU high runs ``-scale-out`` (+1), GPU low ``-scale-in``
(-1), and each backlog band (:func:`gpufleet.components.pools.scaling.backlog_bands`) its own
``-scale-<band>`` policy that adds the band's lower bound in instances (``CHANGE_IN_CAPACITY``; a
spot/on-demand pool's two groups each add their share, :func:`group_share`). A band's alarm holds while
the queue's ``visibleMsgNum`` is above its lower bound and at most its upper (two rules, both to hold);
the bands are disjoint, so the group's cooldown never lets a small band pre-empt a bigger one.
"""

from __future__ import annotations

import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.pools.scaling import AlarmSpec, cloud_operator, plain_number

_OPERATORS = {"GreaterThanThreshold": "gt", "LessThanThreshold": "lt"}
# AlarmPolicyRule.Operator as the monitor API takes it (Monitor API 2018-07-24, AlarmPolicyRule: "gt",
# "ge", "lt", "le", "eq", "ne" and the day/week change operators); a band's upper bound is "le".
MONITOR_OPERATORS = frozenset({"gt", "ge", "lt", "le", "eq", "ne"})
# AlarmPolicyCondition.IsUnionRule (monitor/_inputs.py: "The and or relation of indicator alarm rule";
# the API: 0 any rule raises the alarm, 1 all rules must hold): a band's two rules hold together.
ANY_RULE, ALL_RULES = 0, 1
# As.ScalingPolicy ``adjustment_type`` (as_/scaling_policy.py): "Valid values: `CHANGE_IN_CAPACITY`,
# `EXACT_CAPACITY` and `PERCENT_CHANGE_IN_CAPACITY`"; ``adjustment_value`` for CHANGE_IN_CAPACITY "a
# positive increment adds to the current capacity and a negative value removes". EXACT_CAPACITY would
# set the group to a band's size whatever runs on it (a scale-in under load), so the bands add.
AS_ADJUSTMENT_TYPES = frozenset({"CHANGE_IN_CAPACITY", "EXACT_CAPACITY", "PERCENT_CHANGE_IN_CAPACITY"})
AS_ADJUSTMENT_TYPE = "CHANGE_IN_CAPACITY"
# AlarmPolicyConditionsRule ``notice_frequency`` ("Alarm interval in seconds"); the monitor API
# (AlarmPolicyRule.NoticeFrequency) takes 0 (never repeat: the AS task would run once per alarm) or one
# of these intervals.
NOTICE_FREQUENCIES_S = (300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)

# As.ScalingPolicy ``threshold`` ("Alarm threshold"; the AS API, MetricAlarm.Threshold:
# "CPU_UTILIZATION: [1, 100], %; MEM_UTILIZATION: [1, 100], %"). The policies' own alarm never decides:
# a utilisation above 100% never happens. Scale-out watches CPU and scale-in memory, so the two
# placeholders never read as a scale-in threshold at or above the scale-out one.
AS_PERCENT_THRESHOLD_RANGE = (1, 100)
AS_NEVER_THRESHOLD = 100
AS_NEVER_METRIC = {"out": "CPU_UTILIZATION", "in": "MEM_UTILIZATION"}


def notice_frequency(cooldown_s: int) -> int:
    """How often a raised alarm runs its AS task again: the shortest interval Cloud Monitor takes that
    is not shorter than the pool's cooldown (scaling cannot act sooner)."""
    for interval in NOTICE_FREQUENCIES_S:
        if interval >= cooldown_s:
            return interval
    return NOTICE_FREQUENCIES_S[-1]


def percent_threshold(percent: int) -> int:
    low, high = AS_PERCENT_THRESHOLD_RANGE
    if not low <= percent <= high:
        raise ValueError(f"AS utilisation threshold {percent} is outside {low}..{high}")
    return percent


def as_window(seconds: int) -> dict[str, int]:
    """An AS metric alarm's ``period`` (60 or 300 s) and ``continuous_time`` (1..10 periods) covering
    ``seconds`` as closely as AS allows."""
    period = 60 if seconds <= 600 else 300
    return {"period": period, "continuous_time": max(1, min(10, seconds // period))}


def remark(alarm: AlarmSpec, metric: str) -> str:
    verb = "above" if alarm.direction == "out" else "below"
    window = alarm.period_s * alarm.evaluation_periods
    bound = f" and at most {plain_number(alarm.upper)}" if alarm.upper is not None else ""
    step = f" (+{alarm.adjustment})" if alarm.adjustment > 1 else ""
    threshold = plain_number(alarm.threshold)
    return f"scale {alarm.direction}{step}: {metric} {verb} {threshold}{bound} for {window}s"[:100]


def group_share(adjustment: int, group_max: int, pool_max: int) -> int:
    """A group's part of a pool-wide step: in proportion to its maximum (the spot/on-demand split), at
    least one instance either way."""
    share = round(abs(adjustment) * group_max / pool_max) if pool_max else 0
    return max(1, share) * (1 if adjustment > 0 else -1)


def monitor_operator(spec_operator: str) -> str:
    return cloud_operator(spec_operator, _OPERATORS, MONITOR_OPERATORS, "Cloud Monitor")


def alarm_rules(
    alarm: AlarmSpec, metric: str, cooldown_s: int
) -> list[tencentcloud.monitor.AlarmPolicyConditionsRuleArgs]:
    """An alarm's conditions: the threshold, and for a bounded backlog band its upper bound ("le"), both
    to hold (:data:`ALL_RULES`)."""
    bounds = [(monitor_operator(alarm.comparison_operator), alarm.threshold)]
    if alarm.upper is not None:
        bounds.append(("le", alarm.upper))
    return [
        tencentcloud.monitor.AlarmPolicyConditionsRuleArgs(
            metric_name=metric,
            period=alarm.period_s,
            operator=operator,
            value=plain_number(value),
            continue_period=alarm.evaluation_periods,
            notice_frequency=notice_frequency(cooldown_s),
            is_power_notice=0,
        )
        for operator, value in bounds
    ]
