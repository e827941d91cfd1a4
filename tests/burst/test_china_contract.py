"""The exporter's contract for the Alibaba gate (components/pools/burst_custom.py): the gated value, the
metric names and dimensions, the PutCustomMetric items, and the burst-order lines for Alibaba and
Tencent sites."""

from __future__ import annotations

import json
import math

import pytest

from gpufleet.components.pools import burst_custom
from gpufleet.components.pools.burst_custom import (
    CustomGate,
    describe_gate,
    gated_backlog,
)
from gpufleet.components.pools.custom.alicloud import (
    ALICLOUD_PUT_ACTION,
    alicloud_datapoints,
    alicloud_item,
    alicloud_namespace,
)
from gpufleet.components.spec.alicloud_publisher import AlicloudPublisher
from gpufleet.components.spec.burst import Burst, Publishers
from gpufleet.policies.ops import alicloud as _china_metrics

PUBLISHER = AlicloudPublisher(
    issuer_url="https://oidc.lab.example.com/k8s",
    fingerprints=["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"],
    service_account="gpufleet-system/baseline-exporter",
)


@pytest.mark.parametrize(
    ("backlog", "free_ahead", "expected"),
    [
        (12, 0, 12.0),  # nothing free ahead: the backlog passes
        (12, 1, 0.0),  # one GPU free ahead holds the pool back
        (12, 16, 0.0),
        (12, 0.5, 12.0),  # less than one whole GPU is not a free GPU
        (0, 0, 0.0),
        (12, None, 12.0),  # what is ahead could not be read: counts as nothing free (fail-open)
        (12, math.nan, 12.0),
        (None, 0, None),  # the queue could not be read: publish nothing, the fallback alarm decides
        (None, 4, None),
    ],
)
def test_gated_backlog(backlog: float | None, free_ahead: float | None, expected: float | None) -> None:
    assert gated_backlog(backlog, free_ahead) == expected


@pytest.mark.parametrize("backlog", [-1, math.nan])
def test_gated_backlog_refuses_a_value_that_is_not_a_count(backlog: float) -> None:
    with pytest.raises(ValueError, match=r"backlog: .* is not a message count"):
        gated_backlog(backlog, 0)


def test_names_and_dimensions() -> None:
    assert burst_custom.GATED_METRIC == "GatedBacklog"
    assert ALICLOUD_PUT_ACTION == "cms:PutCustomMetric"
    assert alicloud_namespace("1234567890123456") == "acs_customMetric_1234567890123456"
    gate = CustomGate(
        site="alicloud:cn-hangzhou",
        pool="hz",
        ahead=("aws:us-east-1",),
        account_id="1",
        fallback_after_s=1800,
    )
    assert gate.dimensions == {"Pool": "hz", "Site": "alicloud:cn-hangzhou"}
    assert json.loads(gate.metric_dimensions()) == [{"Pool": "hz", "Site": "alicloud:cn-hangzhou"}]
    assert gate.fallback_periods == 6
    assert (
        CustomGate(site="s", pool="p", ahead=(), account_id="1", fallback_after_s=601).fallback_periods == 3
    )


def test_the_rule_pack_names_the_same_metric_and_action() -> None:
    # policies/ may not import components: the pack keeps its own copy of the contract's names.
    assert _china_metrics.GATED_METRIC == burst_custom.GATED_METRIC
    assert _china_metrics.PUT_CUSTOM_METRIC == ALICLOUD_PUT_ACTION


def test_one_put_custom_metric_call_per_site() -> None:
    items = alicloud_datapoints(
        "alicloud:cn-hangzhou", {"b": 3, "a": None, "c": 0}, free_ahead=0, time_ms=1_764_633_600_000
    )
    assert items == [
        alicloud_item("FreeGpusAhead", {"Site": "alicloud:cn-hangzhou"}, 0.0, 1_764_633_600_000),
        alicloud_item("GatedBacklog", {"Pool": "b", "Site": "alicloud:cn-hangzhou"}, 3.0, 1_764_633_600_000),
        alicloud_item("GatedBacklog", {"Pool": "c", "Site": "alicloud:cn-hangzhou"}, 0.0, 1_764_633_600_000),
    ]
    assert items[1] == {
        "MetricName": "GatedBacklog",
        "Dimensions": '{"Pool": "b", "Site": "alicloud:cn-hangzhou"}',
        "GroupId": "0",
        "Type": "0",
        "Period": "60",
        "Time": "1764633600000",
        "Values": '{"value": 3.0}',
    }


def test_free_gpus_ahead_hold_every_pool_back_and_an_unread_signal_is_not_published() -> None:
    held = alicloud_datapoints("alicloud:cn-hangzhou", {"a": 7}, free_ahead=2, time_ms=0)
    assert [(i["MetricName"], json.loads(i["Values"])["value"]) for i in held] == [
        ("FreeGpusAhead", 2.0),
        ("GatedBacklog", 0.0),
    ]
    unread = alicloud_datapoints("alicloud:cn-hangzhou", {"a": 7}, free_ahead=None, time_ms=0)
    assert [(i["MetricName"], json.loads(i["Values"])["value"]) for i in unread] == [("GatedBacklog", 7.0)]


def test_burst_order_lines_for_alibaba_and_tencent() -> None:
    gated = Burst(order=["alicloud:cn-hangzhou"], publishers=Publishers(alicloud=PUBLISHER))
    assert describe_gate("alicloud", gated) == (
        "queue scale-out gated on the exporter's GatedBacklog (acs_customMetric); if it is silent, the raw "
        "queue alarm bursts after 1800s; GPU alarms not gated"
    )
    assert describe_gate("alicloud", Burst()) == (
        "not gated: scale-out on the pools' own queue (set burst.publishers.alicloud to gate it on the "
        "exporter's GatedBacklog); see docs/burst-order.md"
    )
    assert describe_gate("tencentcloud", gated) == (
        "not gated: Tencent alarm policies cannot watch a published metric; see docs/burst-order.md"
    )
