"""Every operability rule survives values of the wrong shape: it reports, passes or says it could not
judge, and never raises out of the policy."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.ops import POLICIES
from gpufleet.policies.rule import GfStackPolicy

from .helpers import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, NotApplicable, res, run_stack
from .test_scaling_metric_published import Fleet

TYPES = (
    "aws:cloudwatch/metricAlarm:MetricAlarm",
    "aws:autoscaling/policy:Policy",
    "aws:autoscaling/group:Group",
    "aws:appautoscaling/policy:Policy",
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:iam/instanceProfile:InstanceProfile",
    "aws:iam/role:Role",
    "aws:iam/rolePolicy:RolePolicy",
    "aws:kms/key:Key",
    "aws:kms/externalKey:ExternalKey",
    "aws:s3/bucketPolicy:BucketPolicy",
    "aws:ssm/document:Document",
    "aws:cloudwatch/logGroup:LogGroup",
    "alicloud:ess/alarm:Alarm",
    "alicloud:ess/scalingRule:ScalingRule",
    "alicloud:kms/key:Key",
    "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
    "tencentcloud:As/scalingPolicy:ScalingPolicy",
)
KEYS = (
    "alarmActions", "namespace", "metricName", "dimensions", "metricQueries", "policyType", "stepAdjustments",
    "scalingAdjustment", "adjustmentType", "cooldown", "autoscalingGroupName", "iamInstanceProfile",
    "role", "policy", "inlinePolicies", "keyMaterialBase64", "kmsKeyId", "name", "tags", "origin",
    "metricType", "scalingRuleType", "adjustmentValue", "triggerTasks", "conditions", "vpcZoneIdentifiers",
    "launchTemplate", "stepScalingPolicyConfiguration", "waitForCapacityTimeout", "minSize",
)  # fmt: skip
GARBAGE: tuple[Any, ...] = (
    None,
    "",
    "not-a-number",
    -1,
    3.5,
    True,
    [],
    [None, 7, "x", {"a": []}],
    {"Statement": "nonsense"},
    {"nested": {"deeper": [1, 2]}},
    "{not json",
    '{"Statement": [{"Principal": {"AWS": 5}}]}',
    UNKNOWN_STRING_VALUE,
    UNKNOWN_NUMBER_VALUE,
)


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.rule.id)
@pytest.mark.parametrize("garbage", GARBAGE, ids=repr)
def test_wrong_shapes_never_raise(policy: GfStackPolicy, garbage: Any) -> None:
    resources = [res(token, f"r{i}", dict.fromkeys(KEYS, garbage)) for i, token in enumerate(TYPES)]
    try:
        reported = run_stack(policy, resources)
    except NotApplicable:
        return
    assert all(isinstance(message, str) and message for message, _ in reported)


def _judge_all(resources: list[Any]) -> None:
    for policy in POLICIES:
        try:
            reported = run_stack(policy, resources)
        except NotApplicable:
            continue
        assert all(isinstance(message, str) and message for message, _ in reported)


@pytest.mark.parametrize("garbage", GARBAGE[1:8], ids=repr)
def test_one_wrong_value_in_a_working_fleet_never_raises(garbage: Any) -> None:
    """The compliant fleet of the GF-OPS-001 tests with each input, one at a time, of the wrong shape."""
    baseline = Fleet().resources()
    for index, resource in enumerate(baseline):
        for key in list(resource.props):
            resources = Fleet().resources()
            resources[index].props[key] = garbage
            _judge_all(resources)
