"""The estimate reads every recurrence GF-COST-005 reads, through the same reader: Application Auto
Scaling `cron(...)` schedules of a spot fleet and Alibaba ESS `Cron` tasks were priced around the clock."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.cost import estimate_stack
from gpufleet.cost.schedule import WeeklySchedule
from gpufleet.graph import Resource, ResourceGraph
from tests.cost.helpers import small_catalog

CATALOG = small_catalog()
WEEKDAYS_8_TO_20 = (720, 720, 720, 720, 720, 0, 0)


def _resource(token: str, name: str, inputs: dict[str, Any]) -> Resource:
    return Resource(
        urn=f"urn:pulumi:dev::thirdparty::{token}::{name}", type=token, name=name, custom=True, inputs=inputs
    )


def test_aws_and_alibaba_cron_forms_replay_like_unix_cron() -> None:
    unix = WeeklySchedule.from_crons(["0 20 * * 1-5"], ["0 8 * * 1-5"], "unix")
    aws = WeeklySchedule.from_crons(["cron(0 20 ? * MON-FRI *)"], ["cron(0 8 ? * 2-6 *)"], "aws")
    ali = WeeklySchedule.from_crons(["Cron 0 20 * * 1-5"], ["Cron 0 8 * * 1-5"], "alicloud")
    assert unix.on_minutes == aws.on_minutes == ali.on_minutes == WEEKDAYS_8_TO_20


@pytest.mark.parametrize("bad", ["61 20 * * *", "0 20 * * */0", "0 20 1 * *", "Daily 1"])
def test_unreplayable_recurrences_are_value_errors(bad: str) -> None:
    with pytest.raises(ValueError):
        WeeklySchedule.from_crons([bad], [], "bad")


def test_spot_fleet_scheduled_by_application_auto_scaling_is_priced_on_its_schedule() -> None:
    fleet = _resource(
        "aws:ec2/spotFleetRequest:SpotFleetRequest",
        "sweeps",
        {
            "region": "us-east-1",
            "targetCapacity": 4,
            "iamFleetRole": "arn:aws:iam::1:role/fleet",
            "launchSpecifications": [{"instanceType": "g5.2xlarge", "ami": "ami-1"}],
        },
    )
    dimension = "ec2:spot-fleet-request:TargetCapacity"
    target = _resource(
        "aws:appautoscaling/target:Target",
        "sweeps-target",
        {"resourceId": "spot-fleet-request/sweeps", "scalableDimension": dimension, "serviceNamespace": "ec2",
         "minCapacity": 0, "maxCapacity": 4},
    )  # fmt: skip
    actions = [
        _resource(
            "aws:appautoscaling/scheduledAction:ScheduledAction",
            name,
            {
                "resourceId": "spot-fleet-request/sweeps",
                "scalableDimension": dimension,
                "serviceNamespace": "ec2",
                "schedule": schedule,
                "scalableTargetAction": {"minCapacity": 0, "maxCapacity": size},
            },
        )
        for name, schedule, size in (
            ("night", "cron(0 20 ? * MON-FRI *)", 0),
            ("morning", "cron(0 8 ? * MON-FRI *)", 4),
        )
    ]
    graph = ResourceGraph(project="thirdparty", stack="dev", config={}, resources=[fleet, target, *actions])
    (line,) = estimate_stack(graph, catalog=CATALOG).pools
    assert line.schedule == "stop 'cron(0 20 ? * MON-FRI *)'; start 'cron(0 8 ? * MON-FRI *)'"
    assert line.scheduled_hours == pytest.approx(60 * 730 / 168)
    # Four spot g5.2xlarge at 0.4 USD for 60 h a week.
    assert line.monthly_estimate == pytest.approx(4 * 0.4 * 60 * 730 / 168)


def test_ess_group_with_cron_tasks_is_priced_on_its_schedule() -> None:
    group = _resource(
        "alicloud:ess/scalingGroup:ScalingGroup",
        "grp",
        {"minSize": 0, "maxSize": 2, "scalingGroupName": "grp"},
    )
    config = _resource(
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "cfg",
        {"scalingGroupId": "grp", "instanceType": "ecs.gn7i-c8g1.2xlarge"},
    )
    tasks = [
        _resource(
            "alicloud:ess/scheduledTask:ScheduledTask",
            name,
            {
                "scalingGroupId": "grp",
                "recurrenceType": "Cron",
                "recurrenceValue": cron,
                "minValue": 0,
                "maxValue": size,
            },
        )
        for name, cron, size in (("night", "0 20 * * 1-5", 0), ("morning", "0 8 * * 1-5", 2))
    ]
    graph = ResourceGraph(
        project="thirdparty", stack="dev", config={"alicloud:region": "cn-hangzhou"},
        resources=[group, config, *tasks],
    )  # fmt: skip
    (line,) = estimate_stack(graph, catalog=CATALOG, currency="CNY").pools
    assert line.schedule == "stop 'Cron 0 20 * * 1-5'; start 'Cron 0 8 * * 1-5'"
    # Two on-demand gn7i at 15 CNY for 60 h a week.
    assert line.monthly_estimate == pytest.approx(2 * 15.0 * 60 * 730 / 168)
