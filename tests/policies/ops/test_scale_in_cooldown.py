"""GF-OPS-003: a compliant baseline per cloud, then one change per negative test."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.ops.scale_in_cooldown import POLICY, RULE

from .helpers import UNKNOWN_NUMBER_VALUE, NotApplicable, asg_policy_arn, res, run_stack

ASG = "aws:autoscaling/group:Group"
POLICY_T = "aws:autoscaling/policy:Policy"
ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
APPAS = "aws:appautoscaling/policy:Policy"
ESS_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ESS_RULE = "alicloud:ess/scalingRule:ScalingRule"
ESS_ALARM = "alicloud:ess/alarm:Alarm"
TC_POLICY = "tencentcloud:As/scalingPolicy:ScalingPolicy"


def aws_stack(**scale_in: Any) -> list[Any]:
    """A group that scales out with a step policy and in with a simple policy of cooldown 300 s."""
    group = res(ASG, "gpu", {"name": "gpu-asg", "minSize": 0, "maxSize": 4, "defaultCooldown": 300})
    out = res(
        POLICY_T,
        "scale-out",
        {
            "autoscalingGroupName": "gpu-asg",
            "policyType": "StepScaling",
            "stepAdjustments": [{"metricIntervalLowerBound": "0", "scalingAdjustment": 1}],
            "estimatedInstanceWarmup": 300,
        },
        prop_deps={"autoscalingGroupName": [group]},
    )
    props = {
        "autoscalingGroupName": "gpu-asg",
        "policyType": "SimpleScaling",
        "adjustmentType": "ChangeInCapacity",
        "scalingAdjustment": -1,
        "cooldown": 300,
    }
    props.update(scale_in)
    props = {k: v for k, v in props.items() if v is not None}
    inward = res(POLICY_T, "scale-in", props, prop_deps={"autoscalingGroupName": [group]})
    busy = res(
        ALARM, "busy", {"alarmActions": [asg_policy_arn("scale-out")]}, prop_deps={"alarmActions": [out]}
    )
    idle = res(
        ALARM, "idle", {"alarmActions": [asg_policy_arn("scale-in")]}, prop_deps={"alarmActions": [inward]}
    )
    return [group, out, inward, busy, idle]


def messages(resources: list[Any], config: dict[str, Any] | None = None) -> list[str]:
    return [message for message, _ in run_stack(POLICY, resources, config)]


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-OPS-003",
        "scale-in-respects-cooldown",
        ("aws", "alicloud", "tencentcloud"),
    )
    assert RULE.defaults() == {"min_cooldown_s": 300}


def test_simple_scale_in_with_cooldown_passes() -> None:
    assert run_stack(POLICY, aws_stack()) == []


def test_step_scale_in_fired_by_an_alarm_is_reported_on_the_policy() -> None:
    stack = aws_stack(
        policyType="StepScaling",
        scalingAdjustment=None,
        cooldown=None,
        stepAdjustments=[{"metricIntervalUpperBound": "0", "scalingAdjustment": -1}],
    )
    assert run_stack(POLICY, stack) == [
        (
            "step-scaling policy 'scale-in' scales in by 1 and is fired by alarm 'idle': the action is "
            "re-run every minute while the alarm holds and a step policy takes no cooldown, so the group "
            "loses capacity every minute; scale in with a SimpleScaling policy whose cooldown is at least "
            "300 s, or with target tracking",
            stack[2].urn,
        )
    ]


def test_step_scale_in_that_no_alarm_fires_is_not_reported() -> None:
    stack = aws_stack(
        policyType="StepScaling",
        scalingAdjustment=None,
        stepAdjustments=[{"metricIntervalUpperBound": "0", "scalingAdjustment": -2}],
    )
    assert run_stack(POLICY, stack[:4]) == []


def test_short_simple_cooldown() -> None:
    assert messages(aws_stack(cooldown=60)) == [
        "simple-scaling policy 'scale-in' scales in with a cooldown of 60 s; set a cooldown of at least 300 "
        "s so that one scale-in takes effect before the next"
    ]


def test_simple_policy_without_cooldown_takes_the_groups_default() -> None:
    stack = aws_stack(cooldown=None)
    assert messages(stack) == []
    stack[0].props["defaultCooldown"] = 120
    assert messages(stack) == [
        "simple-scaling policy 'scale-in' scales in with the default cooldown of group 'gpu' of 120 s; set a "
        "cooldown of at least 300 s so that one scale-in takes effect before the next"
    ]


def test_group_outside_the_stack_cannot_be_judged() -> None:
    stack = aws_stack(cooldown=None, autoscalingGroupName="legacy-asg")
    stack[2].property_dependencies = {}
    assert run_stack(POLICY, stack[1:]) == [
        (
            "could not be judged: simple-scaling policy 'scale-in' has no cooldown and its group is not in "
            "the stack, so the group's defaultCooldown that applies is not known; set the policy's cooldown",
            stack[2].urn,
        )
    ]


@pytest.mark.parametrize(
    "change",
    [
        {"policyType": "TargetTrackingScaling", "scalingAdjustment": None},
        {"adjustmentType": "ExactCapacity", "scalingAdjustment": 0, "cooldown": 10},
        {"scalingAdjustment": 1, "cooldown": 10},
    ],
    ids=["target-tracking", "exact-capacity", "scale-out"],
)
def test_what_is_not_a_step_of_scale_in_passes(change: dict[str, Any]) -> None:
    assert messages(aws_stack(**change)) == []


def test_min_cooldown_comes_from_config() -> None:
    assert messages(aws_stack(), {"scale-in-respects-cooldown": {"min_cooldown_s": 600}}) == []
    assert messages(aws_stack(), {"min_cooldown_s": 600}) == [
        "simple-scaling policy 'scale-in' scales in with a cooldown of 300 s; set a cooldown of at least "
        "600 s so that one scale-in takes effect before the next"
    ]


def test_unknown_adjustment_is_not_judged() -> None:
    stack = aws_stack(scalingAdjustment=UNKNOWN_NUMBER_VALUE)
    assert run_stack(POLICY, stack) == [
        (
            "could not be judged at preview: the number value at .scalingAdjustment can't be known during "
            "preview",
            stack[2].urn,
        )
    ]


def test_application_auto_scaling_step_policy_honours_its_cooldown() -> None:
    def appas(cooldown: int | None) -> list[Any]:
        config: dict[str, Any] = {
            "adjustmentType": "ChangeInCapacity",
            "stepAdjustments": [{"metricIntervalUpperBound": "0", "scalingAdjustment": -1}],
        }
        if cooldown is not None:
            config["cooldown"] = cooldown
        return [
            res(APPAS, "fleet-in", {"policyType": "StepScaling", "stepScalingPolicyConfiguration": config})
        ]

    assert messages(appas(None)) == []
    assert messages(appas(300)) == []
    assert messages(appas(30)) == [
        "Application Auto Scaling step policy 'fleet-in' scales in with a cooldown of 30 s; set a cooldown "
        "of at least 300 s so that one scale-in takes effect before the next"
    ]


def ali_stack(rule: dict[str, Any], default_cooldown: int = 300) -> list[Any]:
    group = res(ESS_GROUP, "pool", {"scalingGroupName": "pool", "defaultCooldown": default_cooldown})
    scale_in = res(
        ESS_RULE, "pool-in", {"scalingGroupId": "pool", **rule}, prop_deps={"scalingGroupId": [group]}
    )
    alarm = res(
        ESS_ALARM,
        "pool-idle",
        {"alarmActions": ["ari:acs:ess:cn-hangzhou:1:scalingrule/pool-in"], "scalingGroupId": "pool"},
        prop_deps={"alarmActions": [scale_in], "scalingGroupId": [group]},
    )
    return [group, scale_in, alarm]


def test_alibaba_simple_rule() -> None:
    simple = {"adjustmentType": "QuantityChangeInCapacity", "adjustmentValue": -1}
    assert messages(ali_stack({**simple, "cooldown": 300})) == []
    assert messages(ali_stack(simple)) == []
    assert messages(ali_stack({**simple, "cooldown": 60})) == [
        "ESS simple scaling rule 'pool-in' scales in with a cooldown of 60 s; set a cooldown of at least "
        "300 s so that one scale-in takes effect before the next"
    ]
    # An unset cooldown reads back as 0: the group's default applies.
    assert messages(ali_stack({**simple, "cooldown": 0}, default_cooldown=60)) == [
        "ESS simple scaling rule 'pool-in' scales in with the default cooldown of group 'pool' of 60 s; set "
        "a cooldown of at least 300 s so that one scale-in takes effect before the next"
    ]
    assert messages(ali_stack({"adjustmentType": "TotalCapacity", "adjustmentValue": 0, "cooldown": 5})) == []


def test_alibaba_step_rule_fired_by_an_alarm() -> None:
    step = {
        "scalingRuleType": "StepScalingRule",
        "adjustmentType": "QuantityChangeInCapacity",
        "stepAdjustments": [{"metricIntervalUpperBound": "0", "scalingAdjustment": -2}],
    }
    stack = ali_stack(step)
    assert run_stack(POLICY, stack) == [
        (
            "ESS step scaling rule 'pool-in' scales in by 2 and is fired by alarm 'pool-idle': the action "
            "is re-run every minute while the alarm holds and a step policy takes no cooldown, so the group "
            "loses capacity every minute; scale in with a SimpleScalingRule whose cooldown is at least 300 "
            "s, or target tracking",
            stack[1].urn,
        )
    ]


def test_tencent_policy_cooldown_defaults_to_300() -> None:
    def tc(**props: Any) -> list[Any]:
        return [
            res(TC_POLICY, "as-in", {"adjustmentType": "CHANGE_IN_CAPACITY", "adjustmentValue": -1, **props})
        ]

    assert messages(tc()) == []
    assert messages(tc(cooldown=120)) == [
        "AS scaling policy 'as-in' scales in with a cooldown of 120 s; set a cooldown of at least 300 s so "
        "that one scale-in takes effect before the next"
    ]
    assert messages(tc(adjustmentType="EXACT_CAPACITY", adjustmentValue=0, cooldown=10)) == []


def test_a_stack_without_scaling_is_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="the stack has no scaling policy or rule"):
        run_stack(POLICY, [res(ASG, "gpu", {"maxSize": 2})])
