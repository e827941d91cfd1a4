"""What every cloud's scaling policies and rules share as `ScalingSignal`s: the direction a policy
scales from its adjustments, its steps, its target tracking or its alarm's operator, and the decisive
values unknown at preview. Each cloud reads its own policies in ``<cloud>_scaling.py`` (AWS Auto
Scaling and Application Auto Scaling policies with their CloudWatch alarms, Alibaba ESS rules with
their alarm tasks, Tencent AS policies and Monitor alarm policies)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.cost.pools.reading import _num
from gpufleet.policies.props import as_list, get_ref, is_unknown, truthy


def _direction_of_adjustment(adjustment: float | None) -> str:
    if adjustment is None:
        return "unknown"
    if adjustment > 0:
        return "out"
    if adjustment < 0:
        return "in"
    return "unknown"


def _direction_of_steps(steps: Any) -> str:
    """A step policy's direction from the signs of its steps' adjustments; both when they disagree."""
    adjustments = [_num(get_ref(step, "scalingAdjustment")) for step in as_list(steps)]
    signs = {_direction_of_adjustment(a) for a in adjustments} - {"unknown"}
    return signs.pop() if len(signs) == 1 else ("both" if signs else "unknown")


def _direction_of_target(disable_in: Any) -> str:
    """Target tracking scales both ways unless its scale-in is disabled."""
    return "out" if disable_in is not None and truthy(disable_in) else "both"


def _direction_of_operator(operator: Any) -> str:
    text = str(operator or "").strip().lower().replace("_", "")
    if text.startswith(("greater", ">", "gt", "ge")):
        return "out"
    if text.startswith(("less", "<", "lt", "le")):
        return "in"
    return "unknown"


def _unknowns(resource: Any, paths: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The decisive values of `resource` (field -> wire path) that are unknown at preview."""
    found = {}
    for attribute, path in paths.items():
        value = get_ref(resource.props, path)
        if is_unknown(value):
            found[attribute] = (f"{resource.name}.{path}", value)
    return found
