"""What GF-OPS-003's cloud checks share: which alarms fire a policy, its steps and kind, and the two
messages (a step policy fired by an alarm, a cooldown too short). Each cloud's check of one policy is in
its module of this package (`cooldown_problem`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.ops._common import known_str, quoted, unknown
from gpufleet.policies.props import as_list, get_ref, is_unknown


def fired_by(index: ResourceIndex, alarm_type: str, policy_type: str) -> dict[str, list[str]]:
    """Policy URN -> names of the alarms of the stack whose actions fire it."""
    fired: dict[str, list[str]] = defaultdict(list)
    for alarm in index.of_type(alarm_type):
        for policy in index.refs(alarm, "alarmActions", (policy_type,)):
            fired[policy.urn].append(alarm.name)
    return fired


def step_adjustments(view: ResourceView, path: str, field: str = "scalingAdjustment") -> list[float]:
    """The step adjustments at `path`; an unknown one raises."""
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    found = []
    for i, step in enumerate(as_list(value)):
        adjustment = get_ref(step, field) if isinstance(step, dict) else None
        if is_unknown(adjustment):
            raise unknown(adjustment, f"{path}.{i}.{field}")
        if adjustment is None:
            continue
        try:
            found.append(float(adjustment))
        except (TypeError, ValueError):
            continue  # not a number: the provider rejects the policy before it can scale
    return found


def sets_a_size(view: ResourceView, path: str) -> bool:
    """True when the adjustment type at `path` sets a size (exact or total capacity), not a step."""
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    return isinstance(value, str) and value.replace("_", "").lower() in ("exactcapacity", "totalcapacity")


def policy_kind(view: ResourceView, path: str, default: str) -> str:
    """The policy kind at `path` (`default` when unset); an unknown one raises."""
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    return known_str(value) or default


def step_message(kind: str, view: ResourceView, steps: list[float], alarms: list[str], fix: str) -> str:
    noun = "alarm" if len(alarms) == 1 else "alarms"
    return (
        f"{kind} '{view.name}' scales in by {int(abs(min(steps)))} and is fired by {noun} "
        f"{quoted(alarms)}: the action is re-run every minute while the alarm holds and a step policy "
        f"takes no cooldown, so the group loses capacity every minute; {fix}"
    )


def fired_step_problem(view: ResourceView, fired: Mapping[str, list[str]], kind: str, fix: str) -> str | None:
    """The problem of a step policy (`kind`) whose `stepAdjustments` scale in and that an alarm of the
    stack fires (`fired`), or None; one whose `adjustmentType` sets a size does not step."""
    steps = step_adjustments(view, "stepAdjustments")
    if sets_a_size(view, "adjustmentType") or not any(s < 0 for s in steps):
        return None
    alarms = fired.get(view.urn, [])
    if not alarms:
        return None
    return step_message(kind, view, steps, alarms, fix)


def short_cooldown(kind: str, view: ResourceView, cooldown: float, source: str, minimum: int) -> str:
    return (
        f"{kind} '{view.name}' scales in with {source} of {int(cooldown)} s; set a cooldown of at least "
        f"{minimum} s so that one scale-in takes effect before the next"
    )
