"""The entrypoint's Alibaba Cloud wiring: an MNS queue, the ESS group's scale-in hook and OSS
checkpoints, through :mod:`gpufleet.worker.alicloud_http` (the standard library, no Alibaba SDK) and
the adapters of :mod:`gpufleet.worker.alicloud`.

- Credentials: ``ALIBABA_CLOUD_ACCESS_KEY_ID`` / ``ALIBABA_CLOUD_ACCESS_KEY_SECRET`` when set, else the
  RAM role of the instance (ECS metadata, hardened mode), renewed before its keys expire. They are read
  once here, so an instance with neither fails at start with the configuration exit code instead of
  failing every poll.
- The queue: ``GPUFLEET_QUEUE_URL`` (an MNS queue URL, ``https://<account>.mns.<region>.aliyuncs.com/
  queues/<name>``) gives the endpoint and the name; without it, ``GPUFLEET_QUEUE_NAME`` in the region's
  internal endpoint ``http://<account>.mns.<region>-internal.aliyuncs.com`` (HTTP only, as documented),
  the account read from ECS metadata ``owner-account-id``. MNS cannot report the queue's visibility
  timeout: ``GPUFLEET_VISIBILITY_S`` (default 900) states it.
  https://www.alibabacloud.com/help/en/mns/product-overview/regions-and-endpoints
- The instance: ESS 2014-08-28 at the region's VPC endpoint ``ess-vpc.<region>.aliyuncs.com``, which
  every region has (the public one is ``ess.aliyuncs.com`` in some regions, regional in others) and
  which needs no Internet access. ``GPUFLEET_GROUP`` (None: read from DescribeScalingInstances);
  ``GPUFLEET_LIFECYCLE_HOOK``, the scale-in hook to complete, by id (``ash-...``) or by the name the
  pool gives its workers (``gpufleet-drain``), looked up in the group with DescribeLifecycleHooks.
  https://www.alibabacloud.com/help/en/auto-scaling/developer-reference/api-ess-2014-08-28-endpoint,
  https://github.com/AlibabaCloudDocs/ess/blob/master/intl.en-US/API%20Reference/Lifecycle%20Hook/DescribeLifecycleHooks.md
- Checkpoints: ``GPUFLEET_BUCKET`` in the region's internal OSS endpoint
  ``oss-<region>-internal.aliyuncs.com``; none: they stay on the instance.
  https://www.alibabacloud.com/help/en/oss/user-guide/regions-and-endpoints
"""

from __future__ import annotations

import logging
import os
import time
import urllib.parse
from collections.abc import Callable, Mapping

from gpufleet.worker.alicloud import EcsMetadata, EssInstance, MnsQueue, OssCheckpoints
from gpufleet.worker.alicloud_http import (
    CredentialSource,
    MnsClient,
    OssUploader,
    RpcClient,
    metadata_http,
)
from gpufleet.worker.core import Checkpoints, Instance, Queue
from gpufleet.worker.entry import Config, ConfigError, NoCheckpoints
from gpufleet.worker.http import Transport, urllib_transport
from gpufleet.worker.metadata import required

log = logging.getLogger("gpufleet.worker.alicloud")

# ALIBABA_CLOUD_REGION_ID (the workload's variable) is also what the Alibaba Cloud SDKs and CLI read:
# there is no second convention to fall back on.
REGION_FALLBACK_ENVS: tuple[str, ...] = ()

ESS_VERSION = "2014-08-28"
# MNS cannot be asked the queue's visibility timeout; the pool's default.
DEFAULT_VISIBILITY_S = 900
OWNER_ACCOUNT_PATH = "latest/meta-data/owner-account-id"


def ess_endpoint(region: str) -> str:
    return f"ess-vpc.{region}.aliyuncs.com"


def mns_internal_endpoint(account_id: str, region: str) -> str:
    return f"http://{account_id}.mns.{region}-internal.aliyuncs.com"


def oss_internal_endpoint(region: str) -> str:
    return f"oss-{region}-internal.aliyuncs.com"


def queue_from_url(url: str) -> tuple[str, str]:
    """``(endpoint, name)`` of an MNS queue URL, ``https://<account>.mns.<region>.aliyuncs.com/queues/<name>``."""
    parsed = urllib.parse.urlsplit(url)
    segments = [segment for segment in parsed.path.split("/") if segment]
    if (
        parsed.scheme not in {"http", "https"}
        or not parsed.netloc
        or len(segments) != 2
        or segments[0] != "queues"
    ):
        raise ConfigError(
            f"GPUFLEET_QUEUE_URL={url!r} is not an MNS queue URL "
            "(https://<account-id>.mns.<region>.aliyuncs.com/queues/<name>)"
        )
    return f"{parsed.scheme}://{parsed.netloc}", segments[1]


def parts(
    config: Config,
    *,
    env: Mapping[str, str] | None = None,
    transport: Transport = urllib_transport,
    clock: Callable[[], float] = time.time,
) -> tuple[Queue, Instance, Checkpoints]:
    """The queue, instance and checkpoints of a worker on an ECS instance of an ESS group. ``env``
    (default: the process's), ``transport`` (every HTTP request, the metadata's included) and
    ``clock`` (wall time, which signs requests and expires keys) are what the tests replace."""
    metadata = EcsMetadata(http=metadata_http(transport))
    credentials = CredentialSource(metadata, os.environ if env is None else env, clock=clock)
    try:
        credentials()
    except OSError as error:
        raise ConfigError(
            "no Alibaba Cloud credentials: ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET "
            f"are not set and the instance's RAM role could not be read ({error})"
        ) from None
    if config.queue_url:
        base, name = queue_from_url(config.queue_url)

        def endpoint() -> str:
            return base

    elif config.queue_name:
        name = config.queue_name

        def endpoint() -> str:
            account = required(metadata.get(OWNER_ACCOUNT_PATH), "owner-account-id")
            return mns_internal_endpoint(account, config.region)

    else:
        raise ConfigError("GPUFLEET_QUEUE_NAME is not set (the pool sets it) nor GPUFLEET_QUEUE_URL")
    visibility = DEFAULT_VISIBILITY_S if config.visibility_s is None else config.visibility_s
    mns = MnsClient(endpoint, credentials, transport=transport, clock=clock)
    queue = MnsQueue(mns, name, visibility_timeout_s=visibility)
    ess = RpcClient(ess_endpoint(config.region), ESS_VERSION, credentials, transport=transport, clock=clock)
    instance = EssInstance(ess, metadata, config.region, group_id=config.group, hook_id=config.hook)
    checkpoints: Checkpoints = NoCheckpoints()
    if config.bucket:
        uploader = OssUploader(
            config.bucket, oss_internal_endpoint(config.region), credentials, transport=transport, clock=clock
        )
        checkpoints = OssCheckpoints(uploader, config.bucket, root=config.checkpoint_root)
    return queue, instance, checkpoints
