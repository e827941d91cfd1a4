"""An Alibaba pool's scaling: ESS simple scaling rules run by ESS alarm tasks (GPU) and CloudMonitor
alarm rules (the queue's backlog bands).

ESS's own target tracking (``TargetTrackingScalingRule``) and step rules (``StepScalingRule``) act on
the metric of an ESS alarm task, whose ``metric_type`` is ``system`` (ESS's group metrics: CPU, GPU,
network) or ``custom`` (what a program puts into CloudMonitor under an application group): neither
reads an MNS queue. A CloudMonitor alarm rule can read ``acs_mns_new`` and run an ESS scaling rule as
its target, but only a simple rule (a fixed adjustment). So the backlog drives one simple rule per
band (:func:`gpufleet.components.pools.scaling.backlog_bands`): ``-scale-<band>`` adds the band's lower
bound in instances (``QuantityChangeInCapacity``), run by the band's alarm ``-<band>``, which holds
while the queue's waiting messages (Maximum over 300 s) are above the band's lower bound and at most
its upper (a composite expression; the top band has no upper bound). The bands are disjoint, so one
band's rule runs at a time, and the group's cooldown (each rule's ``cooldown``, the spec's) paces them:
a 20 to 200 spike adds 10, 20, 40 or 80 instances each cooldown, never more than wait. The GPU rules
stay the seed's: ``-scale-out`` (+1) on ``-gpu-high`` and ``-scale-in`` (-1) on ``-gpu-low``; scale-in
removes idle instances only (workers protect the busy ones), so it cannot end running work.

With a burst gate (:class:`gpufleet.components.pools.burst_custom.CustomGate`) each band's alarm reads
the exporter's ``GatedBacklog`` and a ``-fallback`` alarm per band keeps the raw MNS backlog on the
gate's longer window.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.pools.burst_custom import GATED_METRIC, CustomGate
from gpufleet.components.pools.custom.alicloud import alicloud_namespace
from gpufleet.components.pools.scaling import (
    MAX_STEP,
    AlarmSpec,
    cloud_operator,
    compile_band_alarms,
    plain_number,
)

if TYPE_CHECKING:
    from gpufleet.components.pools.alicloud import AlicloudPoolArgs

GPU_METRIC = "GpuUtilizationAgent"
QUEUE_PROJECT = "acs_mns_new"
# The queue's visible (receivable) messages. MNS is retiring ``ActiveMessages`` (GetQueueAttributes
# "will soon ... return a default value of 0"); its documentation maps it to the CloudMonitor metric
# ``NumberOfMessagesVisible`` (InactiveMessages -> NumberOfMessagesInvisible, DelayMessages ->
# NumberOfMessagesDelayed): help/en/mns/developer-reference/api-mns-open-2022-01-19-getqueueattributes.
# That page does not repeat the project; ``acs_mns_new`` is the one CloudMonitor's metric-meta pages
# list for "Simple Message Queue (formerly MNS) - Queue".
QUEUE_METRIC = "NumberOfMessagesVisible"

# ---------------------------------------------------------------------------- provider limits
# cms.Alarm escalations ``comparison_operator`` (pulumi_alicloud/cms/_inputs.py,
# AlarmEscalationsCriticalArgs): "Valid values: `>`, `>=`, `<`, `<=`, `!=`, `==`,
# `GreaterThanYesterday`, `LessThanYesterday`, `GreaterThanLastWeek`, `LessThanLastWeek`,
# `GreaterThanLastPeriod`, `LessThanLastPeriod`". CloudWatch's ``*Threshold`` spellings are refused.
CMS_COMPARISON_OPERATORS = frozenset(
    {
        ">",
        ">=",
        "<",
        "<=",
        "!=",
        "==",
        "GreaterThanYesterday",
        "LessThanYesterday",
        "GreaterThanLastWeek",
        "LessThanLastWeek",
        "GreaterThanLastPeriod",
        "LessThanLastPeriod",
    }
)
# ess.Alarm ``comparison_operator`` (pulumi_alicloud/ess/alarm.py): "Supported value: >=, <=, >, <".
ESS_COMPARISON_OPERATORS = frozenset({">=", "<=", ">", "<"})
# The spec's (CloudWatch) operators as the two Alibaba services spell them.
_OPERATORS = {
    "GreaterThanThreshold": ">",
    "GreaterThanOrEqualToThreshold": ">=",
    "LessThanThreshold": "<",
    "LessThanOrEqualToThreshold": "<=",
}
# cms.Alarm ``silence_time`` (pulumi_alicloud/cms/alarm.py): "Notification silence period in the alarm
# state, in seconds. Default value: `86400`. Valid value range: [300, 86400]". The default would run
# the scale-out rule once a day at most while the alarm stays raised.
CMS_SILENCE_RANGE_S = (300, 86_400)


def cms_operator(spec_operator: str) -> str:
    """A CloudMonitor alarm rule's operator for the spec's ``GreaterThanThreshold``-style one."""
    return cloud_operator(spec_operator, _OPERATORS, CMS_COMPARISON_OPERATORS, "CloudMonitor")


def ess_operator(spec_operator: str) -> str:
    """An ESS alarm task's operator for the spec's ``GreaterThanThreshold``-style one."""
    return cloud_operator(spec_operator, _OPERATORS, ESS_COMPARISON_OPERATORS, "ESS")


def silence_time(cooldown_s: int) -> int:
    """How long a raised CloudMonitor alarm stays quiet before it runs its target again: the pool's
    cooldown (scaling cannot act sooner), within CloudMonitor's range."""
    low, high = CMS_SILENCE_RANGE_S
    return max(low, min(high, cooldown_s))


