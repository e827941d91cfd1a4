"""Tencent Cloud's facts and checks for the operability rules (GF-OPS-*).

GF-OPS-001: the `cvm_device` (`QCE/CVM`) namespace of a Cloud Monitor `AlarmPolicy` that triggers
Auto Scaling, and the CPU and memory metrics of an AS `ScalingPolicy`, are reported by the Cloud Monitor
agent, installed unless the group's scaling configuration sets `enhancedMonitorService: false`.
`QCE/CMQ` (a CMQ queue's `visibleMsgNum` and the like) is published by CMQ itself.

GF-OPS-003 (AS scaling policies' cooldowns) and GF-OPS-005 (external KMS keys and their users) read
their Tencent Cloud facts from here too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.tencentcloud import (
    TC_ALARM_POLICY,
    TC_SCALING_CONFIG,
    TC_SCALING_GROUP,
    TC_SCALING_POLICY,
)
from gpufleet.policies.ops._common import number, quoted, value_at
from gpufleet.policies.ops._cooldown import sets_a_size, short_cooldown
from gpufleet.policies.props import as_list, get_ref, is_unknown, truthy
from gpufleet.policies.rule import CannotTell

# --- GF-OPS-001: scaling metrics --------------------------------------------------------------------------

TC_AGENT_NAMESPACES = frozenset({"cvm_device", "QCE/CVM"})
TC_AGENT_METRICS = frozenset({"CPU_UTILIZATION", "MEM_UTILIZATION"})
# Namespaces the service itself publishes for every resource it runs (CMQ queues' message counts).
# `cmq` is the alarm policy type id of CMQ queues (what an AlarmPolicy's `namespace` takes); `QCE/CMQ` is
# their metric namespace.
TC_SERVICE_NAMESPACES = frozenset({"cmq", "QCE/CMQ", "qce/cmq"})


def _json(value: Any) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str) and not is_unknown(value):
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _alarm_groups(index: ResourceIndex, alarm: ResourceView) -> tuple[bool, list[ResourceView]]:
    """Whether the Monitor alarm policy triggers Auto Scaling, and the groups it scales."""
    groups: dict[str, ResourceView] = {}
    triggers = False
    for task in as_list(get_ref(alarm.props, "triggerTasks")):
        if not isinstance(task, Mapping) or str(get_ref(task, "type") or "").upper() != "AS":
            continue
        triggers = True
        config = _json(get_ref(task, "taskConfig"))
        for group in index.refs(alarm, "triggerTasks", (TC_SCALING_GROUP,), value=config.get("Group", "")):
            groups[group.urn] = group
        for policy in index.refs(alarm, "triggerTasks", (TC_SCALING_POLICY,), value=config.get("Policy", "")):
            groups.update((g.urn, g) for g in index.refs(policy, "scalingGroupId", (TC_SCALING_GROUP,)))
    return triggers, list(groups.values())


def _tencent_agent(index: ResourceIndex, label: str, metric: str, groups: list[ResourceView]) -> list[str]:
    configs: dict[str, ResourceView] = {}
    for group in groups:
        configs.update((c.urn, c) for c in index.refs(group, "configurationId", (TC_SCALING_CONFIG,)))
    if not configs:
        raise CannotTell(
            f"{label} scales on {metric}, reported by the Cloud Monitor agent, but its group's scaling "
            "configuration is not in the stack",
            "scalingGroupId",
        )
    off = []
    for config in configs.values():
        enabled = value_at(config, "enhancedMonitorService")
        if enabled is not None and not truthy(enabled):
            off.append(config.name)
    if not off:
        return []
    return [
        f"{label} scales on {metric}, reported by the Cloud Monitor agent, but scaling configuration "
        f"{quoted(off)} turns the agent off (enhancedMonitorService false): the alarm never fires; turn it on"
    ]


def tencent_problems(index: ResourceIndex, view: ResourceView, listed: list[str]) -> list[str]:
    if view.resource_type == TC_SCALING_POLICY:
        metric = str(value_at(view, "metricName") or "")
        if metric not in TC_AGENT_METRICS or metric in listed:
            return []
        groups = index.refs(view, "scalingGroupId", (TC_SCALING_GROUP,))
        return _tencent_agent(index, f"AS scaling policy '{view.name}'", metric, groups)
    triggers, groups = _alarm_groups(index, view)
    if not triggers:
        return []
    namespace = str(value_at(view, "namespace") or "")
    if namespace in listed or namespace in TC_SERVICE_NAMESPACES:
        return []
    label = f"alarm policy '{view.name}'"
    metrics = [
        str(get_ref(rule, "metricName"))
        for rule in as_list(get_ref(view.props, "conditions.rules"))
        if isinstance(rule, Mapping) and get_ref(rule, "metricName")
    ]
    if namespace not in TC_AGENT_NAMESPACES:
        raise CannotTell(
            f"{label} scales on namespace {namespace}; who publishes it is not known to the pack: list "
            f"'{namespace}' in published_namespaces if something publishes it",
            "namespace",
        )
    return _tencent_agent(index, label, f"{namespace} {', '.join(metrics) or 'metrics'}", groups)


# --- GF-OPS-003: scale-in cooldown ------------------------------------------------------------------------

COOLDOWN_TYPES = (TC_SCALING_POLICY,)
COOLDOWN_EXAMPLE = "Tencent as.ScalingPolicy cooldown=300"


def cooldown_problem(
    index: ResourceIndex, view: ResourceView, fired: Mapping[str, list[str]], minimum: int
) -> str | None:
    """An AS scaling policy that scales in with a cooldown under `minimum` (default 300 s)."""
    adjustment = number(view, "adjustmentValue")
    if adjustment is None or adjustment >= 0 or sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    if cooldown is None or cooldown >= minimum:  # Tencent's default is 300 s
        return None
    return short_cooldown("AS scaling policy", view, cooldown, "a cooldown", minimum)


# --- GF-OPS-001: what the rule judges ---------------------------------------------------------------------

METRIC_TYPES = (TC_ALARM_POLICY, TC_SCALING_POLICY)
METRIC_REMEDIATION = "Tencent: keep enhanced_monitor_service on."


def metric_alarms(index: ResourceIndex) -> list[ResourceView]:
    """Monitor alarm policies (those with an `AS` trigger task scale) and AS scaling policies."""
    return index.of_type(TC_ALARM_POLICY, TC_SCALING_POLICY)


def metric_judge(
    index: ResourceIndex, alarms: list[ResourceView], listed: list[str]
) -> Callable[[ResourceView], list[str]]:
    """The problems of one of `alarms`."""
    return lambda alarm: tencent_problems(index, alarm, listed)


# --- GF-OPS-005: keys pending import ----------------------------------------------------------------------

# External keys, pending import without `keyMaterialBase64`.
PENDING_KEY_TYPES = ("tencentcloud:Kms/externalKey:ExternalKey",)
IMPORT_COMMAND = "Tencent ImportKeyMaterial"
# How the remediation names the clouds whose external key takes its material as an input.
MATERIAL_NAME = "Tencent"
# What uses a key: type token -> (what it is, the inputs naming the key).
KEY_USERS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "tencentcloud:Cos/bucket:Bucket": ("COS bucket", ("kmsId",)),
    "tencentcloud:Cbs/storage:Storage": ("CBS disk", ("kmsKeyId",)),
    "tencentcloud:Instance/instance:Instance": ("CVM instance", ("dataDisks",)),
}
