from __future__ import annotations

import pytest

from components.cost.aws import FleetBudget, FleetBudgetArgs

from .builders import ACCOUNT, KEY_ARN, TAGS
from .conftest import Runner, statements_by_sid

TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:topic/budget-alerts-0a1b2c3"


def _build(**overrides: object):  # type: ignore[no-untyped-def]
    values: dict[str, object] = {
        "monthly_limit": 3000,
        "project": "vision",
        "account_id": ACCOUNT,
        "kms_key_arn": KEY_ARN,
        "tags": TAGS,
    }
    values.update(overrides)
    return lambda: FleetBudget("budget", FleetBudgetArgs(**values))  # type: ignore[arg-type]


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    assert mocks.names_by_type() == [
        ("aws:budgets/budget:Budget", "budget-budget"),
        ("aws:sns/topic:Topic", "budget-alerts"),
        ("aws:sns/topicPolicy:TopicPolicy", "budget-alerts-policy"),
        ("gpufleet:cost:FleetBudget", "budget"),
    ]


def test_monthly_cost_budget_on_the_project_tag_alerts_actual_and_forecast(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(alert_emails=["finops@example.com"]))
    budget = mocks.one("aws:budgets/budget:Budget", "budget-budget").inputs
    assert {k: budget[k] for k in ("budgetType", "timeUnit", "limitAmount", "limitUnit")} == {
        "budgetType": "COST",
        "timeUnit": "MONTHLY",
        "limitAmount": "3000.00",
        "limitUnit": "USD",
    }
    assert budget["costFilters"] == [{"name": "TagKeyValue", "values": ["user:project$vision"]}]
    assert budget["notifications"] == [
        {
            "notificationType": kind,
            "comparisonOperator": "GREATER_THAN",
            "threshold": 80,
            "thresholdType": "PERCENTAGE",
            "subscriberSnsTopicArns": [TOPIC_ARN],
            "subscriberEmailAddresses": ["finops@example.com"],
        }
        for kind in ("ACTUAL", "FORECASTED")
    ]


def test_alert_topic_is_encrypted_and_only_budgets_publish(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(alert_percent=75, currency="CNY"))
    assert mocks.one("aws:sns/topic:Topic", "budget-alerts").inputs["kmsMasterKeyId"] == KEY_ARN
    policy = mocks.one("aws:sns/topicPolicy:TopicPolicy", "budget-alerts-policy").inputs
    assert statements_by_sid(policy) == {
        "BudgetsPublishAlerts": {
            "Sid": "BudgetsPublishAlerts",
            "Effect": "Allow",
            "Action": ["SNS:Publish"],
            "Principal": {"Service": ["budgets.amazonaws.com"]},
            "Resource": [TOPIC_ARN],
            "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
        }
    }
    budget = mocks.one("aws:budgets/budget:Budget", "budget-budget").inputs
    assert budget["limitUnit"] == "CNY"
    assert {n["threshold"] for n in budget["notifications"]} == {75}


def test_args_report_every_problem() -> None:
    with pytest.raises(ValueError) as raised:
        FleetBudgetArgs(
            monthly_limit=0, project="", account_id=ACCOUNT, kms_key_arn=KEY_ARN, tags=TAGS, alert_percent=120
        )
    assert str(raised.value) == (
        "FleetBudgetArgs: monthly_limit: 0 must be positive; alert_percent: 120 must be within 1..100; "
        "project: the project tag value scopes the budget and cannot be empty"
    )
