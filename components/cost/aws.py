"""The fleet's monthly AWS budget with actual and forecast alerts at a percentage of its limit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.tags import STACK_TAG, check_cost_tags


@dataclass(frozen=True, kw_only=True)
class FleetBudgetArgs:
    monthly_limit: float
    stack: str
    account_id: pulumi.Input[str]
    kms_key_arn: pulumi.Input[str]
    tags: Mapping[str, str]
    currency: Literal["USD", "CNY"] = "USD"
    alert_percent: float = 80
    alert_emails: Sequence[str] = ()
    activate_stack_tag: bool = False

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.monthly_limit <= 0:
            problems.append(f"monthly_limit: {self.monthly_limit} must be positive")
        if not 0 < self.alert_percent <= 100:
            problems.append(f"alert_percent: {self.alert_percent} must be within 1..100")
        if self.currency not in ("USD", "CNY"):
            problems.append(f"currency: {self.currency!r} is not one of 'USD', 'CNY'")
        if not self.stack:
            problems.append(f"stack: the {STACK_TAG} tag value scopes the budget and cannot be empty")
        elif self.tags.get(STACK_TAG) not in (None, self.stack):
            problems.append(
                f"stack: {self.stack!r} differs from the {STACK_TAG} tag {self.tags[STACK_TAG]!r} the "
                "fleet's resources carry; the budget would count none of them"
            )
        if len(self.alert_emails) > 10:
            problems.append(f"alert_emails: {len(self.alert_emails)} addresses; AWS Budgets takes 10")
        if problems:
            raise ValueError("FleetBudgetArgs: " + "; ".join(problems))


class FleetBudget(pulumi.ComponentResource):
    """A monthly COST budget filtered to this stack's ``gpufleet:stack`` cost-allocation tag
    (``<project>/<stack>``: dev and prod share the ``project`` tag, so filtering on that would count
    each other's spend), alerting at ``alert_percent`` of the limit on actual and forecast spend, to a
    KMS-encrypted SNS topic (``-alerts``) that only Budgets may publish to, and to the ``alert_emails``
    (each notification's e-mail subscribers: Budgets mails them itself, with no subscription to
    confirm). Without addresses nothing receives the alerts, and the program warns.

    A tag counts only once activated for cost allocation. With ``activate_stack_tag`` the stack does it
    (``-stack-tag``, an ``aws.costexplorer.CostAllocationTag``). AWS refuses to activate a key it has
    not yet seen on a resource (about a day after the first deploy), and only the payer account of an
    organization may; the activation is kept when a stack is destroyed, because every stack of the
    account shares the key."""

    budget_name: pulumi.Output[str]
    alert_topic_arn: pulumi.Output[str]

    def __init__(self, name: str, args: FleetBudgetArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:cost:FleetBudget", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        topic = aws.sns.Topic(
            f"{name}-alerts", kms_master_key_id=args.kms_key_arn, tags=dict(args.tags), opts=child
        )
        topic_policy = aws.sns.TopicPolicy(
            f"{name}-alerts-policy",
            arn=topic.arn,
            policy=document(
                [
                    Statement(
                        sid="BudgetsPublishAlerts",
                        principals={"Service": ["budgets.amazonaws.com"]},
                        actions=("SNS:Publish",),
                        resources=[topic.arn],
                        conditions={"StringEquals": {"aws:SourceAccount": args.account_id}},
                    )
                ]
            ),
            opts=child,
        )
        if not args.alert_emails:
            pulumi.log.warn(
                f"{name}: budget.alert_emails is empty: the budget's alerts go only to the SNS topic "
                f"{name}-alerts, which nothing subscribes to; list who should receive them"
            )
        notifications = [
            aws.budgets.BudgetNotificationArgs(
                notification_type=kind,
                comparison_operator="GREATER_THAN",
                threshold=args.alert_percent,
                threshold_type="PERCENTAGE",
                subscriber_sns_topic_arns=[topic.arn],
                subscriber_email_addresses=list(args.alert_emails) or None,
            )
            for kind in ("ACTUAL", "FORECASTED")
        ]
        budget = aws.budgets.Budget(
            f"{name}-budget",
            budget_type="COST",
            time_unit="MONTHLY",
            limit_amount=f"{args.monthly_limit:.2f}",
            limit_unit=args.currency,
            cost_filters=[
                aws.budgets.BudgetCostFilterArgs(
                    name="TagKeyValue", values=[f"user:{STACK_TAG}${args.stack}"]
                )
            ],
            notifications=notifications,
            tags=dict(args.tags),
            # Budgets checks it may publish to the topic when the budget is created.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[topic_policy]),
        )
        if args.activate_stack_tag:
            aws.costexplorer.CostAllocationTag(
                f"{name}-stack-tag",
                tag_key=STACK_TAG,
                status="Active",
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=True),
            )
        self.budget_name = budget.name
        self.alert_topic_arn = topic.arn
        self.register_outputs({"budget_name": self.budget_name, "alert_topic_arn": self.alert_topic_arn})