def scaling_rule_arn(region: str, account_id: str, group_id: str, rule_id: str) -> str:
    """The scaling rule as a CloudMonitor alarm target names it (pulumi_alicloud/cms/_inputs.py,
    AlarmTargetArgs ``arn``: "Auto Scaling: `acs:ess:{regionId}:{userId}:scalingGroupId/{Scaling group
    ID}:scalingRuleId/{Scaling rule ID}`"). Not the rule's ``ari`` (``ari:acs:ess:...:scalingrule/...``),
    which only ESS's own alarm tasks take."""
    return f"acs:ess:{region}:{account_id}:scalingGroupId/{group_id}:scalingRuleId/{rule_id}"


# ess.ScalingRule (pulumi_alicloud/ess/scaling_rule.py): ``scaling_rule_type`` "SimpleScalingRule",
# "TargetTrackingScalingRule", "StepScalingRule", "PredictiveScalingRule"; ``adjustment_type``
# QuantityChangeInCapacity, PercentChangeInCapacity, TotalCapacity; ``adjustment_value`` for
# QuantityChangeInCapacity "(0, 500] U (-500, 0]"; ``cooldown`` "[0, 86,400], in seconds".
ESS_RULE_TYPE = "SimpleScalingRule"
ESS_ADJUSTMENT_TYPE = "QuantityChangeInCapacity"
ESS_ADJUSTMENT_RANGE = (-499, MAX_STEP)
ESS_COOLDOWN_RANGE_S = (0, 86_400)
# cms.Alarm ``composite_expression`` (pulumi_alicloud/cms/_inputs.py, AlarmCompositeExpressionArgs):
# ``level`` "Valid values: `CRITICAL`, `WARN`, `INFO`"; ``expression_raw`` "The trigger conditions that
# are created by using expressions", in CloudMonitor's syntax ``@<metric>[<period>].$<statistic>``
# compared with a number, joined by ``&&`` (PutResourceMetricRule, CompositeExpression.ExpressionRaw).
CMS_LEVELS = frozenset({"CRITICAL", "WARN", "INFO"})
CMS_JOINS = frozenset({"&&", "||"})


