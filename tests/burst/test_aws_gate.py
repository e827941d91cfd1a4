"""An AWS pool with a burst gate: its scale-out alarms become metric math on the site's signal; its
scale-in alarm and every other child stay as without a gate."""

from __future__ import annotations

from components.pools.aws import GpuPool, GpuPoolArgs
from components.pools.burst import Gate
from tests.components.builders import STACK, pool_args
from tests.components.conftest import RecordingMocks, Runner

ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
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


def test_the_queue_alarm_is_gated_by_metric_math(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, pool_args(min_size=1, gate=GATE))
    alarm = mocks.one(ALARM, "pool-queue-deep").inputs
    assert alarm == {
        "alarmDescription": (
            "scale out: ApproximateNumberOfMessagesVisible above 10 for 300s, only when no GPU is free "
            "ahead (baseline, then alicloud:cn-hangzhou)"
        ),
        "comparisonOperator": "GreaterThanThreshold",
        "threshold": 10,
        "evaluationPeriods": 1,
        "datapointsToAlarm": 1,
        "treatMissingData": "notBreaching",
        "metricQueries": [
            _signal(300),
            {
                "id": "own",
                "metric": {
                    "namespace": "AWS/SQS",
                    "metricName": "ApproximateNumberOfMessagesVisible",
                    "dimensions": {"QueueName": QUEUE},
                    "period": 300,
                    "stat": "Maximum",
                },
                "returnData": False,
            },
            {
                "id": "gated",
                "expression": "IF(FILL(ahead, 0) < 1, own, 0)",
                "label": "ApproximateNumberOfMessagesVisible while no GPU is free ahead of aws:us-east-1",
                "returnData": True,
            },
        ],
        "alarmActions": [OUT_ARN],
        "tags": alarm["tags"],
    }
    # metric math alarms carry no metric of their own
    assert not {"namespace", "metricName", "dimensions", "statistic", "period"} & set(alarm)


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
    gated = _run(run_pulumi, pool_args(gate=GATE)).one(ALARM, "pool-gpu-low").inputs
    assert "metricQueries" not in gated
    assert (gated["namespace"], gated["metricName"], gated["alarmActions"]) == (
        f"gpufleet/{STACK}",
        "nvidia_smi_utilization_gpu",
        [IN_ARN],
    )


def test_without_a_gate_the_graph_is_unchanged(run_pulumi: Runner) -> None:
    mocks = _run(run_pulumi, pool_args())
    for name in ("pool-queue-deep", "pool-gpu-high", "pool-gpu-low"):
        alarm = mocks.one(ALARM, name).inputs
        assert "metricQueries" not in alarm
        assert "namespace" in alarm and "FreeGpusAhead" not in str(alarm)


def test_a_gate_adds_no_resource(run_pulumi: Runner) -> None:
    def both() -> None:
        GpuPool("plain", pool_args())
        GpuPool("gated", pool_args(gate=GATE))

    mocks = run_pulumi(both)
    names = [(r.type, r.name) for r in mocks.custom()]
    plain = sorted((t, n.removeprefix("plain")) for t, n in names if n.startswith("plain"))
    gated = sorted((t, n.removeprefix("gated")) for t, n in names if n.startswith("gated"))
    assert plain == gated and len(plain) == 13
