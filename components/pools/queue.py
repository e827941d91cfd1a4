"""The AWS pool's SQS queue under its former name, for modules not yet moved to :mod:`.aws_queue`."""

from __future__ import annotations

from gpufleet.components.pools.aws_queue import ExistingQueue, NewQueue, QueueSource

__all__ = ["ExistingQueue", "NewQueue", "QueueSource"]
