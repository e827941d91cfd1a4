"""KEDA's ``aws-sqs-queue`` trigger (see :mod:`gpufleet.components.baseline.keda_triggers`): the queue's
URL and region; without a TriggerAuthentication, KEDA's operator identity reads the queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.spec.onprem import QueueScaler


def metadata(scaler: QueueScaler, threshold: str) -> dict[str, str]:
    found = {"queueURL": scaler.queue, "queueLength": threshold, "awsRegion": scaler.region or ""}
    if scaler.authentication is None:
        found["identityOwner"] = "operator"
    return found
