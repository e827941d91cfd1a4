"""Alibaba Cloud's side of the exporter's custom-metric contract
(:mod:`gpufleet.components.pools.burst_custom`): CloudMonitor's PutCustomMetric, its project of custom
metrics, and the ``MetricList`` items the exporter sends for a site (:func:`alicloud_datapoints`; the
exporter script has the same functions, since it ships alone). The identity the exporter assumes is a
RAM role trusted through the cluster's OIDC provider, its token's audience the STS client id
(:data:`ALICLOUD_CLIENT_ID`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from gpufleet.components.pools.burst import SIGNAL_METRIC
from gpufleet.components.pools.burst_custom import (
    GATED_METRIC,
    PUBLISH_PERIOD_S,
    gated_backlog,
    gated_dimensions,
    signal_dimensions,
)

ALICLOUD_NAMESPACE_PREFIX = "acs_customMetric_"
ALICLOUD_PUT_ACTION = "cms:PutCustomMetric"  # the RAM action of CloudMonitor's PutCustomMetric API
ALICLOUD_GROUP_ID = "0"  # PutCustomMetric: 0 is "no application group"
ALICLOUD_RAW_TYPE = "0"  # PutCustomMetric Type 0: raw values, aggregated by CloudMonitor
ALICLOUD_CLIENT_ID = "sts.aliyuncs.com"


def alicloud_namespace(account_id: str) -> str:
    """The CloudMonitor project of custom metrics of account ``account_id``."""
    return f"{ALICLOUD_NAMESPACE_PREFIX}{account_id}"


def alicloud_item(metric: str, dimensions: Mapping[str, str], value: float, time_ms: int) -> dict[str, str]:
    """One ``MetricList`` item of a PutCustomMetric call: a raw value, no application group."""
    return {
        "MetricName": metric,
        "Dimensions": json.dumps(dict(dimensions), sort_keys=True),
        "GroupId": ALICLOUD_GROUP_ID,
        "Type": ALICLOUD_RAW_TYPE,
        "Period": str(PUBLISH_PERIOD_S),
        "Time": str(time_ms),
        "Values": json.dumps({"value": value}),
    }


def alicloud_datapoints(
    site: str, backlogs: Mapping[str, float | None], *, free_ahead: float | None, time_ms: int
) -> list[dict[str, str]]:
    """The ``MetricList`` of one PutCustomMetric call for one site: ``FreeGpusAhead`` once (when it
    was read), then ``GatedBacklog`` for each gated pool whose queue was read (``backlogs``: by pool
    name, None for a queue that could not be read), in pool-name order."""
    items: list[dict[str, str]] = []
    if free_ahead is not None:
        free = max(0.0, float(free_ahead))
        items.append(alicloud_item(SIGNAL_METRIC, signal_dimensions(site), free, time_ms))
    for pool in sorted(backlogs):
        gated = gated_backlog(backlogs[pool], free_ahead)
        if gated is not None:
            items.append(alicloud_item(GATED_METRIC, gated_dimensions(site, pool), gated, time_ms))
    return items


__all__ = [
    "ALICLOUD_CLIENT_ID",
    "ALICLOUD_GROUP_ID",
    "ALICLOUD_NAMESPACE_PREFIX",
    "ALICLOUD_PUT_ACTION",
    "ALICLOUD_RAW_TYPE",
    "alicloud_datapoints",
    "alicloud_item",
    "alicloud_namespace",
]
