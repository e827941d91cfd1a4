"""Cost-rule behaviours found by judging raw-SDK AWS programs (tests/realworld/aws)."""

from __future__ import annotations

import json

from pulumi_policy import PolicyResource

from gpufleet.policies.cost import autoscaling_sanity, cost_tags, gpu_instance_allowlist, nonprod_off_hours

from .helpers import AWS_ALARM, UNKNOWN_NUM, UNKNOWN_STR, aws_pool, check_resource, check_stack, res

TAGS = {"project": "vision", "team": "ml", "cost-center": "cc-042", "env": "dev"}
INSTANCE = "aws:ec2/instance:Instance"


def test_provider_default_tags_arrive_json_encoded_and_still_count() -> None:
    # The SDK sends an explicit provider's nested config JSON-encoded: {"defaultTags": "{\"tags\": ...}"}.
    encoded = {"region": "us-west-2", "defaultTags": json.dumps({"tags": TAGS})}
    assert check_resource(cost_tags.POLICY, "aws:ec2/vpc:Vpc", {}, provider_props=encoded) == []
    partial = {"defaultTags": json.dumps({"tags": {"project": "vision"}})}
    assert check_resource(cost_tags.POLICY, "aws:ec2/vpc:Vpc", {}, name="net", provider_props=partial) == [
        "aws:ec2/vpc:Vpc 'net' lacks the cost tags team, cost-center, env; "
        "set project, team, cost-center, env in `tags`"
    ]


def test_unknown_alarm_threshold_is_not_judged() -> None:
    found = check_stack(autoscaling_sanity.POLICY, aws_pool(out_alarm={"threshold": UNKNOWN_NUM}))
    assert [m for m, _ in found] == [
        "could not be judged at preview: the number value at .gpu-high.threshold can't be known during "
        "preview"
    ]


def test_unknown_override_type_beside_a_gpu_type_is_not_judged() -> None:
    stack = aws_pool(
        group={
            "launchTemplate": None,
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": UNKNOWN_STR},
                    "overrides": [{"instanceType": "g5.2xlarge"}, {"instanceType": UNKNOWN_STR}],
                },
                "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 0},
            },
        }
    )
    assert [m for m, _ in check_stack(gpu_instance_allowlist.POLICY, stack)] == [
        "could not be judged at preview: the string value at "
        ".mixedInstancesPolicy.launchTemplate.overrides.instanceType can't be known during preview"
    ]


def _instance_with_alarm(action: str) -> list[PolicyResource]:
    box = res(INSTANCE, "box", {"instanceType": "g6.xlarge", "tags": TAGS})
    alarm = res(
        AWS_ALARM,
        "box-idle",
        {
            "dimensions": {"InstanceId": UNKNOWN_STR},
            "comparisonOperator": "LessThanThreshold",
            "threshold": 5,
            "alarmActions": [action],
        },
        deps={"dimensions": [box]},
    )
    return [box, alarm]


def test_standalone_instance_stopped_by_an_idle_alarm_passes() -> None:
    stack = _instance_with_alarm("arn:aws:automate:us-east-1:ec2:stop")
    assert check_stack(nonprod_off_hours.POLICY, stack) == []


def test_standalone_instance_with_a_notify_only_alarm_still_fails() -> None:
    stack = _instance_with_alarm("arn:aws:sns:us-east-1:123456789012:ops")
    assert [m for m, _ in check_stack(nonprod_off_hours.POLICY, stack)] == [
        "EC2 instance 'box' (dev) runs around the clock: it cannot scale to zero off-hours; run it in a "
        "scaling group with an off-hours schedule or idle scale-in"
    ]
