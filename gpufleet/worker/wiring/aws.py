"""The entrypoint's AWS wiring: SQS, the Auto Scaling group's lifecycle hook and S3 checkpoints through
boto3 (the optional extra ``worker-aws``), with the adapters of ``gpufleet.worker.aws``."""

from __future__ import annotations

from gpufleet.worker.core import Checkpoints, Instance, Queue
from gpufleet.worker.entry import Config, ConfigError, NoCheckpoints

# Read for the region when AWS_REGION (the workload's variable) is not set.
REGION_FALLBACK_ENVS = ("AWS_DEFAULT_REGION",)


def parts(config: Config) -> tuple[Queue, Instance, Checkpoints]:
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
