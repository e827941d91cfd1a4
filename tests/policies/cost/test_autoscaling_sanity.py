from __future__ import annotations

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.cost.autoscaling_sanity import POLICY, RULE
from gpufleet.policies.ops.scale_in_cooldown import POLICY as SCALE_IN_COOLDOWN

from .helpers import AWS_ALARM, UNKNOWN_NUM, UNKNOWN_STR, ali_pool, aws_pool, check_stack, res, tc_pool

HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
KEDA = "kubernetes:keda.sh/v1alpha1:ScaledObject"


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-COST-006",
        "gpu-pool-autoscaling-sane",
        ("aws", "alicloud", "tencentcloud", "kubernetes"),
    )
    assert RULE.defaults() == {"min_cooldown_s": 300}


def test_compliant_per_cloud() -> None:
    assert check_stack(POLICY, [*aws_pool(), *ali_pool(), *tc_pool()]) == []


def test_autoscaling_absent() -> None:
    stack = aws_pool(scaling=False)
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' can grow to 4 but autoscaling is absent: no scaling policy or "
            "alarm acts on it",
            stack[1].urn,
        )
    ]


def test_fixed_size_pool_and_node_group_without_policies_pass() -> None:
    assert check_stack(POLICY, aws_pool(scaling=False, group={"minSize": 2, "maxSize": 2})) == []
    ng = res(
        "aws:eks/nodeGroup:NodeGroup",
        "ng",
        {"instanceTypes": ["g5.2xlarge"], "scalingConfig": {"minSize": 0, "maxSize": 4}},
    )
    assert check_stack(POLICY, [ng]) == []


def test_thresholds_inverted() -> None:
    stack = aws_pool(out_alarm={"threshold": 25})
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu' scales out at 25 but in at 30 on GPUUtilization; the scale-out "
        "threshold must "
        "be above the scale-in one"
    ]


def test_short_cooldown_aws_and_group_default() -> None:
    assert [m for m, _ in check_stack(POLICY, aws_pool(out_policy={"cooldown": 60}))] == [
        "Auto Scaling group 'gpu''s scaling policy 'gpu-out' (fired by alarm 'gpu-high') has a cooldown "
        "of 60 s; set it to at least 300 s"
    ]
    stack = aws_pool(out_policy={"cooldown": None}, group={"defaultCooldown": 120})
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu''s scaling policy 'gpu-out' (fired by alarm 'gpu-high') has no cooldown "
        "of its own, so the group's default cooldown of 120 s applies; set its cooldown or the group's "
        "defaultCooldown to at least 300 s"
    ]


def test_short_step_warmup_names_the_policy_once_with_every_alarm() -> None:
    stack = aws_pool(
        out_policy={
            "policyType": "StepScaling",
            "scalingAdjustment": None,
            "cooldown": None,
            "stepAdjustments": [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}],
            "estimatedInstanceWarmup": 60,
        }
    )
    out_policy, high = stack[2], stack[4]
    queue = res(
        AWS_ALARM,
        "queue-deep",
        {
            "comparisonOperator": "GreaterThanThreshold",
            "threshold": 10,
            "period": 60,
            "evaluationPeriods": 5,
            "metricName": "QueueDepth",
            "alarmActions": [UNKNOWN_STR],
        },
        deps={"alarmActions": [out_policy]},
    )
    assert high.name == "gpu-high"
    assert check_stack(POLICY, [*stack, queue]) == [
        (
            "Auto Scaling group 'gpu''s scaling policy 'gpu-out' (fired by alarms 'gpu-high' and "
            "'queue-deep') has an estimatedInstanceWarmup of 60 s; set it to at least 300 s",
            stack[1].urn,
        )
    ]


STEP_IN = {
    "policyType": "StepScaling",
    "scalingAdjustment": None,
    "cooldown": None,
    "stepAdjustments": [{"scalingAdjustment": -1, "metricIntervalUpperBound": "0"}],
}


