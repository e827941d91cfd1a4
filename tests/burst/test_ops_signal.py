"""GF-OPS-001 on gated scale-out alarms: the baseline signal needs its publisher, the BaselineSignal
role, in the stack (or the namespace listed as published outside it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.components.baseline.aws_signal import publish_statements
from gpufleet.policies.ops.scaling_metric_published import POLICY
from tests.policies.ops.helpers import asg_policy_arn, res, run_stack

QUEUE = res("aws:sqs/queue:Queue", "jobs", {"name": "ml-jobs"})


def _gated_alarm(
    expression: str = "IF(FILL(ahead, 0) < 1, own, 0)", ahead_ns: str = "gpufleet/Baseline"
) -> Any:
    return res(
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "train-queue-deep",
        {
            "comparisonOperator": "GreaterThanThreshold",
            "threshold": 0,
            "evaluationPeriods": 1,
            "metricQueries": [
                {
                    "id": "ahead",
                    "metric": {
                        "namespace": ahead_ns,
                        "metricName": "FreeGpusAhead",
                        "dimensions": {"Site": "aws:us-east-1"},
                        "period": 300,
                        "stat": "Maximum",
                    },
                    "returnData": False,
                },
                {
                    "id": "own",
                    "metric": {
                        "namespace": "AWS/SQS",
                        "metricName": "ApproximateNumberOfMessagesVisible",
                        "dimensions": {"QueueName": "ml-jobs"},
                        "period": 300,
                        "stat": "Maximum",
                    },
                    "returnData": False,
                },
                {"id": "gated", "expression": expression, "returnData": True},
            ],
            "alarmActions": [asg_policy_arn("train-scale-out")],
        },
    )


def _signal_role(statements: list[dict[str, Any]]) -> list[Any]:
    role = res("aws:iam/role:Role", "baseline-signal-role", {"name": "baseline-signal-role"})
    policy = res(
        "aws:iam/rolePolicy:RolePolicy",
        "baseline-signal-publish",
        {
            "role": "baseline-signal-role",
            "policy": json.dumps({"Version": "2012-10-17", "Statement": statements}),
        },
        prop_deps={"role": [role]},
    )
    return [role, policy]


def _messages(*resources: Any, config: dict[str, Any] | None = None, alarm: Any = None) -> list[str]:
    alarm = _gated_alarm() if alarm is None else alarm
    return [message for message, _ in run_stack(POLICY, [QUEUE, alarm, *resources], config)]


NOT_ENFORCED = (
    "alarm 'train-queue-deep' gates its scale-out on gpufleet/Baseline FreeGpusAhead through FILL(ahead, 0), "
    "which nothing in the stack may publish (no role allows cloudwatch:PutMetricData for gpufleet/Baseline): "
    "the alarm still fires, but the burst order is not enforced (the pool scales as if nothing were free "
    "ahead of it); build the publisher (onprem.signal: the BaselineSignal role and the on-prem exporter), or "
    "list 'gpufleet/Baseline' in published_namespaces if it is published outside the stack"
)


def test_a_gated_alarm_without_the_signal_publisher_says_the_order_is_not_enforced() -> None:
    # FILL(ahead, 0): a missing signal reads as nothing free ahead, so the alarm still fires.
    assert _messages() == [NOT_ENFORCED]


@pytest.mark.parametrize(
    "expression",
    [
        "IF(FILL( ahead ,0)<1,own,0)",
        "IF(fill(ahead, 0.0) < 1, own, 0)",
        "IF(FILL(ahead, 0) < 1 AND FILL(ahead, 0) >= 0, own, 0)",
    ],
)
def test_the_fill_is_found_however_it_is_written(expression: str) -> None:
    assert _messages(alarm=_gated_alarm(expression)) == [NOT_ENFORCED]


@pytest.mark.parametrize(
    "expression",
    [
        "IF(ahead < 1, own, 0)",
        "IF(FILL(ahead, 0) < 1 AND ahead >= 0, own, 0)",
        "IF(FILL(ahead, 1) < 1, own, 0)",
    ],
)
def test_a_signal_read_without_fill_zero_never_fires(expression: str) -> None:
    assert _messages(alarm=_gated_alarm(expression)) == [
        "alarm 'train-queue-deep' scales on gpufleet/Baseline FreeGpusAhead, which nothing in the stack may "
        "publish (no role allows cloudwatch:PutMetricData for gpufleet/Baseline): the alarm never fires; "
        "scale "
        "on a metric the stack publishes, or list 'gpufleet/Baseline' in published_namespaces if it is "
        "published outside the stack"
    ]


def test_another_metric_behind_fill_zero_reads_as_zero() -> None:
    assert _messages(alarm=_gated_alarm(ahead_ns="team/Signals")) == [
        "alarm 'train-queue-deep' reads team/Signals FreeGpusAhead through FILL(ahead, 0), which nothing in "
        "the stack may publish (no role allows cloudwatch:PutMetricData for team/Signals): the alarm sees 0 "
        "for it in every period; scale on a metric the stack publishes, or list 'team/Signals' in "
        "published_namespaces if it is published outside the stack"
    ]


@pytest.mark.parametrize(
    ("pattern", "published"),
    [("gpufleet/*", True), ("gpufleet/Base?ine", True), ("GPUFLEET/*", False), ("gpufleet/baseline", False)],
)
def test_a_string_like_grant_matches_case_sensitively(pattern: str, published: bool) -> None:
    like = [
        {**publish_statements()[0].to_dict(), "Condition": {"StringLike": {"cloudwatch:namespace": pattern}}}
    ]
    assert _messages(*_signal_role(like)) == ([] if published else [NOT_ENFORCED])


def test_the_baseline_signal_role_is_the_publisher() -> None:
    statements = [s.to_dict() for s in publish_statements()]
    assert statements == [
        {
            "Sid": "PublishBaselineSignal",
            "Effect": "Allow",
            "Action": ["cloudwatch:PutMetricData"],
            "Resource": ["*"],
            "Condition": {"StringEquals": {"cloudwatch:namespace": "gpufleet/Baseline"}},
        }
    ]
    assert _messages(*_signal_role(statements)) == []


def test_a_role_publishing_elsewhere_does_not_count() -> None:
    other = [
        {
            **publish_statements()[0].to_dict(),
            "Condition": {"StringEquals": {"cloudwatch:namespace": "CWAgent"}},
        }
    ]
    assert len(_messages(*_signal_role(other))) == 1


def test_a_signal_published_outside_the_stack_is_listed() -> None:
    assert _messages(config={"published_namespaces": ["gpufleet/Baseline"]}) == []
