"""``python -m gpufleet.worker --cloud aws``: the container entrypoint (``docs/worker.md``).

The settings come from the environment the pool gives its workload (``GPUFLEET_QUEUE_NAME`` and the
cloud's region variable) plus the worker's own variables. The worker's own SIGTERM (``docker stop``,
an instance shutting down) is a termination notice like the cloud's.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from gpufleet.worker.core import Checkpoints, Instance, Queue, Settings, Worker

CLOUDS = ("aws", "alicloud", "tencentcloud")
REGION_ENVS = {
    "aws": "AWS_REGION",
    "alicloud": "ALIBABA_CLOUD_REGION_ID",
    "tencentcloud": "TENCENTCLOUD_REGION",
}
EXIT_CONFIG = 2


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


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value < 0:
        raise ConfigError(f"{name}={raw!r} is negative")
    return value


def load_config(cloud: str, env: Mapping[str, str]) -> Config:
    region = env.get(REGION_ENVS[cloud]) or (env.get("AWS_DEFAULT_REGION") if cloud == "aws" else None)
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


class NoCheckpoints:
    """No bucket configured: a job's checkpoint is left where it is, and said so."""

    def location(self, prefix: str) -> str:
        return ""

    def upload_dir(self, local: Path, prefix: str) -> int:
        raise RuntimeError("GPUFLEET_BUCKET is not set: the checkpoint stays on the instance")


def aws_parts(config: Config) -> tuple[Queue, Instance, Checkpoints]:
    try:
        import boto3
    except ImportError:
        raise ConfigError("boto3 is missing: install gpufleet[worker-aws]") from None
    from gpufleet.worker.aws import AsgInstance, Imds, S3Checkpoints, SqsQueue, queue_url

    sqs = boto3.client("sqs", region_name=config.region)
    url = config.queue_url or queue_url(sqs, config.queue_name or "")
    queue = SqsQueue(sqs, url, timeout_s=config.visibility_s)
    instance = AsgInstance(
        boto3.client("autoscaling", region_name=config.region), Imds(), group=config.group, hook=config.hook
    )
    checkpoints: Checkpoints = NoCheckpoints()
    if config.bucket:
        checkpoints = S3Checkpoints(
            boto3.client("s3", region_name=config.region), config.bucket, root=config.checkpoint_root
        )
    return queue, instance, checkpoints


def build(config: Config) -> Worker:
    if config.cloud != "aws":
        # MNS/ESS and CMQ/AS take their clients injected (gpufleet.worker.alicloud, .tencentcloud):
        # an image for those clouds builds its Worker with them (docs/worker.md).
        raise ConfigError(
            f"--cloud {config.cloud}: this entrypoint wires AWS only; build the Worker with "
            f"gpufleet.worker.{config.cloud} and your SDK's clients (docs/worker.md)"
        )
    queue, instance, checkpoints = aws_parts(config)
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