@pytest.mark.parametrize(
    ("warmup", "group"), [(None, {}), (300, {}), (3600, {}), (None, {"defaultCooldown": 900})]
)
def test_step_scale_in_is_judged_by_the_cooldown_rule_not_passed_on_its_warmup(
    warmup: int | None, group: dict[str, int]
) -> None:
    # Warm-up is not a cooldown, and the group's defaultCooldown applies to simple policies only: 30
    # minutes under the threshold would remove one instance a minute. GF-OPS-003 (scale-in respects the
    # cooldown) reports it; GF-COST-006 does not repeat the verdict.
    stack = aws_pool(in_policy={**STEP_IN, "estimatedInstanceWarmup": warmup}, group=group)
    assert check_stack(POLICY, stack) == []
    [(message, urn)] = check_stack(SCALE_IN_COOLDOWN, stack)
    assert urn.endswith("aws:autoscaling/policy:Policy::gpu-in")
    assert "'gpu-in' scales in by 1 and is fired by alarm 'gpu-low'" in message


def test_simple_scale_in_with_its_cooldown_and_step_scale_out_with_warmup_pass() -> None:
    step_out = {
        "policyType": "StepScaling",
        "scalingAdjustment": None,
        "cooldown": None,
        "estimatedInstanceWarmup": 300,
        "stepAdjustments": [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}],
    }
    assert check_stack(POLICY, aws_pool(out_policy=step_out)) == []


STEP_OUT_NO_WARMUP = {
    "policyType": "StepScaling",
    "scalingAdjustment": None,
    "cooldown": None,
    "stepAdjustments": [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}],
}


def test_step_scale_out_without_its_own_warmup_uses_the_groups() -> None:
    # AWS: the group's defaultInstanceWarmup, else its defaultCooldown (300 s when unset).
    assert check_stack(POLICY, aws_pool(out_policy=STEP_OUT_NO_WARMUP)) == []
    assert check_stack(POLICY, aws_pool(out_policy=STEP_OUT_NO_WARMUP, group={"defaultCooldown": 600})) == []
    stack = aws_pool(
        out_policy=STEP_OUT_NO_WARMUP, group={"defaultInstanceWarmup": 60, "defaultCooldown": 600}
    )
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu''s scaling policy 'gpu-out' (fired by alarm 'gpu-high') has no "
        "estimatedInstanceWarmup of its own, so the group's defaultInstanceWarmup of 60 s paces its "
        "scale-out; set its estimatedInstanceWarmup or the group's defaultInstanceWarmup to at least 300 s"
    ]
    stack = aws_pool(out_policy=STEP_OUT_NO_WARMUP, group={"defaultCooldown": 120})
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu''s scaling policy 'gpu-out' (fired by alarm 'gpu-high') has no "
        "estimatedInstanceWarmup of its own, so the group's defaultCooldown of 120 s paces its "
        "scale-out; set its estimatedInstanceWarmup or the group's defaultInstanceWarmup to at least 300 s"
    ]


def test_a_step_scale_in_no_alarm_fires_is_not_rerun() -> None:
    stack = [r for r in aws_pool(in_policy=STEP_IN) if r.name != "gpu-low"]
    assert check_stack(POLICY, stack) == []


def test_an_unknown_cooldown_on_a_step_policy_is_not_decisive() -> None:
    step_out = {
        "policyType": "StepScaling",
        "scalingAdjustment": None,
        "cooldown": UNKNOWN_NUM,
        "estimatedInstanceWarmup": 300,
        "stepAdjustments": [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}],
    }
    assert check_stack(POLICY, aws_pool(out_policy=step_out)) == []


def test_short_cooldown_of_a_policy_without_alarm_names_the_policy() -> None:
    stack = [r for r in aws_pool(out_policy={"cooldown": 30}) if r.name != "gpu-high"]
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu''s scaling policy 'gpu-out' has a cooldown of 30 s; set it to at least 300 s"
    ]


