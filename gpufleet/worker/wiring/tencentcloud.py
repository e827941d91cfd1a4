"""The entrypoint's Tencent Cloud wiring: a TDMQ for CMQ queue, the AS group's scale-in hook and COS
checkpoints, through :mod:`gpufleet.worker.tencentcloud_http` (the standard library, no Tencent SDK)
and the adapters of :mod:`gpufleet.worker.tencentcloud`.

- Credentials: ``TENCENTCLOUD_SECRET_ID`` / ``TENCENTCLOUD_SECRET_KEY`` when set, else the CAM role
  bound to the instance (CVM metadata), refreshed before the temporary keys expire. They are read once
  here, so an instance with neither fails at start with the configuration exit code instead of
  retrying every poll.
- The queue: ``GPUFLEET_QUEUE_NAME`` names it in every call. Its data-flow endpoint is the region's
  private one, ``http://<code>.mqadapter.cmq.tencentyun.com`` (``gz`` for ap-guangzhou...);
  ``GPUFLEET_QUEUE_URL``, when set, is the endpoint to use instead (the console's "API request
  address", e.g. a public ``https://cmq-<code>.public.tencenttdmq.com`` or a region without a known
  code). CMQ cannot report the queue's visibility timeout: ``GPUFLEET_VISIBILITY_S`` (default 900)
  states it.
- The instance: AS API 3.0 at ``as.<region>.tencentcloudapi.com``; ``GPUFLEET_GROUP`` (None: read
  from DescribeAutoScalingInstances) and ``GPUFLEET_LIFECYCLE_HOOK`` (the hook id to complete).
- Checkpoints: ``GPUFLEET_BUCKET`` (``name-APPID``) in the region's COS endpoint; none: they stay on
  the instance.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from gpufleet.components.spec_limits.tencentcloud import CMQ_REGION_CODES
from gpufleet.worker.core import Checkpoints, Instance, Queue
from gpufleet.worker.entry import Config, ConfigError, NoCheckpoints
from gpufleet.worker.http import Transport, urllib_transport
from gpufleet.worker.metadata import Http, urllib_http
from gpufleet.worker.tencentcloud import AsInstance, CmqQueue, CosCheckpoints, CvmMetadata
from gpufleet.worker.tencentcloud_http import (
    CmqClient,
    CosUploader,
    Tc3Client,
    cmq_endpoint,
    credential_source,
)

# TENCENTCLOUD_REGION (the workload's variable) is also what TCCLI and the Terraform provider read:
# Tencent Cloud has no second convention to fall back on.
REGION_FALLBACK_ENVS: tuple[str, ...] = ()

AS_SERVICE = "as"
AS_VERSION = "2018-04-19"
# CMQ cannot be asked the queue's visibility timeout; the pool's default.
DEFAULT_VISIBILITY_S = 900


def parts(
    config: Config,
    *,
    env: Mapping[str, str] | None = None,
    transport: Transport = urllib_transport,
    metadata_http: Http = urllib_http,
    clock: Callable[[], float] = time.time,
) -> tuple[Queue, Instance, Checkpoints]:
    """The queue, instance and checkpoints of a worker on a CVM instance of an AS group. ``env``
    (default: the process's), ``transport``, ``metadata_http`` and ``clock`` (wall time, which signs
    requests and expires keys) are what the tests replace."""
    if not config.queue_name:
        raise ConfigError(
            "GPUFLEET_QUEUE_NAME is not set: every CMQ call names the queue (GPUFLEET_QUEUE_URL is only "
            "its data-flow endpoint)"
        )
    endpoint = config.queue_url or cmq_endpoint(config.region)
    if endpoint is None:
        raise ConfigError(
            f"no known CMQ endpoint for {config.region}: set GPUFLEET_QUEUE_URL to the queue's API request "
            "address (TDMQ for CMQ console)"
        )
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigError(f"GPUFLEET_QUEUE_URL={endpoint!r} is not an http:// or https:// address")
    metadata = CvmMetadata(http=metadata_http)
    credentials = credential_source(os.environ if env is None else env, metadata, clock)
    try:
        credentials.get()
    except OSError as error:
        raise ConfigError(
            "no Tencent Cloud credentials: TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY are not set "
            f"and the instance's CAM role could not be read ({error})"
        ) from None
    cmq = CmqClient(
        endpoint,
        credentials,
        region_code=CMQ_REGION_CODES.get(config.region),
        transport=transport,
        clock=clock,
    )
    visibility = DEFAULT_VISIBILITY_S if config.visibility_s is None else config.visibility_s
    queue = CmqQueue(cmq, config.queue_name, visibility_timeout_s=visibility)
    as_api = Tc3Client(AS_SERVICE, AS_VERSION, config.region, credentials, transport=transport, clock=clock)
    instance = AsInstance(as_api, metadata, group_id=config.group, hook_id=config.hook)
    checkpoints: Checkpoints = NoCheckpoints()
    if config.bucket:
        uploader = CosUploader(config.region, credentials, transport=transport, clock=clock)
        checkpoints = CosCheckpoints(uploader, config.bucket, root=config.checkpoint_root)
    return queue, instance, checkpoints
