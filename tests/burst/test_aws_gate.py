"""An AWS pool with a burst gate: its GPU scale-out alarm and its backlog policy become metric math on
the site's signal; its scale-in alarm and every other child stay as without a gate."""

from __future__ import annotations

from gpufleet.components.pools.aws import GpuPool, GpuPoolArgs
from gpufleet.components.pools.burst import Gate
from tests.components.builders import STACK, pool_args
from tests.components.conftest import RecordingMocks, Runner

ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
POLICY = "aws:autoscaling/policy:Policy"
ASG = "pool-asg-0a1b2c3"
QUEUE = "pool-queue-0a1b2c3"
OUT_ARN = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-out-0a1b2c3"
IN_ARN = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-in-0a1b2c3"
GATE = Gate(site="aws:us-east-1", position=2, ahead=("alicloud:cn-hangzhou",), enforcement="metric-math")


def _run(run_pulumi: Runner, args: GpuPoolArgs) -> RecordingMocks:
    return run_pulumi(lambda: GpuPool("pool", args))


def _signal(period: int) -> dict[str, object]:
    return {
        "id": "ahead",
        "metric": {
            "namespace": "gpufleet/Baseline",
            "metricName": "FreeGpusAhead",
            "dimensions": {"Site": "aws:us-east-1"},
            "period": period,
            "stat": "Maximum",
        },
        "returnData": False,
    }


def test_the_backlog_policy_is_gated_by_metric_math(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, pool_args(min_size=1, gate=GATE))
    config = mocks.one(POLICY, "pool-backlog").inputs["targetTrackingConfiguration"]
    metrics = config["customizedMetricSpecification"]["metrics"]
    assert [m["id"] for m in metrics] == ["m1", "m2", "m3", "ahead", "e1"]
    assert metrics[3] == {
        "id": "ahead",
        "metricStat": {
            "metric": {
                "namespace": "gpufleet/Baseline",
                "metricName": "FreeGpusAhead",
                "dimensions": [{"name": "Site", "value": "aws:us-east-1"}],
            },
            "stat": "Maximum",
        },
        "returnData": False,
    }
    # Jobs per instance while no GPU is free ahead, 0 otherwise; the policy never scales in, so
    # the 0 holds the pool where it is.
    assert metrics[4] == {
        "id": "e1",
        "expression": "IF(FILL(ahead, 0) < 1, IF(m2 > 0, (m3 + IF(m1 > 10, m1, 0)) / m2, m1), 0)",
        "label": "jobs per instance in service, while no GPU is free ahead of aws:us-east-1",
        "returnData": True,
    }
    assert (config["targetValue"], config["disableScaleIn"]) == (1, True)


def test_the_gpu_high_alarm_is_gated_too(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, pool_args(gate=GATE))
    queries = mocks.one(ALARM, "pool-gpu-high").inputs["metricQueries"]
    assert queries[0] == _signal(60)
    assert queries[1]["metric"] == {
        "namespace": f"gpufleet/{STACK}",
        "metricName": "nvidia_smi_utilization_gpu",
        "dimensions": {"AutoScalingGroupName": ASG, "Stack": STACK},
        "period": 60,
        "stat": "Average",
    }
    assert queries[2]["expression"] == "IF(FILL(ahead, 0) < 1, own, 0)"


def test_scale_in_is_never_gated(run_pulumi: Runner) -> None:
    def both() -> None:
        GpuPool("plain", pool_args())
        GpuPool("gated", pool_args(gate=GATE))

    mocks = run_pulumi(both)
    gated = mocks.one(ALARM, "gated-gpu-low").inputs
    plain = mocks.one(ALARM, "plain-gpu-low").inputs
    assert str(gated).replace("gated", "plain") == str(plain)
    assert "FreeGpusAhead" not in str(gated)
    assert gated["alarmActions"] == [IN_ARN.replace("pool-", "gated-")]


def test_without_a_gate_the_graph_is_unchanged(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, pool_args())
    high = mocks.one(ALARM, "pool-gpu-high").inputs
    assert "metricQueries" not in high and "namespace" in high
    for alarm in mocks.of_type(ALARM):
        assert "FreeGpusAhead" not in str(alarm.inputs)
    assert "FreeGpusAhead" not in str(mocks.one(POLICY, "pool-backlog").inputs)


def test_a_gate_adds_no_resource(run_pulumi: Runner) -> None:
    def both() -> None:
        GpuPool("plain", pool_args())
        GpuPool("gated", pool_args(gate=GATE))

    mocks = run_pulumi(both)
    names = [(r.type, r.name) for r in mocks.custom()]
    plain = sorted((t, n.removeprefix("plain")) for t, n in names if n.startswith("plain"))
    gated = sorted((t, n.removeprefix("gated")) for t, n in names if n.startswith("gated"))
    assert plain == gated and len(plain) == 15
