from __future__ import annotations

from gpufleet.policies.cost.nonprod_off_hours import POLICY, RULE

from .helpers import UNKNOWN_STR, ali_pool, aws_pool, check_stack, res, tc_pool


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-COST-005", "non-prod-gpu-pools-scale-to-zero")
    assert RULE.defaults() == {"weekends_off": True}


def test_compliant_per_cloud() -> None:
    # AWS: schedule and scale-in; Alibaba: scale-in alarm only; Tencent: schedule only
    assert check_stack(POLICY, [*aws_pool(), *ali_pool(), *tc_pool()]) == []
    assert check_stack(POLICY, aws_pool(schedule=False)) == []
    assert check_stack(POLICY, aws_pool(scaling=False)) == []


def test_no_schedule_and_no_scale_in_fails() -> None:
    stack = aws_pool(schedule=False, scaling=False)
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
            "scheduled action to zero or a scale-in policy on idle GPUs",
            stack[1].urn,
        )
    ]
    assert [m for m, _ in check_stack(POLICY, tc_pool(schedule=False))] == [
        "AS scaling group 'grp' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
        "scheduled action to zero or a scale-in policy on idle GPUs"
    ]


def test_min_zero_alone_and_schedule_not_to_zero() -> None:
    stack = aws_pool(scaling=False, schedule=False)
    asg = stack[1]
    busy = res(
        "aws:autoscaling/schedule:Schedule",
        "day",
        {"autoscalingGroupName": UNKNOWN_STR, "minSize": 1, "maxSize": 4, "desiredCapacity": 2},
        deps={"autoscalingGroupName": [asg]},
    )
    assert len(check_stack(POLICY, [*stack, busy])) == 1


def test_alicloud_scheduled_task_to_zero_by_name() -> None:
    stack = ali_pool(rule={"adjustmentValue": 1})  # only a scale-out rule
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "ESS scaling group 'grp' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
        "scheduled action to zero or a scale-in policy on idle GPUs"
    ]
    task = res(
        "alicloud:ess/scheduledTask:ScheduledTask",
        "night",
        {"scalingGroupId": UNKNOWN_STR, "desiredCapacity": 0, "minValue": 0, "maxValue": 0},
        deps={"scalingGroupId": [stack[0]]},
    )
    assert check_stack(POLICY, [*stack, task]) == []


def test_standalone_instance_in_dev_and_prod() -> None:
    box = res("tencentcloud:Instance/instance:Instance", "box", {"instanceType": "GN7.2XLARGE32"})
    assert check_stack(POLICY, [box]) == [
        (
            "CVM instance 'box' (dev) runs around the clock: it cannot scale to zero off-hours; run it in a "
            "scaling group with an off-hours schedule or idle scale-in",
            box.urn,
        )
    ]
    prod = res(
        "tencentcloud:Instance/instance:Instance", "box", {"instanceType": "GN7.2XLARGE32"}, stack="prod"
    )
    assert check_stack(POLICY, [prod]) == []


def test_unknown_environment_with_proxy() -> None:
    box = res(
        "aws:ec2/instance:Instance",
        "box",
        {"instanceType": "g5.2xlarge", "tags": {"env": UNKNOWN_STR}},
        stack="main",
        proxy=True,
    )
    assert check_stack(POLICY, [box]) == [
        (
            "could not be judged: the environment of EC2 instance 'box' is unknown; tag it "
            "env=dev|staging|prod "
            "(or name the stack after its environment)",
            box.urn,
        )
    ]


def test_eks_node_group_scaled_in_by_cluster_autoscaler() -> None:
    ng = res(
        "aws:eks/nodeGroup:NodeGroup",
        "ng",
        {"instanceTypes": ["g5.2xlarge"], "scalingConfig": {"minSize": 0, "maxSize": 4, "desiredSize": 0}},
    )
    assert check_stack(POLICY, [ng]) == [
        (
            "EKS node group 'ng' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
            "scheduled action to zero or a scale-in policy on idle GPUs",
            ng.urn,
        )
    ]
    autoscaler = res("kubernetes:helm.sh/v3:Release", "ca", {"chart": "cluster-autoscaler"})
    assert check_stack(POLICY, [ng, autoscaler]) == []


def test_morning_start_to_desired_zero_is_not_an_off_hours_stop() -> None:
    stack = aws_pool(scaling=False, schedule=False)
    start = res(
        "aws:autoscaling/schedule:Schedule",
        "morning",
        {
            "autoscalingGroupName": UNKNOWN_STR,
            "minSize": 0,
            "maxSize": 4,
            "desiredCapacity": 0,
            "recurrence": "0 8 * * 1-5",
        },
        deps={"autoscalingGroupName": [stack[1]]},
    )
    assert check_stack(POLICY, [*stack, start]) == [
        (
            "Auto Scaling group 'gpu' (dev) has no off-hours schedule to zero and no scale-in policy; add a "
            "scheduled action to zero or a scale-in policy on idle GPUs",
            stack[1].urn,
        )
    ]
