"""GF-OPS-001 on gated scale-out alarms: the baseline signal needs its publisher, the BaselineSignal
role, in the stack (or the namespace listed as published outside it)."""

from __future__ import annotations

import json
from typing import Any

from components.baseline.signal import publish_statements
from policies.ops.scaling_metric_published import POLICY
from tests.policies.ops.helpers import asg_policy_arn, res, run_stack

QUEUE = res("aws:sqs/queue:Queue", "jobs", {"name": "ml-jobs"})


def _gated_alarm() -> Any:
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
                        "namespace": "gpufleet/Baseline",
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
                {"id": "gated", "expression": "IF(FILL(ahead, 0) < 1, own, 0)", "returnData": True},
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


def _messages(*resources: Any, config: dict[str, Any] | None = None) -> list[str]:
    return [message for message, _ in run_stack(POLICY, [QUEUE, _gated_alarm(), *resources], config)]


def test_a_gated_alarm_without_the_signal_publisher_is_reported() -> None:
    assert _messages() == [
        "alarm 'train-queue-deep' scales on gpufleet/Baseline FreeGpusAhead, which nothing in the stack "
        "may publish (no role allows cloudwatch:PutMetricData for gpufleet/Baseline): the alarm never "
        "fires; scale on a metric the stack publishes, or list 'gpufleet/Baseline' in "
        "published_namespaces if it is published outside the stack"
    ]


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
