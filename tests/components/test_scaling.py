from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.components.pools.scaling import AlarmSpec, ScalingRules, compile_alarms

GPU_DIMENSIONS = ("AutoScalingGroupName", "Stack")


def test_defaults_compile_to_the_seed_thresholds() -> None:
    assert compile_alarms(ScalingRules()) == (
        AlarmSpec(
            suffix="gpu-high",
            direction="out",
            namespace="CWAgent",
            metric_name="nvidia_smi_utilization_gpu",
            dimensions=GPU_DIMENSIONS,
            comparison_operator="GreaterThanThreshold",
            threshold=70,
            period_s=60,
            evaluation_periods=5,
        ),
        # SQS publishes its own metric, by queue name, every five minutes: one 300 s period.
        AlarmSpec(
            suffix="queue-deep",
            direction="out",
            namespace="AWS/SQS",
            metric_name="ApproximateNumberOfMessagesVisible",
            dimensions=("QueueName",),
            comparison_operator="GreaterThanThreshold",
            threshold=10,
            period_s=300,
            evaluation_periods=1,
            statistic="Maximum",
            treat_missing_data="notBreaching",
        ),
        AlarmSpec(
            suffix="gpu-low",
            direction="in",
            namespace="CWAgent",
            metric_name="nvidia_smi_utilization_gpu",
            dimensions=GPU_DIMENSIONS,
            comparison_operator="LessThanThreshold",
            threshold=30,
            period_s=60,
            evaluation_periods=30,
        ),
    )


def test_the_queue_alarm_respects_queue_out_whatever_the_minimum() -> None:
    # No threshold 0 for a pool at zero: it wakes once more than queue_out wait (queue_out 0: any).
    queue = compile_alarms(ScalingRules(queue_out=10))[1]
    assert (queue.suffix, queue.threshold, queue.treat_missing_data) == ("queue-deep", 10, "notBreaching")
    assert compile_alarms(ScalingRules(queue_out=0))[1].threshold == 0


def test_backlog_bands_are_disjoint_and_add_their_lower_bound() -> None:
    from gpufleet.components.pools.scaling import BacklogBand, backlog_bands

    assert backlog_bands(ScalingRules(queue_out=10), max_size=300) == (
        BacklogBand(multiple=1, lower=10, upper=20, add=10),
        BacklogBand(multiple=2, lower=20, upper=40, add=20),
        BacklogBand(multiple=4, lower=40, upper=80, add=40),
        BacklogBand(multiple=8, lower=80, upper=None, add=80),
    )
    # Capped at the pool's maximum and at ESS's 500 a step; queue_out 0 wakes on one message.
    assert [b.add for b in backlog_bands(ScalingRules(queue_out=100), max_size=600)] == [100, 200, 400, 500]
    assert [b.add for b in backlog_bands(ScalingRules(queue_out=10), max_size=30)] == [10, 20, 30, 30]
    zero = backlog_bands(ScalingRules(queue_out=0), max_size=10)
    assert [(b.lower, b.upper, b.add) for b in zero] == [(0, 2, 1), (2, 4, 2), (4, 8, 4), (8, None, 8)]


def test_band_alarms_keep_the_gpu_rules_and_one_alarm_per_band() -> None:
    from gpufleet.components.pools.scaling import compile_band_alarms

    alarms = compile_band_alarms(ScalingRules(), max_size=300)
    assert [(a.suffix, a.direction, a.threshold, a.upper, a.adjustment) for a in alarms] == [
        ("gpu-high", "out", 70, None, 1),
        ("queue-deep", "out", 10, 20, 10),
        ("queue-deep-x2", "out", 20, 40, 20),
        ("queue-deep-x4", "out", 40, 80, 40),
        ("queue-deep-x8", "out", 80, None, 80),
        ("gpu-low", "in", 30, None, -1),
    ]
    assert (
        alarms[1].description
        == "scale out: ApproximateNumberOfMessagesVisible above 10 and at most 20 for 300s"
    )


def test_no_alarm_on_an_sqs_metric_has_a_period_under_five_minutes() -> None:
    for rules in (ScalingRules(out_for_s=60, in_for_s=300), ScalingRules(out_for_s=900, in_for_s=3600)):
        for alarm in compile_alarms(rules):
            if alarm.namespace == "AWS/SQS":
                assert alarm.period_s == 300


