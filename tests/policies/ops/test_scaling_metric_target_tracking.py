"""GF-OPS-001 on target-tracking policies: AWS creates their alarms, the metric still needs a publisher."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.ops.scaling_metric_published import POLICY

from .helpers import res, run_stack
from .test_scaling_metric_published import TAGS_AND_METRICS, Fleet

# --- target tracking: AWS makes the alarms, the metric still needs a publisher -------------------


def tracking(fleet: Fleet, spec: dict[str, Any]) -> Any:
    return res(
        "aws:autoscaling/policy:Policy",
        "track-gpu",
        {
            "autoscalingGroupName": "gpu-asg",
            "policyType": "TargetTrackingScaling",
            "targetTrackingConfiguration": spec,
        },
        prop_deps={"autoscalingGroupName": [fleet.group]},
    )


def tracked(fleet: Fleet, policy: Any) -> list[str]:
    resources = [r for r in fleet.resources() if r is not fleet.alarm and r is not fleet.policy] + [policy]
    reported = run_stack(POLICY, resources)
    assert all(urn == policy.urn for _, urn in reported), reported
    return [message for message, _ in reported]


def test_target_tracking_on_the_agent_metric_of_its_own_group() -> None:
    spec = {
        "targetValue": 60,
        "customizedMetricSpecification": {
            "namespace": "CWAgent",
            "metricName": "nvidia_smi_utilization_gpu",
            "statistic": "Average",
            "metricDimensions": [{"name": "AutoScalingGroupName", "value": "gpu-asg"}],
        },
    }
    assert tracked(Fleet(), tracking(Fleet(), spec)) == []
    fleet = Fleet(TAGS_AND_METRICS[:1])
    assert tracked(fleet, tracking(fleet, spec)) == [
        "target-tracking policy 'track-gpu' watches CWAgent nvidia_smi_utilization_gpu by "
        "AutoScalingGroupName, which the CloudWatch agent on 'gpu-lt' appends only after ec2:DescribeTags "
        "succeeds, but role 'gpu-node' does not allow it, so every metric is dropped; allow "
        "ec2:DescribeTags"
    ]


def test_target_tracking_on_a_custom_metric_nobody_publishes() -> None:
    fleet = Fleet()
    spec = {
        "targetValue": 10,
        "customizedMetricSpecification": {
            "metrics": [
                {
                    "id": "backlog",
                    "metricStat": {"metric": {"namespace": "vision", "metricName": "BacklogPerWorker"}},
                }
            ]
        },
    }
    assert tracked(fleet, tracking(fleet, spec)) == [
        "target-tracking policy 'track-gpu' scales on vision BacklogPerWorker, which nothing in the stack "
        "may publish (no role allows cloudwatch:PutMetricData for vision): the alarm never fires; scale on "
        "a metric the stack publishes, or list 'vision' in published_namespaces if it is published outside "
        "the stack"
    ]


def test_target_tracking_on_predefined_metrics() -> None:
    fleet = Fleet()
    cpu = {
        "targetValue": 50,
        "predefinedMetricSpecification": {"predefinedMetricType": "ASGAverageCPUUtilization"},
    }
    assert tracked(fleet, tracking(fleet, cpu)) == []
    alb = {
        "targetValue": 50,
        "predefinedMetricSpecification": {"predefinedMetricType": "ALBRequestCountPerTarget"},
    }
    assert tracked(fleet, tracking(fleet, alb)) == [
        "target-tracking policy 'track-gpu' scales on AWS/ApplicationELB RequestCountPerTarget but the stack "
        "creates nothing that AWS/ApplicationELB reports on"
    ]


def test_application_auto_scaling_target_tracking() -> None:
    policy = res(
        "aws:appautoscaling/policy:Policy",
        "fleet-track",
        {
            "policyType": "TargetTrackingScaling",
            "targetTrackingScalingPolicyConfiguration": {
                "targetValue": 5,
                "customizedMetricSpecification": {
                    "namespace": "vision",
                    "metricName": "PendingJobs",
                    "dimensions": [{"name": "Queue", "value": "train"}],
                },
            },
        },
    )
    assert [m for m, _ in run_stack(POLICY, [policy])] == [
        "target-tracking policy 'fleet-track' scales on vision PendingJobs, which nothing in the stack may "
        "publish (no role allows cloudwatch:PutMetricData for vision): the alarm never fires; scale on a "
        "metric the stack publishes, or list 'vision' in published_namespaces if it is published outside "
        "the stack"
    ]
    assert run_stack(POLICY, [policy], {"published_namespaces": ["vision:train"]}) == []
