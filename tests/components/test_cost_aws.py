from __future__ import annotations

import pytest

from gpufleet.components.cost.aws import FleetBudget, FleetBudgetArgs

from .builders import ACCOUNT, KEY_ARN, STACK, TAGS
from .conftest import OptionsRecorder, Runner, statements_by_sid

TOPIC_ARN = "arn:aws:sns:us-east-1:123456789012:topic/budget-alerts-0a1b2c3"


def _build(recorder: OptionsRecorder | None = None, **overrides: object):  # type: ignore[no-untyped-def]
    opts = recorder.opts() if recorder else None
    values: dict[str, object] = {
        "monthly_limit": 3000,
        "stack": STACK,
        "account_id": ACCOUNT,
        "kms_key_arn": KEY_ARN,
        "tags": TAGS,
    }
    values.update(overrides)
    return lambda: FleetBudget("budget", FleetBudgetArgs(**values), opts)  # type: ignore[arg-type]


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    assert mocks.names_by_type() == [
        ("aws:budgets/budget:Budget", "budget-budget"),
        ("aws:sns/topic:Topic", "budget-alerts"),
        ("aws:sns/topicPolicy:TopicPolicy", "budget-alerts-policy"),
        ("gpufleet:cost:FleetBudget", "budget"),
    ]


def test_monthly_cost_budget_on_the_stack_tag_alerts_actual_and_forecast(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(alert_emails=["finops@example.com"]))
    budget = mocks.one("aws:budgets/budget:Budget", "budget-budget").inputs
    assert {k: budget[k] for k in ("budgetType", "timeUnit", "limitAmount", "limitUnit")} == {
        "budgetType": "COST",
        "timeUnit": "MONTHLY",
        "limitAmount": "3000.00",
        "limitUnit": "USD",
    }
    # dev and prod of one project share the `project` tag: only the stack's own tag keeps their
    # spend apart.
    assert budget["costFilters"] == [{"name": "TagKeyValue", "values": ["user:gpufleet:stack$gpufleet/test"]}]
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
            monthly_limit=0, stack="", account_id=ACCOUNT, kms_key_arn=KEY_ARN, tags=TAGS, alert_percent=120
        )
    assert str(raised.value) == (
        "FleetBudgetArgs: monthly_limit: 0 must be positive; alert_percent: 120 must be within 1..100; "
        "stack: the gpufleet:stack tag value scopes the budget and cannot be empty"
    )


def test_a_stack_value_other_than_the_resources_tag_is_refused() -> None:
    with pytest.raises(ValueError) as raised:
        FleetBudgetArgs(
            monthly_limit=10,
            stack="vision/dev",
            account_id=ACCOUNT,
            kms_key_arn=KEY_ARN,
            tags={**TAGS, "gpufleet:stack": "vision/prod"},
        )
    assert str(raised.value) == (
        "FleetBudgetArgs: stack: 'vision/dev' differs from the gpufleet:stack tag 'vision/prod' the "
        "fleet's resources carry; the budget would count none of them"
    )


def test_budget_is_created_after_the_topic_policy_that_lets_budgets_publish(run_pulumi: Runner) -> None:
    recorder = OptionsRecorder()
    run_pulumi(_build(recorder))
    assert recorder.depends_on("budget-budget") == ["budget-alerts-policy"]


def test_stack_tag_is_not_activated_unless_asked(run_pulumi: Runner) -> None:
    # AWS refuses to activate a tag key it has not yet seen on a resource: a first deploy would fail.
    mocks = run_pulumi(_build())
    assert mocks.of_type("aws:costexplorer/costAllocationTag:CostAllocationTag") == []


def test_stack_tag_activation_outlives_the_stack(run_pulumi: Runner) -> None:
    recorder = OptionsRecorder()
    mocks = run_pulumi(_build(recorder, activate_stack_tag=True))
    tag = mocks.one("aws:costexplorer/costAllocationTag:CostAllocationTag", "budget-stack-tag")
    assert tag.inputs == {"tagKey": "gpufleet:stack", "status": "Active"}
    # Every stack of the account shares the key: destroying one must not switch it off for the others.
    assert recorder.by_name["budget-stack-tag"].retain_on_delete is True


def test_a_budget_without_recipients_warns(run_pulumi: Runner, caplog: pytest.LogCaptureFixture) -> None:
    run_pulumi(_build())
    warnings = [r.getMessage() for r in caplog.records if "alert_emails" in r.getMessage()]
    assert warnings == [
        "budget: budget.alert_emails is empty: the budget's alerts go only to the SNS topic "
        "budget-alerts, which nothing subscribes to; list who should receive them"
    ]
    caplog.clear()
    run_pulumi(_build(alert_emails=["finops@example.com"]))
    assert not [r for r in caplog.records if "alert_emails" in r.getMessage()]


def test_the_fleet_spec_names_the_budget_recipients() -> None:
    import copy
    from pathlib import Path

    import yaml

    from gpufleet.engine import run_program

    root = Path(__file__).resolve().parents[2]
    raw = copy.deepcopy(
        yaml.safe_load((root / "stacks" / "Pulumi.dev.yaml").read_text())["config"]["gpufleet:fleet"]
    )
    raw["budget"]["alert_emails"] = ["finops@example.com", "ml-lead@example.com"]
    graph = run_program(root, "dev", config_overrides={"gpufleet:fleet": raw})
    (budget,) = graph.of_type("aws:budgets/budget:Budget")
    assert budget.name == "gpufleet-dev-budget-budget"
    assert [
        (n["notificationType"], n["subscriberEmailAddresses"], len(n["subscriberSnsTopicArns"]))
        for n in budget.inputs["notifications"]
    ] == [
        ("ACTUAL", ["finops@example.com", "ml-lead@example.com"], 1),
        ("FORECASTED", ["finops@example.com", "ml-lead@example.com"], 1),
    ]
    assert not [note for note in graph.notes if "alert_emails" in str(note)]
    # Without recipients the plan says so.
    del raw["budget"]["alert_emails"]
    bare = run_program(root, "dev", config_overrides={"gpufleet:fleet": raw})
    assert [str(note) for note in bare.notes if "alert_emails" in str(note)]


@pytest.mark.parametrize(
    ("emails", "message"),
    [
        (["finops"], "must be e-mail addresses like ops@example.com, got 'finops'"),
        (["a@example.com", "A@example.com"], "must not list an address twice"),
        ([f"u{i}@example.com" for i in range(11)], "at most 10 addresses (AWS Budgets' limit), got 11"),
    ],
)
def test_budget_recipients_are_checked(emails: list[str], message: str) -> None:
    from gpufleet.components.spec.settings import Budget

    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Budget(monthly=100, alert_emails=emails)