def test_scale_in_window_shorter_than_scale_out() -> None:
    stack = aws_pool(in_alarm={"period": 60, "evaluationPeriods": 2})
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu' scales in after 120 s but out after 300 s; the scale-in window must be no "
        "shorter than the scale-out window"
    ]


def test_alicloud_and_tencent_negatives() -> None:
    assert [m for m, _ in check_stack(POLICY, ali_pool(rule={"cooldown": 60}))] == [
        "ESS scaling group 'grp''s scaling policy 'scale-in' (fired by alarm 'idle') has a cooldown of "
        "60 s; set it to at least 300 s"
    ]
    assert [m for m, _ in check_stack(POLICY, tc_pool(policy={"cooldown": 30}))] == [
        "AS scaling group 'grp''s scaling policy 'out' has a cooldown of 30 s; set it to at least 300 s"
    ]


def test_tencent_monitor_alarm_names_the_as_policy_it_triggers() -> None:
    stack = tc_pool(policy={"cooldown": 60})
    group, policy = stack[1], stack[2]
    alarm = res(
        "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
        "gpu-busy",
        {
            "triggerTasks": [{"type": "AS", "taskConfig": UNKNOWN_STR}],
            "conditions": {
                "rules": [{"metricName": "GpuUtil", "operator": "gt", "value": "70", "period": 60}]
            },
        },
        deps={"triggerTasks": [group, policy]},
    )
    # The AS policy and the alarm that triggers it are one finding about the policy's setting.
    assert [m for m, _ in check_stack(POLICY, [*stack, alarm])] == [
        "AS scaling group 'grp''s scaling policy 'out' (fired by alarm 'gpu-busy') has a cooldown of 60 s; "
        "set it to at least 300 s"
    ]


def test_unknown_max_with_proxy() -> None:
    asg = res(
        "aws:autoscaling/group:Group",
        "gpu",
        {"minSize": 0, "maxSize": UNKNOWN_NUM, "launchConfiguration": "lc"},
        proxy=True,
    )
    lc = res("aws:ec2/launchConfiguration:LaunchConfiguration", "lc", {"instanceType": "g5.2xlarge"})
    assert check_stack(POLICY, [lc, asg]) == [
        (
            "could not be judged at preview: the number value at .maxSize can't be known during preview",
            asg.urn,
        )
    ]


def _gpu_deployment() -> PolicyResource:
    container = {"name": "serve", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    return res(
        "kubernetes:apps/v1:Deployment",
        "serve",
        {
            "metadata": {"name": "serve", "namespace": "ml"},
            "spec": {"template": {"spec": {"containers": [container]}}},
        },
    )


def test_kubernetes_hpa_and_keda_on_gpu_workloads() -> None:
    deployment = _gpu_deployment()
    target = {"kind": "Deployment", "name": "serve"}
    good = res(
        HPA, "serve", {"metadata": {"namespace": "ml"}, "spec": {"scaleTargetRef": target, "maxReplicas": 4}}
    )
    assert check_stack(POLICY, [deployment, good]) == []
    fast = res(
        HPA,
        "serve",
        {
            "metadata": {"namespace": "ml"},
            "spec": {
                "scaleTargetRef": target,
                "maxReplicas": 4,
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
            },
        },
    )
    assert check_stack(POLICY, [deployment, fast]) == [
        (
            "HorizontalPodAutoscaler 'serve' scales GPU workload 'serve' down after a 60 s "
            "stabilization window; use "
            "at least 300 s",
            fast.urn,
        )
    ]
    keda = res(
        KEDA,
        "serve",
        {
            "metadata": {"namespace": "ml"},
            "spec": {"scaleTargetRef": {"name": "serve"}, "cooldownPeriod": 30},
        },
    )
    assert check_stack(POLICY, [deployment, keda]) == [
        (
            "KEDA ScaledObject 'serve' has a cooldownPeriod of 30 s for GPU workload 'serve'; use at "
            "least 300 s",
            keda.urn,
        )
    ]


def test_kubernetes_non_gpu_target_not_judged() -> None:
    plain = res(
        "kubernetes:apps/v1:Deployment",
        "web",
        {"metadata": {"name": "web"}, "spec": {"template": {"spec": {"containers": [{"name": "web"}]}}}},
    )
    hpa = res(
        HPA,
        "web",
        {
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web"},
                "maxReplicas": 4,
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0}},
            }
        },
    )
    assert check_stack(POLICY, [plain, hpa]) == []


