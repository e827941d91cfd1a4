"""Tencent Cloud's limits the fleet spec checks of its pools (``gpufleet.components.spec_limits``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The short region codes of TDMQ for CMQ's data-flow endpoints (http://<code>.mqadapter.cmq.tencentyun.com)
# and its Region parameter, by API 3.0 region: the codes TDMQ for CMQ's common parameters list (bj gz sh
# hk ca sg usw cd de kr; https://www.tencentcloud.com/document/product/1111/46459) and the other legacy
# codes Tencent Cloud documents for the same regions (cq th jp in use). The reference worker
# (gpufleet/worker/tencentcloud_http.py) reaches its queue there.
CMQ_REGION_CODES: Mapping[str, str] = {
    "ap-beijing": "bj",
    "ap-guangzhou": "gz",
    "ap-shanghai": "sh",
    "ap-hongkong": "hk",
    "na-toronto": "ca",
    "ap-singapore": "sg",
    "na-siliconvalley": "usw",
    "ap-chengdu": "cd",
    "eu-frankfurt": "de",
    "ap-seoul": "kr",
    "ap-chongqing": "cq",
    "ap-bangkok": "th",
    "ap-tokyo": "jp",
    "ap-mumbai": "in",
    "na-ashburn": "use",
}
# The variable that names the data-flow endpoint where no code is known (gpufleet/worker/wiring).
QUEUE_URL_ENV = "GPUFLEET_QUEUE_URL"


HOME_REGISTRY = "Tencent Container Registry (TCR) in the pool's region"
"""Where a pool's images belong when they are private (named when a private ECR image is refused)."""


def image_route_problem(image: str, egress: str, region: str | None = None) -> str | None:
    """Why a private subnet of the fleet's network (``egress`` none or endpoints: no NAT gateway) cannot
    pull ``image``. The network reaches COS, CLS, CMQ, KMS and TAT on their private endpoints only
    (components/network/tencentcloud.py); no registry is among them, and the reference worker's Auto
    Scaling calls (as.<region>.tencentcloudapi.com) need a way out as well."""
    return (
        f"network.egress {egress} gives the private subnets no route to a registry (the network reaches "
        "COS, CLS, CMQ, KMS and TAT on private endpoints only): set network.egress: nat"
    )


def reference_worker_problem(region: Any, env: Mapping[str, Any], queue: Mapping[str, Any]) -> str | None:
    """Why the reference worker could not carry its jobs on a Tencent pool in ``region``: a region with
    no known CMQ data-flow endpoint (unless ``env`` names it), or a queue whose visibility timeout the
    spec leaves at its default. CMQ has no call that extends a received message's visibility, so the
    queue's own timeout should cover the longest job: the worker stops one that would outlive it."""
    if isinstance(region, str) and region not in CMQ_REGION_CODES and not env.get(QUEUE_URL_ENV):
        return (
            f"the reference worker reaches its CMQ queue through the region's data-flow endpoint, and none "
            f"is known for {region} (known: {', '.join(sorted(CMQ_REGION_CODES))}): set "
            f"env.{QUEUE_URL_ENV} to the queue's API request address (TDMQ for CMQ console), or run the "
            "pool in one of those regions"
        )
    timeout = queue.get("visibility_timeout")
    if timeout is None:
        return (
            "CMQ cannot extend a received message's visibility, so the reference worker stops a job, with "
            "its checkpoint, a grace period before queue.visibility_timeout ends, to be delivered again: set "
            "queue.visibility_timeout to the longest job (at most 12h)"
        )
    seconds, grace = _seconds(timeout), _grace_s(env)
    if seconds is not None and grace is not None and seconds <= grace:
        return (
            f"queue.visibility_timeout ({seconds} s) must be longer than the worker's grace period "
            f"(GPUFLEET_GRACE_S, {grace:g} s): CMQ cannot extend a received message's visibility, so the "
            "worker stops each job that long before the timeout ends, and would stop every job as it starts"
        )
    return None


def _seconds(duration: Any) -> int | None:
    """A spec duration in seconds, or None when it is no duration (the spec's own check says so)."""
    from gpufleet.components.spec.values import duration_seconds

    if isinstance(duration, int) and not isinstance(duration, bool):
        return duration if duration >= 0 else None
    try:
        return duration_seconds(duration) if isinstance(duration, str) else None
    except ValueError:
        return None


def _grace_s(env: Mapping[str, Any]) -> float | None:
    """The reference worker's grace period: its env's, else the worker's default; None when the env's
    is no number (the spec's own check says so)."""
    from gpufleet.components.spec_limits import WORKER_SECONDS_DEFAULTS

    raw = env.get("GPUFLEET_GRACE_S")
    if raw is None or raw == "":
        return WORKER_SECONDS_DEFAULTS["GPUFLEET_GRACE_S"]
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None
