"""What each cloud's scheduled actions and scaling policies read into a pool: every size, recurrence and
time zone of a scheduled action, and the direction a step or target-tracking policy scales."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.cost.pools import Pool, ScheduledAction, discover_pools
from gpufleet.policies.cost.pools.tokens.alicloud import ALI_SCHEDULED_TASK
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_POLICY,
    AWS_APPAS_SCHEDULED_ACTION,
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_ASG_SCHEDULE,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    SPOT_FLEET_DIMENSION,
)
from gpufleet.policies.cost.pools.tokens.tencentcloud import TC_SCHEDULE

from .helpers import UNKNOWN_STR, FakeCatalog, ali_pool, res, tc_pool

DIMENSION = SPOT_FLEET_DIMENSION
FLEET_ID = "spot-fleet-request/sfr-123"


def _one(resources: list[Any]) -> Pool:
    found = discover_pools(resources, FakeCatalog.default())
    assert len(found) == 1, found
    return found[0]


def _asg(*attached: Any) -> Pool:
    lt = res(AWS_LAUNCH_TEMPLATE, "lt", {"name": "gpu-lt", "instanceType": "g5.2xlarge"})
    asg = res(
        AWS_ASG,
        "gpu",
        {"minSize": 1, "maxSize": 6, "launchTemplate": {"name": "gpu-lt"}},
        provider_props={"region": "us-east-1"},
    )
    return _one([lt, asg, *attached])


def _directions(pool: Pool) -> dict[str, tuple[str, str]]:
    return {signal.name: (signal.kind, signal.direction) for signal in pool.scaling}


def test_aws_scheduled_action_reads_every_size_recurrence_and_time_zone() -> None:
    night = res(
        AWS_ASG_SCHEDULE,
        "night",
        {
            "autoscalingGroupName": "gpu",
            "minSize": 0,
            "maxSize": 0,
            "desiredCapacity": 0,
            "recurrence": "0 20 * * MON-FRI",
            "timeZone": "Europe/Berlin",
        },
    )
    morning = res(
        AWS_ASG_SCHEDULE,
        "morning",
        {"autoscalingGroupName": "gpu", "minSize": 1, "maxSize": 6, "recurrence": "0 8 * * MON-FRI"},
    )
    pool = _asg(night, morning)
    assert pool.schedules == (
        ScheduledAction(night.urn, "night", 0, 0, 0, "0 20 * * MON-FRI", "Europe/Berlin"),
        ScheduledAction(morning.urn, "morning", 1, 6, None, "0 8 * * MON-FRI", None),
    )
    assert [s.scales_to_zero for s in pool.schedules] == [True, False]


def test_application_auto_scaling_action_has_no_desired_size() -> None:
    fleet = res(
        AWS_SPOT_FLEET,
        "sweeps",
        {"targetCapacity": 2, "launchSpecifications": [{"instanceType": "g5.2xlarge"}]},
    )
    target = res(
        AWS_APPAS_TARGET,
        "sweeps",
        {"scalableDimension": DIMENSION, "resourceId": FLEET_ID, "minCapacity": 0, "maxCapacity": 4},
        deps={"resourceId": [fleet]},
    )
    night = res(
        AWS_APPAS_SCHEDULED_ACTION,
        "sweeps-night",
        {
            "scalableDimension": DIMENSION,
            "resourceId": FLEET_ID,
            "schedule": "cron(0 20 * * ? *)",
            "timezone": "Asia/Tokyo",
            "scalableTargetAction": {"minCapacity": 0, "maxCapacity": 0},
        },
    )
    steps = res(
        AWS_APPAS_POLICY,
        "sweeps-steps",
        {
            "policyType": "StepScaling",
            "resourceId": FLEET_ID,
            "scalableDimension": DIMENSION,
            "stepScalingPolicyConfiguration": {
                "cooldown": 120,
                "stepAdjustments": [{"scalingAdjustment": -1}, {"scalingAdjustment": -2}],
            },
        },
    )
    pool = _one([fleet, target, night, steps])
    assert pool.schedules == (
        ScheduledAction(night.urn, "sweeps-night", 0, 0, None, "cron(0 20 * * ? *)", "Asia/Tokyo"),
    )
    assert _directions(pool) == {"sweeps-steps": ("step", "in")}
    assert pool.scaling[0].cooldown_s == 120


def test_step_policies_scale_by_the_signs_of_their_steps() -> None:
    def step(name: str, *adjustments: Any) -> Any:
        return res(
            AWS_ASG_POLICY,
            name,
            {
                "autoscalingGroupName": "gpu",
                "policyType": "StepScaling",
                "stepAdjustments": [{"scalingAdjustment": a} for a in adjustments],
            },
        )

    pool = _asg(
        step("mixed", 2, -1), step("up", 1, 3), step("down", -1), step("none"), step("hidden", UNKNOWN_STR)
    )
    assert _directions(pool) == {
        "mixed": ("step", "both"),
        "up": ("step", "out"),
        "down": ("step", "in"),
        "none": ("step", "unknown"),
        "hidden": ("step", "unknown"),
    }


def test_target_tracking_scales_both_ways_unless_scale_in_is_disabled() -> None:
    def tracking(name: str, **config: Any) -> Any:
        return res(
            AWS_ASG_POLICY,
            name,
            {
                "autoscalingGroupName": "gpu",
                "policyType": "TargetTrackingScaling",
                "targetTrackingConfiguration": {"targetValue": 60, **config},
            },
        )

    pool = _asg(
        tracking("both"), tracking("out-only", disableScaleIn=True), tracking("off", disableScaleIn=False)
    )
    assert _directions(pool) == {
        "both": ("target", "both"),
        "out-only": ("target", "out"),
        "off": ("target", "both"),
    }


def test_ess_scheduled_task_reads_its_values_in_utc_and_step_rules_their_signs() -> None:
    group, config, _scale_in, _alarm = ali_pool()
    task = res(
        ALI_SCHEDULED_TASK,
        "night",
        {
            "scalingGroupId": UNKNOWN_STR,
            "minValue": 0,
            "maxValue": 0,
            "desiredCapacity": 0,
            "recurrenceType": "Weekly",
            "recurrenceValue": "1,2,3,4,5",
        },
        deps={"scalingGroupId": [group]},
    )
    steps = ali_pool(
        rule={"scalingRuleType": "StepScalingRule", "stepAdjustments": [{"scalingAdjustment": 2}]}
    )[2]
    tracking = ali_pool(rule={"scalingRuleType": "TargetTrackingScalingRule", "disableScaleIn": True})[2]
    pool = _one([group, config, task])
    assert pool.schedules == (ScheduledAction(task.urn, "night", 0, 0, 0, "Weekly 1,2,3,4,5", "UTC"),)
    assert _directions(_one([group, config, steps])) == {"scale-in": ("step", "out")}
    assert _directions(_one([group, config, tracking])) == {"scale-in": ("target", "out")}


def test_tencent_schedule_has_no_time_zone() -> None:
    resources = tc_pool(schedule=False)
    group = resources[1]
    night = res(
        TC_SCHEDULE,
        "night",
        {
            "scalingGroupId": UNKNOWN_STR,
            "minSize": 0,
            "maxSize": 0,
            "desiredCapacity": 0,
            "recurrence": "0 20 * * 1-5",
        },
        deps={"scalingGroupId": [group]},
    )
    pool = _one([*resources, night])
    assert pool.schedules == (ScheduledAction(night.urn, "night", 0, 0, 0, "0 20 * * 1-5", None),)