def ess_adjustment(value: int) -> int:
    """A simple rule's ``QuantityChangeInCapacity`` within ESS's range (and not 0)."""
    low, high = ESS_ADJUSTMENT_RANGE
    if value == 0 or not low <= value <= high:
        raise ValueError(f"ESS adjustment {value}: QuantityChangeInCapacity takes {low}..{high}, not 0")
    return value


def ess_cooldown(seconds: int) -> int:
    low, high = ESS_COOLDOWN_RANGE_S
    if not low <= seconds <= high:
        raise ValueError(f"ESS rule cooldown {seconds}s: ESS takes {low}..{high}")
    return seconds


def band_expression(metric: str, alarm: AlarmSpec) -> str:
    """The composite expression of a bounded band: the metric's maximum above the lower bound and at
    most the upper, e.g. ``@NumberOfMessagesVisible[300].$Maximum > 10 && ... <= 20``."""
    series = f"@{metric}[{alarm.period_s}].$Maximum"
    expression = f"{series} {cms_operator(alarm.comparison_operator)} {plain_number(alarm.threshold)}"
    if alarm.upper is not None:
        expression += f" && {series} <= {plain_number(alarm.upper)}"
    return expression


def build_scaling(
    name: str,
    args: AlicloudPoolArgs,
    group: alicloud.ess.ScalingGroup,
    queue: alicloud.message.ServiceQueue,
    child: pulumi.ResourceOptions,
    *,
    account: pulumi.Output[str],
) -> None:
    """The pool's scaling rules and alarms: GPU high/low as ESS alarm tasks, a rule and a CloudMonitor
    alarm (and with a gate its fallback) per backlog band."""
    prefix = f"{args.name_prefix}-{args.pool}"
    contacts: alicloud.cms.AlarmContactGroup | None = None
    for alarm in compile_band_alarms(args.rules, args.max_size):
        gpu = alarm.suffix.startswith("gpu")
        rule_key = {"gpu-high": "out", "gpu-low": "in"}.get(alarm.suffix, alarm.suffix)
        rule = alicloud.ess.ScalingRule(
            f"{name}-scale-{rule_key}",
            scaling_group_id=group.id,
            scaling_rule_name=f"{prefix}-scale-{rule_key}",
            scaling_rule_type=ESS_RULE_TYPE,
            adjustment_type=ESS_ADJUSTMENT_TYPE,
            adjustment_value=ess_adjustment(alarm.adjustment),
            cooldown=ess_cooldown(args.rules.cooldown_s),
            opts=child,
        )
        if gpu:
            _gpu_alarm(name, args, alarm, group=group, rule=rule, child=child)
            continue
        if contacts is None:
            contacts = alicloud.cms.AlarmContactGroup(
                f"{name}-contacts",
                alarm_contact_group_name=prefix,
                describe="gpufleet pool scaling alarms",
                opts=child,
            )
        target = pulumi.Output.all(account, group.id, rule.id).apply(
            lambda ids: scaling_rule_arn(args.region, ids[0], ids[1], ids[2])
        )
        _band_alarms(name, args, alarm, queue=queue, target=target, contacts=contacts, child=child)


def _gpu_alarm(
    name: str,
    args: AlicloudPoolArgs,
    alarm: AlarmSpec,
    *,
    group: alicloud.ess.ScalingGroup,
    rule: alicloud.ess.ScalingRule,
    child: pulumi.ResourceOptions,
) -> None:
    """As on AWS: every one-minute period of the window breaches, not their average."""
    alicloud.ess.Alarm(
        f"{name}-{alarm.suffix}",
        name=f"{args.name_prefix}-{args.pool}-{alarm.suffix}",
        description=alarm.description.replace(alarm.metric_name, GPU_METRIC),
        scaling_group_id=group.id,
        # ESS alarm tasks take the rule's ari (ess/alarm.py: "specified as ess scaling rule ari").
        alarm_actions=[rule.ari],
        metric_type="system",
        metric_name=GPU_METRIC,
        statistics="Average",
        comparison_operator=ess_operator(alarm.comparison_operator),
        threshold=plain_number(alarm.threshold),
        period=alarm.period_s,
        evaluation_count=alarm.evaluation_periods,
        enable=True,
        opts=child,
    )


