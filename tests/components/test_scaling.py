from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.components.pools.scaling import AlarmSpec, ScalingRules, compile_alarms

GPU_DIMENSIONS = ("AutoScalingGroupName", "Stack")


def test_defaults_compile_to_the_seed_thresholds() -> None:
    assert compile_alarms(ScalingRules(), min_size=1) == (
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


def test_a_pool_at_zero_wakes_on_any_waiting_message() -> None:
    # With no instance there is no GPU metric; a backlog below queue_out would wait at zero forever.
    queue = compile_alarms(ScalingRules(queue_out=10), min_size=0)[1]
    assert (queue.suffix, queue.threshold, queue.treat_missing_data) == ("queue-deep", 0, "notBreaching")
    assert compile_alarms(ScalingRules(queue_out=10), min_size=2)[1].threshold == 10


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
    high, queue, low = compile_alarms(rules, min_size=1)
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
    from gpufleet.components.pools.scaling import compile_aws_alarms

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
