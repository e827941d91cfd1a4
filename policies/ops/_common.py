"""What the operability rules share: the stack's join index, type tokens, and "could not be judged".

Every operability rule judges the whole stack: it joins a resource to the ones it uses (an alarm to
the policy it fires and the queue it watches, a key to the volumes it encrypts) through the engine's
property dependencies first, then literal names, ids and ARNs (`gpufleet.policies.cost.pools.ResourceIndex`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pulumi_policy import StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import CannotTell, not_judged

# --- AWS ------------------------------------------------------------------------------------------
AWS_ASG = "aws:autoscaling/group:Group"
AWS_ASG_POLICY = "aws:autoscaling/policy:Policy"
AWS_APPAS_POLICY = "aws:appautoscaling/policy:Policy"
AWS_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_INSTANCE = "aws:ec2/instance:Instance"

# --- Alibaba Cloud --------------------------------------------------------------------------------
ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_RULE = "alicloud:ess/scalingRule:ScalingRule"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_ESS_ALARM = "alicloud:ess/alarm:Alarm"

# --- Tencent Cloud --------------------------------------------------------------------------------
TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_POLICY = "tencentcloud:As/scalingPolicy:ScalingPolicy"
TC_ALARM_POLICY = "tencentcloud:Monitor/alarmPolicy:AlarmPolicy"

DEFAULT_COOLDOWN_S = 300


def stack_index(args: StackValidationArgs) -> ResourceIndex:
    """The stack's join index, built once per resource list (shared with the cost rules)."""
    return per_stack(ResourceIndex, args.resources)


def cannot_tell(urn: str, reason: str, path: str) -> None:
    """Record an advisory "could not be judged" for `urn`: the pack cannot tell, so it never passes."""
    not_judged(urn, CannotTell(reason, path))


def unknown(value: Any, path: str) -> UnknownValueError:
    return UnknownValueError(str(value), [path])


def known_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


def number(view: ResourceView, path: str) -> float | None:
    """A number at `path`; an unknown one raises (a decisive value never passes unknown)."""
    value = get_ref(view.props, path)
    if value is None or value == "":
        return None
    if is_unknown(value):
        raise unknown(value, path)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def strings(value: Any) -> list[Any]:
    """A string or a list of them, unknown elements kept as sentinels."""
    return [item for item in as_list(value) if isinstance(item, str)]


def quoted(names: Iterable[str]) -> str:
    items = [f"'{name}'" for name in dict.fromkeys(names)]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def seconds(value: float) -> str:
    return f"{int(value)} s"


def any_of(index: ResourceIndex, *types: str) -> bool:
    return any(index.by_type.get(t) for t in types)


def views(index: ResourceIndex, *types: str) -> Sequence[ResourceView]:
    return index.of_type(*types)
