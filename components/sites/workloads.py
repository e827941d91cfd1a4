"""The reference worker as a pool's container workload, on every cloud (docs/worker.md).

``python -m gpufleet.worker --cloud <cloud>`` runs in the worker's image, whatever its ENTRYPOINT, with
every GPU. Each cloud's boot script adds the pool's queue and region (``workload_env``); where the
worker cannot ask the cloud, the site tells it more here: the scale-in hook's name, and the queue's
visibility timeout (MNS and CMQ have no call that reads it).
"""

from __future__ import annotations

from collections.abc import Mapping

from gpufleet.components.pools.lifecycle import DRAIN_HOOK_NAME, HOOK_ENV, VISIBILITY_ENV
from gpufleet.components.pools.workload import ContainerWorkload, ScriptWorkload, Workload
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


def pool_workload(pool: Pool, told: Mapping[str, str] | None = None) -> Workload | None:
    """What a pool's instances start after their boot, on every cloud (each boot script renders it with
    :func:`gpufleet.components.pools.userdata.render_workload`): the snippet, the container, the
    reference worker (``told`` what its cloud cannot ask: :func:`group_worker_env`), or nothing (no
    workload, or an image that reads its queue itself)."""
    workload = pool.workload
    if workload is None or workload.image_reads_queue:
        return None
    if workload.container is not None:
        given = workload.container
        return ContainerWorkload(image=given.image, command=given.command or (), env=given.env)
    if workload.reference_worker is not None:
        return reference_worker_workload(workload.reference_worker, pool.cloud, told)
    if workload.user_data is None:  # PoolWorkload holds exactly one form
        raise AssertionError("workload without user_data, container, reference_worker or image_reads_queue")
    return ScriptWorkload(user_data=workload.user_data)
