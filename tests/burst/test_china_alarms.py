"""An Alibaba pool with a burst gate: its queue band alarms watch the exporter's GatedBacklog, the raw queue
alarm stays as the fail-open fallback on a longer window, and nothing else changes."""

from __future__ import annotations

from typing import Any

from gpufleet.components.pools.alicloud import AlicloudGpuPool
from gpufleet.components.pools.burst_custom import CustomGate
from tests.components.conftest import RecordingMocks, Runner
from tests.components.test_pools_alicloud import pool_args

CMS_ALARM = "alicloud:cms/alarm:Alarm"
ESS_ALARM = "alicloud:ess/alarm:Alarm"
ACCOUNT = "1234567890123456"
SCALE_OUT = (
    f"acs:ess:cn-hangzhou:{ACCOUNT}:scalingGroupId/pool-group-id:scalingRuleId/pool-scale-queue-deep-id"
)
TAGS = {
    "cost-center": "cc-042",
    "env": "dev",
    "gpufleet:pool": "a10",
    "project": "vision",
    "team": "ml-platform",
}


def _gate(fallback_after_s: int = 1800) -> CustomGate:
    return CustomGate(
        site="alicloud:cn-hangzhou",
        pool="a10",
        ahead=("aws:us-east-1",),
        account_id=ACCOUNT,
        fallback_after_s=fallback_after_s,
    )


def _build(run_pulumi: Runner, **changes: Any) -> RecordingMocks:
    args = pool_args(**changes)
    return run_pulumi(lambda: AlicloudGpuPool("pool", args))


def _common(name: str, times: float) -> dict[str, Any]:
    return {
        "name": name,
        "period": 300.0,
        "contactGroups": ["gf-cn-a10"],
        "enabled": True,
        "targets": [{"targetId": "1", "arn": SCALE_OUT}],
        "silenceTime": 300.0,
        "tags": TAGS,
    }


def _band(metric: str, times: float) -> dict[str, Any]:
    """The first band (above queue_out 10, at most 20 waiting) of the pool's backlog on ``metric``."""
    series = f"@{metric}[300].$Maximum"
    return {"expressionRaw": f"{series} > 10 && {series} <= 20", "level": "CRITICAL", "times": times}


def test_the_queue_alarm_watches_the_gated_backlog(run_pulumi: Runner) -> None:
    alarm = _build(run_pulumi, gate=_gate()).one(CMS_ALARM, "pool-queue-deep").inputs
    assert alarm == {
        **_common("gf-cn-a10-queue-deep", 1.0),
        "compositeExpression": _band("GatedBacklog", 1.0),
        "project": f"acs_customMetric_{ACCOUNT}",
        "metric": "GatedBacklog",
        "metricDimensions": '[{"Pool": "a10", "Site": "alicloud:cn-hangzhou"}]',
    }


def test_the_raw_queue_alarm_stays_as_the_fallback_on_the_longer_window(run_pulumi: Runner) -> None:
    mocks = _build(run_pulumi, gate=_gate(fallback_after_s=2700))
    fallback = mocks.one(CMS_ALARM, "pool-queue-deep-fallback").inputs
    assert fallback == {
        **_common("gf-cn-a10-queue-deep-fallback", 9.0),
        "compositeExpression": _band("NumberOfMessagesVisible", 9.0),
        "project": "acs_mns_new",
        "metric": "NumberOfMessagesVisible",
        "metricDimensions": '[{"queue": "gf-cn-a10", "region": "cn-hangzhou"}]',
    }


def test_a_gate_adds_only_the_fallback_and_leaves_the_gpu_alarms_alone(run_pulumi: Runner) -> None:
    gated_args, plain_args = pool_args(gate=_gate()), pool_args()

    def both() -> None:
        AlicloudGpuPool("gated", gated_args)
        AlicloudGpuPool("plain", plain_args)

    mocks = run_pulumi(both)
    names: dict[str, set[tuple[str, str]]] = {"gated": set(), "plain": set()}
    for typ, name in mocks.names_by_type():
        pool, _, rest = name.partition("-")
        names[pool].add((typ, rest))
    assert names["gated"] - names["plain"] == {
        (CMS_ALARM, f"{band}-fallback")
        for band in ("queue-deep", "queue-deep-x2", "queue-deep-x4", "queue-deep-x8")
    }
    assert names["plain"] - names["gated"] == set()
    for suffix in ("gpu-high", "gpu-low"):
        gated = str(mocks.one(ESS_ALARM, f"gated-{suffix}").inputs).replace("gated-", "plain-")
        assert gated == str(mocks.one(ESS_ALARM, f"plain-{suffix}").inputs)
    plain_queue = mocks.one(CMS_ALARM, "plain-queue-deep").inputs
    assert (plain_queue["project"], plain_queue["metric"]) == ("acs_mns_new", "NumberOfMessagesVisible")
    assert plain_queue["compositeExpression"]["times"] == 1.0