@pytest.mark.parametrize(
    ("rules", "periods"),
    [
        (ScalingRules(out_for_s=60, in_for_s=300), (1, 1, 5)),
        (ScalingRules(out_for_s=600, in_for_s=3600), (10, 2, 60)),
        (ScalingRules(out_for_s=420, in_for_s=86_400), (7, 1, 1440)),
    ],
)
def test_windows_become_evaluation_periods(rules: ScalingRules, periods: tuple[int, int, int]) -> None:
    assert tuple(a.evaluation_periods for a in compile_alarms(rules)) == periods


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        (ScalingRules(gpu_util_in=70), "gpu_util_in (70) must be below gpu_util_out (70)"),
        (ScalingRules(gpu_util_out=120), "gpu_util_out: 120 is not a percentage"),
        (
            ScalingRules(out_for_s=90),
            "out_for_s: 90s must be a whole number of minutes between 60s and 1 day",
        ),
        (ScalingRules(in_for_s=90_000), "in_for_s: 90000s must be a whole number of minutes"),
        (ScalingRules(out_for_s=600, in_for_s=300), "in_for_s must not be shorter than out_for_s"),
        (
            ScalingRules(out_for_s=60, in_for_s=120),
            "in_for_s: 120s must be at least 300s, the queue alarm's shortest window",
        ),
        (ScalingRules(queue_out=-1), "queue_out: -1 must not be negative"),
        (ScalingRules(cooldown_s=-5), "cooldown_s: -5 must not be negative"),
    ],
)
def test_bad_rules_are_refused_with_the_field(rules: ScalingRules, problem: str) -> None:
    with pytest.raises(ValueError, match="invalid scaling rules: ") as raised:
        compile_alarms(rules)
    assert problem in str(raised.value)


@given(
    out_minutes=st.integers(5, 60),
    extra_minutes=st.integers(0, 600),
    util_in=st.integers(0, 98),
    gap=st.integers(1, 50),
)
def test_valid_rules_scale_in_slower_and_lower_than_out(
    out_minutes: int, extra_minutes: int, util_in: int, gap: int
) -> None:
    rules = ScalingRules(
        out_for_s=out_minutes * 60,
        in_for_s=(out_minutes + extra_minutes) * 60,
        gpu_util_in=util_in,
        gpu_util_out=min(util_in + gap, 100),
    )
    high, queue, low = compile_alarms(rules)
    assert low.threshold < high.threshold
    assert low.evaluation_periods * low.period_s >= high.evaluation_periods * high.period_s
    assert low.evaluation_periods * low.period_s >= queue.evaluation_periods * queue.period_s
    assert high.evaluation_periods * high.period_s == rules.out_for_s
    # The queue alarm never fires later than asked, and never sooner than SQS's five minutes.
    assert 300 <= queue.evaluation_periods * queue.period_s <= rules.out_for_s


def test_the_backlog_target_is_one_job_per_instance_and_never_scales_in() -> None:
    from gpufleet.components.pools.scaling import backlog_desired, backlog_target

    rules = ScalingRules(queue_out=10, cooldown_s=300)
    target = backlog_target(rules)
    assert (target.target_value, target.expression, target.warmup_s, target.disable_scale_in) == (
        1,
        "IF(m2 > 0, (m3 + IF(m1 > 10, m1, 0)) / m2, m1)",
        300,
        True,
    )
    # What the metric asks for: 20 streams running, 180 waiting -> 200; 10 waiting (not more than
    # queue_out) -> the 20 running; an empty pool -> every waiting job.
    assert backlog_desired(rules, waiting=180, running=20, in_service=20) == 200
    assert backlog_desired(rules, waiting=10, running=20, in_service=20) == 20
    assert backlog_desired(rules, waiting=1, running=0, in_service=0) == 1


def test_aws_scale_in_waits_for_an_empty_queue_over_whole_sqs_periods() -> None:
    from gpufleet.components.pools.aws_metrics import compile_aws_alarms

    high, low = compile_aws_alarms(ScalingRules())
    assert (high.suffix, high.threshold, high.period_s, high.evaluation_periods) == ("gpu-high", 70, 60, 5)
    assert (low.suffix, low.threshold, low.period_s, low.evaluation_periods, low.while_queue_empty) == (
        "gpu-low",
        30,
        300,
        6,
        True,
    )
    # A window that is not a whole number of 5-minute periods rounds up: never sooner than asked.
    assert compile_aws_alarms(ScalingRules(in_for_s=1860))[1].evaluation_periods == 7


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (10, "10"),
        (10.0, "10"),
        (1_600_000, "1600000"),
        (1_234_567, "1234567"),
        (2.5, "2.5"),
        (1e-7, "0.0000001"),
    ],
)
def test_plain_number_never_uses_exponent_or_rounds(value: float, written: str) -> None:
    from gpufleet.components.pools.scaling import plain_number

    assert plain_number(value) == written


def test_backlog_expression_writes_a_large_queue_out_in_full() -> None:
    from gpufleet.components.pools.scaling import backlog_expression

    assert backlog_expression(1_234_567) == "IF(m2 > 0, (m3 + IF(m1 > 1234567, m1, 0)) / m2, m1)"
