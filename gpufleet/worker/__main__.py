"""``python -m gpufleet.worker --cloud <cloud>``: the container entrypoint (``docs/worker.md``).

The settings come from the environment the pool gives its workload (``GPUFLEET_QUEUE_NAME`` and the
cloud's region variable) plus the worker's own variables. The worker's own SIGTERM (``docker stop``,
an instance shutting down) is a termination notice like the cloud's.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from gpufleet.components.clouds import CLOUDS, as_cloud, cloud_parts, profile
from gpufleet.worker.core import Settings, Worker
from gpufleet.worker.entry import REGION_ENVS, Config, ConfigError, NoCheckpoints, region_envs

__all__ = [
    "CLOUDS",
    "EXIT_CONFIG",
    "REGION_ENVS",
    "Config",
    "ConfigError",
    "NoCheckpoints",
    "build",
    "load_config",
    "main",
]

EXIT_CONFIG = 2


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{name}={raw!r} is not a number of seconds, 0 or more")
    return value


def load_config(cloud: str, env: Mapping[str, str]) -> Config:
    region = next((value for name in region_envs(cloud) if (value := env.get(name))), None)
    if not region:
        raise ConfigError(f"{REGION_ENVS[cloud]} is not set (the pool sets it)")
    queue_name = env.get("GPUFLEET_QUEUE_NAME") or None
    queue_url = env.get("GPUFLEET_QUEUE_URL") or None
    if queue_name is None and queue_url is None:
        raise ConfigError("GPUFLEET_QUEUE_NAME is not set (the pool sets it) nor GPUFLEET_QUEUE_URL")
    visibility = env.get("GPUFLEET_VISIBILITY_S")
    settings = Settings(
        checkpoint_dir=Path(env.get("GPUFLEET_CHECKPOINT_DIR") or "/var/lib/gpufleet/checkpoints"),
        wait_s=int(_number(env, "GPUFLEET_WAIT_S", 20)),
        poll_s=_number(env, "GPUFLEET_POLL_S", 1.0),
        notice_s=_number(env, "GPUFLEET_NOTICE_S", 15.0),
        grace_s=_number(env, "GPUFLEET_GRACE_S", 90.0),
    )
    return Config(
        cloud=cloud,
        region=region,
        queue_name=queue_name,
        queue_url=queue_url,
        group=env.get("GPUFLEET_GROUP") or None,
        hook=env.get("GPUFLEET_LIFECYCLE_HOOK") or None,
        bucket=env.get("GPUFLEET_BUCKET") or None,
        checkpoint_root=env.get("GPUFLEET_CHECKPOINT_ROOT", "checkpoints/"),
        settings=settings,
        visibility_s=int(_number(env, "GPUFLEET_VISIBILITY_S", 0)) if visibility else None,
    )


def build(config: Config) -> Worker:
    wirings = cloud_parts("gpufleet.worker.wiring")
    key = as_cloud(config.cloud)
    wiring = wirings.get(key) if key is not None else None
    if wiring is None:
        # A cloud registered without wiring: its adapters (gpufleet.worker.<cloud>) take their clients
        # injected, so an image for it builds its Worker itself (docs/worker.md).
        wired = " and ".join(profile(k).name for k in wirings)
        raise ConfigError(
            f"--cloud {config.cloud}: this entrypoint wires {wired} only; build the Worker with "
            f"gpufleet.worker.{config.cloud} and your SDK's clients (docs/worker.md)"
        )
    queue, instance, checkpoints = wiring.parts(config)
    stop = {"requested": False}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        logging.getLogger("gpufleet.worker").warning("signal %s: treated as a termination notice", signum)
        stop["requested"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return Worker(
        queue=queue,
        instance=instance,
        checkpoints=checkpoints,
        settings=config.settings,
        stop_requested=lambda: stop["requested"],
    )


def main(argv: list[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpufleet.worker", description=__doc__)
    parser.add_argument("--cloud", choices=CLOUDS, required=True)
    parser.add_argument("--max-jobs", type=int, default=None, help="stop after this many jobs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        worker = build(load_config(args.cloud, os.environ if env is None else env))
    except ConfigError as error:
        print(f"gpufleet worker: {error}", file=sys.stderr)
        return EXIT_CONFIG
    outcome = worker.run(max_jobs=args.max_jobs)
    logging.getLogger("gpufleet.worker").info("leaving: %s", outcome.value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