def test_kubernetes_cpu_workloads_with_unknown_namespace_are_not_read() -> None:
    # At preview a Deployment and its HPA both sit in a Namespace whose name is not known yet; a CPU
    # workload's autoscaler is not judged, so nothing about it may be "could not be judged".
    plain = res(
        "kubernetes:apps/v1:Deployment",
        "web",
        {
            "metadata": {"name": UNKNOWN_STR, "namespace": UNKNOWN_STR},
            "spec": {
                "template": {"spec": {"containers": [{"name": "web", "resources": {"limits": {"cpu": "1"}}}]}}
            },
        },
    )
    hpa = res(
        HPA,
        "web",
        {
            "metadata": {"namespace": UNKNOWN_STR},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": UNKNOWN_STR}, "maxReplicas": 4},
        },
    )
    assert check_stack(POLICY, [plain, hpa], proxy=True) == []


def test_kubernetes_gpu_workload_with_unknown_namespace_is_not_passed() -> None:
    deployment = _gpu_deployment()
    unknown_ns = res(
        "kubernetes:apps/v1:Deployment",
        "serve",
        {**dict(deployment.props), "metadata": {"name": "serve", "namespace": UNKNOWN_STR}},
    )
    hpa = res(
        HPA,
        "serve",
        {
            "metadata": {"namespace": "ml"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "serve"}},
        },
    )
    # Attributed to the workload whose namespace is unknown, so other autoscalers are still judged.
    assert check_stack(POLICY, [unknown_ns, hpa], proxy=True) == [
        (
            "could not be judged at preview: the string value at .metadata.namespace can't be known "
            "during preview",
            unknown_ns.urn,
        )
    ]


def _drained(stack: list[PolicyResource]) -> list[PolicyResource]:
    """The pool with a termination hook on its group (stack[1])."""
    hook = res(
        "aws:autoscaling/lifecycleHook:LifecycleHook",
        "gpu-drain",
        {"autoscalingGroupName": UNKNOWN_STR, "lifecycleTransition": "autoscaling:EC2_INSTANCE_TERMINATING"},
        deps={"autoscalingGroupName": [stack[1]]},
    )
    return [*stack, hook]


def test_a_min_zero_group_woken_by_one_message_is_a_finding() -> None:
    queue = {
        "namespace": "AWS/SQS",
        "metricName": "ApproximateNumberOfMessagesVisible",
        "comparisonOperator": "GreaterThanThreshold",
        "threshold": 0,
        "period": 300,
        "evaluationPeriods": 1,
    }
    stack = _drained(aws_pool(out_alarm=queue))
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "Auto Scaling group 'gpu' has a minimum of 0 and scales out when alarm 'gpu-high' sees any "
        "waiting message (threshold 0): one message starts a GPU instance, and each further instance "
        "waits a cooldown; scale on the backlog per instance instead (target tracking on "
        "ApproximateNumberOfMessagesVisible / GroupInServiceInstances held at the acceptable backlog "
        "per instance)"
    ]
    # The same alarm at the acceptable backlog, or on a group that keeps an instance, passes.
    assert check_stack(POLICY, _drained(aws_pool(out_alarm={**queue, "threshold": 10}))) == []
    assert check_stack(POLICY, _drained(aws_pool(out_alarm=queue, group={"minSize": 1}))) == []