def _band_alarms(
    name: str,
    args: AlicloudPoolArgs,
    alarm: AlarmSpec,
    *,
    queue: alicloud.message.ServiceQueue,
    target: pulumi.Output[str],
    contacts: alicloud.cms.AlarmContactGroup,
    child: pulumi.ResourceOptions,
) -> None:
    """A band's alarm on the MNS backlog, or with a gate on ``GatedBacklog`` plus the raw fallback."""
    raw = queue.queue_name.apply(lambda q: json.dumps([{"region": args.region, "queue": q}], sort_keys=True))
    if args.gate is None:
        _scale_out_alarm(
            name,
            args,
            alarm,
            rule=target,
            contacts=contacts,
            child=child,
            project=QUEUE_PROJECT,
            metric=QUEUE_METRIC,
            dimensions=raw,
        )
        return
    gate: CustomGate = args.gate
    project = pulumi.Output.from_input(gate.account_id).apply(alicloud_namespace)
    _scale_out_alarm(
        name,
        args,
        alarm,
        rule=target,
        contacts=contacts,
        child=child,
        project=project,
        metric=GATED_METRIC,
        dimensions=gate.metric_dimensions(),
    )
    fallback = dataclasses.replace(
        alarm, suffix=f"{alarm.suffix}-fallback", evaluation_periods=gate.fallback_periods
    )
    _scale_out_alarm(
        name,
        args,
        fallback,
        rule=target,
        contacts=contacts,
        child=child,
        project=QUEUE_PROJECT,
        metric=QUEUE_METRIC,
        dimensions=raw,
    )


def _scale_out_alarm(
    name: str,
    args: AlicloudPoolArgs,
    alarm: AlarmSpec,
    *,
    rule: pulumi.Output[str],
    contacts: alicloud.cms.AlarmContactGroup,
    child: pulumi.ResourceOptions,
    project: pulumi.Input[str],
    metric: str,
    dimensions: pulumi.Input[str],
) -> None:
    """A CloudMonitor alarm that runs a band's rule (``rule``: its ARN as CloudMonitor names it,
    :func:`scaling_rule_arn`) while ``metric``'s maximum stays within the band for the alarm's window,
    and again after the pool's cooldown while it does. A band with an upper bound is a composite
    expression; the top band a plain critical escalation."""
    bounded = alarm.upper is not None
    alicloud.cms.Alarm(
        f"{name}-{alarm.suffix}",
        name=f"{args.name_prefix}-{args.pool}-{alarm.suffix}",
        project=project,
        metric=metric,
        metric_dimensions=dimensions,
        period=alarm.period_s,
        escalations_critical=None
        if bounded
        else alicloud.cms.AlarmEscalationsCriticalArgs(
            statistics="Maximum",
            comparison_operator=cms_operator(alarm.comparison_operator),
            threshold=plain_number(alarm.threshold),
            times=alarm.evaluation_periods,
        ),
        composite_expression=alicloud.cms.AlarmCompositeExpressionArgs(
            expression_raw=band_expression(metric, alarm), level="CRITICAL", times=alarm.evaluation_periods
        )
        if bounded
        else None,
        silence_time=silence_time(args.rules.cooldown_s),
        contact_groups=[contacts.alarm_contact_group_name],
        targets=[alicloud.cms.AlarmTargetArgs(target_id="1", arn=rule)],
        enabled=True,
        tags={**args.tags, "gpufleet:pool": args.pool},
        opts=child,
    )
