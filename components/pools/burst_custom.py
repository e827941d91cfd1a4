"""The burst gate where the cloud's alarms cannot AND two namespaces: a custom metric the exporter computes.

On AWS a pool's scale-out alarm ANDs its own queue with ``gpufleet/Baseline FreeGpusAhead`` in metric
math (:mod:`components.pools.burst`). Alibaba CloudMonitor alarms read one project each, so the AND is
done by the on-prem exporter instead: for each gated pool it publishes ``GatedBacklog``, the pool's
queue backlog while no GPU is free ahead of its site and 0 otherwise, and the pool's scale-out queue
alarm watches that. This module is the contract between the two, pure data and functions the exporter
imports: metric names, namespaces and dimensions per cloud, the value (:func:`gated_backlog`) and the
datapoint shape the cloud's API takes (each cloud's module of :mod:`gpufleet.components.pools.custom`,
where its names are imported from: Alibaba's ``alicloud_datapoints``).

Fail-open: a silent exporter must not stop the burst. CloudMonitor alarm rules (``cms.Alarm``) have no
no-data handling in pulumi-alicloud 4.0 (and none of the API's no-data states is "alarm"), so a gated
pool keeps its raw queue alarm too, with a longer window (``fallback_after_s``): with the exporter
silent or wrong, a backlog still scales the pool out after that window. The order therefore holds for
``fallback_after_s``; a backlog that outlasts it bursts regardless of the sites ahead.

Tencent Cloud: not enforced. A Cloud Monitor ``AlarmPolicy`` (the only alarm that runs an AS trigger
task) takes ``monitor_type`` ``MT_QCE``, Tencent Cloud service metrics, only: no namespace holds a
metric a program publishes, so no alarm can watch ``GatedBacklog``
(:data:`gpufleet.components.pools.facts.tencentcloud.NOT_ENFORCED`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpufleet.components.clouds import cloud_parts, profile
from gpufleet.components.pools.burst import SITE_DIMENSION

if TYPE_CHECKING:
    from gpufleet.components.spec.burst import Burst

GATED_METRIC = "GatedBacklog"
POOL_DIMENSION = "Pool"
PUBLISH_PERIOD_S = 60  # once a minute, as the AWS signal

MNS_PERIOD_S = 300  # acs_mns_new publishes every five minutes: the fallback alarm's period


def gated_dimensions(site: str, pool: str) -> dict[str, str]:
    """``GatedBacklog``'s dimensions: one series per pool (the backlog is the pool's own queue's)."""
    return {POOL_DIMENSION: pool, SITE_DIMENSION: site}


def signal_dimensions(site: str) -> dict[str, str]:
    """``FreeGpusAhead``'s dimensions: one series per site, as on AWS."""
    return {SITE_DIMENSION: site}


def gated_backlog(backlog: float | None, free_ahead: float | None) -> float | None:
    """What the exporter publishes as ``GatedBacklog``: the pool's queue backlog while no GPU is free
    ahead of its site, else 0.

    ``free_ahead`` None (the exporter could not read what is ahead) counts as nothing free, as AWS's
    ``FILL(ahead, 0)`` does: a broken reading must not hold the burst back. ``backlog`` None (the queue
    could not be read) gives None: publish nothing, and the pool's fallback alarm decides."""
    if backlog is None:
        return None
    if math.isnan(backlog) or backlog < 0:
        raise ValueError(f"backlog: {backlog!r} is not a message count")
    if free_ahead is not None and not math.isnan(free_ahead) and free_ahead >= 1:
        return 0.0
    return float(backlog)


@dataclass(frozen=True, kw_only=True)
class CustomGate:
    """A pool's gate on Alibaba Cloud: the site and pool the exporter names, the sites it counts ahead,
    the account whose custom-metric project holds the series, and when the raw queue alarm takes over."""

    site: str
    pool: str
    ahead: tuple[str, ...]
    account_id: Any  # pulumi.Input[str]: the account the alarm reads custom metrics of
    fallback_after_s: int

    @property
    def dimensions(self) -> dict[str, str]:
        return gated_dimensions(self.site, self.pool)

    def metric_dimensions(self) -> str:
        """``cms.Alarm.metric_dimensions``: a JSON list of dimension maps, as for the other alarms."""
        return json.dumps([self.dimensions], sort_keys=True)

    @property
    def fallback_periods(self) -> int:
        """The fallback alarm's five-minute periods: ``fallback_after_s`` rounded up."""
        return max(1, math.ceil(self.fallback_after_s / MNS_PERIOD_S))


def describe_gate(cloud: str, burst: Burst) -> str:
    """How an Alibaba or Tencent site's pools are held back, for ``gpufleet plan``'s burst-order lines
    (each cloud's ``describe_gate`` in components/pools/facts/<cloud>.py)."""
    return str(cloud_parts("gpufleet.components.pools.facts")[profile(cloud).key].describe_gate(burst))
