"""The container entrypoint's settings (``python -m gpufleet.worker``): what the environment the pool gives
its workload says (the entrypoint reads the variables), and the checkpoints of a worker without a
bucket. Neutral: each cloud's wiring (its clients, any extra region variable) is in
``gpufleet/worker/wiring/<cloud>.py``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpufleet.components.clouds import PROFILES, as_cloud, cloud_parts
from gpufleet.worker.core import Settings

# The variable each cloud's workload is told its region in, by cloud.
REGION_ENVS: dict[str, str] = {p.key: p.workload_region_env for p in PROFILES.values()}


def region_envs(cloud: str) -> tuple[str, ...]:
    """The variables the region is read from, first preferred: the workload's, then any the cloud's
    wiring also accepts (REGION_FALLBACK_ENVS)."""
    key = as_cloud(cloud)
    wiring = cloud_parts("gpufleet.worker.wiring").get(key) if key is not None else None
    return (REGION_ENVS[cloud], *getattr(wiring, "REGION_FALLBACK_ENVS", ()))


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Config:
    cloud: str
    region: str
    queue_name: str | None
    queue_url: str | None
    group: str | None
    hook: str | None
    bucket: str | None
    checkpoint_root: str
    settings: Settings
    visibility_s: int | None


class NoCheckpoints:
    """No bucket configured: a job's checkpoint is left where it is, and said so."""

    def location(self, prefix: str) -> str:
        return ""

    def upload_dir(self, local: Path, prefix: str) -> int:
        raise RuntimeError("GPUFLEET_BUCKET is not set: the checkpoint stays on the instance")
