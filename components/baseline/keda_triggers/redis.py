"""KEDA's ``redis`` trigger (see :mod:`gpufleet.components.baseline.keda_triggers`): a list's length."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.spec.onprem import QueueScaler


def metadata(scaler: QueueScaler, threshold: str) -> dict[str, str]:
    return {"address": scaler.host or "", "listName": scaler.queue, "listLength": threshold}