def test_the_backlog_target_and_a_scale_in_while_the_queue_is_empty_pass() -> None:
    pool = aws_pool()
    stack = [
        *pool,
        res(
            "aws:autoscaling/policy:Policy",
            "gpu-backlog",
            {
                "autoscalingGroupName": UNKNOWN_STR,
                "policyType": "TargetTrackingScaling",
                "estimatedInstanceWarmup": 300,
                "targetTrackingConfiguration": {
                    "targetValue": 10,
                    "disableScaleIn": True,
                    "customizedMetricSpecification": {
                        "metrics": [
                            {
                                "id": "m1",
                                "metricStat": {
                                    "metric": {
                                        "namespace": "AWS/SQS",
                                        "metricName": "ApproximateNumberOfMessagesVisible",
                                    },
                                    "stat": "Sum",
                                },
                                "returnData": False,
                            },
                            {"id": "e1", "expression": "IF(m2 > 0, m1 / m2, m1)", "returnData": True},
                        ]
                    },
                },
            },
            deps={"autoscalingGroupName": [pool[1]]},
        ),
    ]
    assert check_stack(POLICY, _drained(stack)) == []


QUEUE_ALARM = {
    "namespace": "AWS/SQS",
    "metricName": "ApproximateNumberOfMessagesVisible",
    "comparisonOperator": "GreaterThanThreshold",
    "threshold": 10,
    "period": 300,
    "evaluationPeriods": 1,
}


def test_a_queue_fed_group_that_scales_in_without_a_termination_hook_is_a_finding() -> None:
    stack = aws_pool(out_alarm=QUEUE_ALARM)
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' takes work from a queue ('gpu-high') and scales in ('gpu-in') "
            "with no termination lifecycle hook: a scale-in ends the job an instance is running with "
            "no chance to checkpoint or return its message; add an aws.autoscaling.LifecycleHook with "
            "lifecycle_transition 'autoscaling:EC2_INSTANCE_TERMINATING' and a heartbeat long enough "
            "to checkpoint, and let the worker protect its instance while it holds a job",
            stack[1].urn,
        )
    ]


@pytest.mark.parametrize("transition", ["autoscaling:EC2_INSTANCE_TERMINATING"])
def test_a_termination_hook_on_the_group_clears_it(transition: str) -> None:
    stack = aws_pool(out_alarm=QUEUE_ALARM)
    hook = res(
        "aws:autoscaling/lifecycleHook:LifecycleHook",
        "gpu-drain",
        {
            "autoscalingGroupName": UNKNOWN_STR,
            "lifecycleTransition": transition,
            "heartbeatTimeout": 900,
            "defaultResult": "CONTINUE",
        },
        deps={"autoscalingGroupName": [stack[1]]},
    )
    assert check_stack(POLICY, [*stack, hook]) == []
    inline = aws_pool(
        out_alarm=QUEUE_ALARM,
        group={"initialLifecycleHooks": [{"name": "drain", "lifecycleTransition": transition}]},
    )
    assert check_stack(POLICY, inline) == []


def test_a_launching_hook_does_not_count_and_a_gpu_only_group_is_not_queue_fed() -> None:
    stack = aws_pool(out_alarm=QUEUE_ALARM)
    launching = res(
        "aws:autoscaling/lifecycleHook:LifecycleHook",
        "gpu-warm",
        {"autoscalingGroupName": UNKNOWN_STR, "lifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING"},
        deps={"autoscalingGroupName": [stack[1]]},
    )
    assert len(check_stack(POLICY, [*stack, launching])) == 1
    assert check_stack(POLICY, aws_pool()) == []


def test_only_the_cluster_autoscaler_tag_excuses_a_group_without_scaling() -> None:
    def tagged(value: str) -> list[PolicyResource]:
        tags = [{"key": "gpufleet:scaler", "value": value, "propagateAtLaunch": True}]
        return aws_pool(scaling=False, group={"tags": tags})

    assert check_stack(POLICY, tagged("cluster-autoscaler")) == []
    stack = tagged("alarms")
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' can grow to 4 but autoscaling is absent: no scaling policy or "
            "alarm acts on it",
            stack[1].urn,
        )
    ]
