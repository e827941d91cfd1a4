"""The reference worker as a pool's container workload, on every cloud (docs/worker.md).

``python -m gpufleet.worker --cloud <cloud>`` runs in the worker's image, whatever its ENTRYPOINT, with
every GPU. Each cloud's boot script adds the pool's queue and region (``workload_env``); where the
worker cannot ask the cloud, the site tells it more here: the scale-in hook's name, and the queue's
visibility timeout (MNS and CMQ have no call that reads it).
"""

from __future__ import annotations

from collections.abc import Mapping

from gpufleet.components.pools.lifecycle import DRAIN_HOOK_NAME, HOOK_ENV, VISIBILITY_ENV
from gpufleet.components.pools.workload import ContainerWorkload
from gpufleet.components.spec.pool import (
    REFERENCE_WORKER_ENTRYPOINT,
    Pool,
    ReferenceWorker,
    reference_worker_command,
)


def reference_worker_workload(
    worker: ReferenceWorker, cloud: str, told: Mapping[str, str] | None = None
) -> ContainerWorkload:
    """``python -m gpufleet.worker --cloud <cloud>`` in the worker's image; ``told`` (the site's) comes
    first in its environment, the spec's ``env`` after it, so an operator's setting wins."""
    return ContainerWorkload(
        image=worker.image,
        entrypoint=REFERENCE_WORKER_ENTRYPOINT,
        command=reference_worker_command(cloud),
        env={**(told or {}), **worker.env},
    )


def group_worker_env(pool: Pool) -> dict[str, str]:
    """What a worker on a cloud whose queue cannot be asked for its visibility timeout (MNS, CMQ) is
    told: the pool's scale-in hook (by name: the worker finds its id in its group) and the timeout."""
    return {HOOK_ENV: DRAIN_HOOK_NAME, VISIBILITY_ENV: str(pool.queue.visibility_timeout_s)}
