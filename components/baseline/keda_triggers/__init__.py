"""The metadata of each KEDA trigger a worker queue may use (``onprem.workers[].queue.source``), one
module per trigger type named after it (``-`` as ``_``: ``redis.py``, ``rabbitmq.py``, ``aws_sqs_queue.py``),
each with ``metadata(scaler, threshold)``. Every value is a string, as KEDA reads them; no credential is
ever written there: they come from the named TriggerAuthentication or KEDA's own identity.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufleet.components.spec.onprem import QueueScaler


def trigger_metadata(scaler: QueueScaler) -> dict[str, str]:
    """The KEDA trigger's metadata for ``scaler``, from its source's module."""
    module = importlib.import_module(f"{__name__}.{scaler.source.replace('-', '_')}")
    found: dict[str, str] = module.metadata(scaler, str(scaler.queue_threshold))
    return found
