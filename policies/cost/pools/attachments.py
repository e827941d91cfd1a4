"""What attaches to a pool: scaling policies, alarms and schedules, grouped by the pool URN they act on
(built once per stack).

The neutral part: :class:`_Attachments` holds the groupings and asks each cloud to fill them (the
``ATTACH`` function of ``pools/<cloud>.py``, written in ``pools/<cloud>_scaling.py``), and
:func:`_scheduled_action` reads a scheduled action the same way for every cloud.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from gpufleet.policies.cost.pools.index import ResourceIndex
from gpufleet.policies.cost.pools.model import ScalingSignal, ScheduledAction
from gpufleet.policies.cost.pools.reading import _int
from gpufleet.policies.props import get_ref

# The (min, max, desired) size paths of an AWS Auto Scaling or Tencent AS scheduled action.
_GROUP_SIZES = ("minSize", "maxSize", "desiredCapacity")


def _scheduled_action(
    resource: Any,
    sizes: tuple[str | None, str | None, str | None],
    recurrence: str | None,
    timezone: str | None,
) -> ScheduledAction:
    """A scheduled action read from the wire paths of its (min, max, desired) sizes; None where the
    cloud's action has no such size."""
    min_size, max_size, desired = (_int(get_ref(resource.props, path)) if path else None for path in sizes)
    return ScheduledAction(resource.urn, resource.name, min_size, max_size, desired, recurrence, timezone)


class _Attachments:
    """Scaling policies, alarms and schedules, grouped by the pool URN they attach to (built once).

    ``attachers`` are the clouds' functions that fill the groupings from the stack's resources, run in
    the registry's order.
    """

    def __init__(
        self, index: ResourceIndex, attachers: Iterable[Callable[[_Attachments, ResourceIndex], None]]
    ) -> None:
        self.signals: dict[str, list[ScalingSignal]] = defaultdict(list)
        self.schedules: dict[str, list[ScheduledAction]] = defaultdict(list)
        # Scaling group URN -> the scaling configurations that launch its instances (Alibaba ESS).
        self.ali_configs: dict[str, list[Any]] = defaultdict(list)
        # Spot fleet URN -> the `maxCapacity` values of the scalable targets that scale it (an
        # unknown one kept as its sentinel).
        self.fleet_max_capacity: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for attach in attachers:
            attach(self, index)
