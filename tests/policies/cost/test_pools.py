from __future__ import annotations

import json
from typing import Any

from gpufleet.policies.cost import pools as P
from gpufleet.policies.cost.pools import Pool, discover_pools, hourly_envelope, monthly_estimate
from gpufleet.policies.cost.pools.tokens.alicloud import (
    ALI_ESS_ALARM,
    ALI_INSTANCE,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
    ALI_SCHEDULED_TASK,
)
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_ASG_SCHEDULE,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_METRIC_ALARM,
    AWS_SPOT_FLEET,
    AWS_SPOT_REQUEST,
)
from gpufleet.policies.cost.pools.tokens.tencentcloud import (
    TC_ALARM_POLICY,
    TC_SCALING_CONFIG,
    TC_SCALING_GROUP,
    TC_SCALING_POLICY,
    TC_SCHEDULE,
)
from gpufleet.policies.gpu import gpu_class_of

from .helpers import UNKNOWN_NUM, UNKNOWN_STR, FakeCatalog, res


def _one(resources: list[Any], catalog: FakeCatalog | None = None) -> Pool:
    found = discover_pools(resources, catalog or FakeCatalog.default())
    assert len(found) == 1, found
    return found[0]


def test_gpu_detection_catalogue_then_family() -> None:
    catalog = FakeCatalog.default()
    assert gpu_class_of("aws", "g5.2xlarge", catalog) == (True, "A10G", "catalogue")
    assert gpu_class_of("aws", "m5.large", catalog) == (False, "", "catalogue")
    assert gpu_class_of("aws", "g6e.12xlarge", catalog) == (True, "L40S", "family")
    assert gpu_class_of("aws", "p5.48xlarge", None) == (True, "H100", "family")
    assert gpu_class_of("aws", "c7g.large", None) == (False, None, "none")
    assert gpu_class_of("alicloud", "ecs.gn7i-c16g1.4xlarge", None) == (True, "A10", "family")
    assert gpu_class_of("alicloud", "ecs.ebmgn7ex.32xlarge", None) == (True, None, "family")
    assert gpu_class_of("alicloud", "ecs.g7.large", None) == (False, None, "none")
    assert gpu_class_of("tencentcloud", "GN10Xp.2XLARGE40", None) == (True, "V100", "family")
    assert gpu_class_of("tencentcloud", "GNV4.3XLARGE44", None) == (True, "A10", "family")
    assert gpu_class_of("tencentcloud", "S5.MEDIUM4", None) == (False, None, "none")


def test_aws_asg_with_launch_template_joined_by_dependency() -> None:
    lt = res(
        AWS_LAUNCH_TEMPLATE,
        "gpu-lt",
        {"instanceType": "g5.2xlarge", "instanceMarketOptions": {"marketType": "spot"}},
    )
    asg = res(
        AWS_ASG,
        "gpu",
        {
            "minSize": 0,
            "maxSize": 4,
            "desiredCapacity": 1,
            "defaultCooldown": 300,
            "launchTemplate": {"id": UNKNOWN_STR, "version": "$Latest"},
        },
        deps={"launchTemplate": [lt]},
        provider_props={"region": "us-east-1"},
    )
    pool = _one([lt, asg])
    assert (pool.cloud, pool.region, pool.instance_types) == ("aws", "us-east-1", ("g5.2xlarge",))
    assert (pool.min_size, pool.max_size, pool.desired, pool.spot_percent) == (0, 4, 1, 100.0)
    assert pool.scalable and pool.env == "dev" and pool.kind == "Auto Scaling group"


def test_aws_asg_mixed_instances_default_is_all_on_demand() -> None:
    lt = res(AWS_LAUNCH_TEMPLATE, "lt", {"name": "gpu-lt", "instanceType": "g5.2xlarge"})
    mip: dict[str, Any] = {
        "launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateName": "gpu-lt"},
            "overrides": [{"instanceType": "g5.2xlarge"}, {"instanceType": "g4dn.xlarge"}],
        }
    }
    asg = res(AWS_ASG, "gpu", {"minSize": 0, "maxSize": 10, "mixedInstancesPolicy": mip})
    pool = _one([lt, asg])
    assert pool.instance_types == ("g5.2xlarge", "g4dn.xlarge")
    assert pool.spot_percent == 0.0
    mip["instancesDistribution"] = {"onDemandBaseCapacity": 2, "onDemandPercentageAboveBaseCapacity": 50}
    pool = _one([lt, res(AWS_ASG, "gpu", {"minSize": 0, "maxSize": 10, "mixedInstancesPolicy": mip})])
    assert (pool.spot_percent, pool.on_demand_base) == (40.0, 2)  # 8 above base, half spot = 4 of 10


def test_aws_asg_launch_configuration_spot_price() -> None:
    lc = res(AWS_LAUNCH_CONFIGURATION, "lc", {"instanceType": "g4dn.xlarge", "spotPrice": "0.3"})
    asg = res(AWS_ASG, "gpu", {"minSize": 0, "maxSize": 2, "launchConfiguration": "lc"})
    assert _one([lc, asg]).spot_percent == 100.0


def test_non_gpu_pools_are_left_out_unless_asked() -> None:
    asg = res(AWS_ASG, "web", {"minSize": 1, "maxSize": 2, "launchConfiguration": "lc"})
    lc = res(AWS_LAUNCH_CONFIGURATION, "lc", {"instanceType": "m5.large"})
    assert discover_pools([lc, asg], FakeCatalog.default()) == []
    assert [p.name for p in discover_pools([lc, asg], FakeCatalog.default(), gpu_only=False)] == ["web"]


def test_aws_scaling_policies_alarms_and_schedules() -> None:
    asg = res(AWS_ASG, "gpu", {"name": "gpu-asg", "minSize": 0, "maxSize": 4, "launchConfiguration": "lc"})
    lc = res(AWS_LAUNCH_CONFIGURATION, "lc", {"instanceType": "g4dn.xlarge"})
    out = res(
        AWS_ASG_POLICY, "out", {"autoscalingGroupName": "gpu-asg", "scalingAdjustment": 1, "cooldown": 300}
    )
    inn = res(
        AWS_ASG_POLICY,
        "in",
        {"autoscalingGroupName": UNKNOWN_STR, "scalingAdjustment": -1},
        deps={"autoscalingGroupName": [asg]},
    )
    alarm = res(
        AWS_METRIC_ALARM,
        "low",
        {
            "comparisonOperator": "LessThanThreshold",
            "threshold": 30,
            "period": 300,
            "evaluationPeriods": 6,
            "metricName": "GPUUtilization",
            "alarmActions": [UNKNOWN_STR],
        },
        deps={"alarmActions": [inn]},
    )
    night = res(
        AWS_ASG_SCHEDULE,
        "night",
        {
            "autoscalingGroupName": "gpu-asg",
            "minSize": 0,
            "maxSize": 0,
            "desiredCapacity": 0,
            "recurrence": "0 20 * * *",
        },
    )
    pool = _one([asg, lc, out, inn, alarm, night])
    by_name = {s.name: s for s in pool.scaling}
    assert by_name["out"].direction == "out" and by_name["out"].cooldown_s == 300
    low = by_name["low"]
    assert (low.direction, low.threshold, low.window_s, low.metric) == ("in", 30.0, 1800, "GPUUtilization")
    assert pool.scales_in and pool.scheduled_to_zero


def test_aws_instance_fleet_spot_fleet_and_node_group() -> None:
    inst = res(AWS_INSTANCE, "box", {"instanceType": "g5.2xlarge"})
    spot = res(AWS_SPOT_REQUEST, "sr", {"instanceType": "g5.2xlarge"})
    fleet = res(
        AWS_FLEET,
        "fleet",
        {
            "targetCapacitySpecification": {"totalTargetCapacity": 4, "onDemandTargetCapacity": 1},
            "launchTemplateConfigs": [{"overrides": [{"instanceType": "g5.2xlarge"}]}],
        },
    )
    sfr = res(
        AWS_SPOT_FLEET,
        "sfr",
        {"targetCapacity": 5, "launchSpecifications": [{"instanceType": "g4dn.xlarge"}]},
    )
    ng = res(
        AWS_EKS_NODE_GROUP,
        "ng",
        {
            "instanceTypes": ["g5.2xlarge"],
            "capacityType": "SPOT",
            "scalingConfig": {"minSize": 0, "maxSize": 3, "desiredSize": 0},
        },
    )
    found = {p.name: p for p in discover_pools([inst, spot, fleet, sfr, ng], FakeCatalog.default())}
    assert (found["box"].spot_percent, found["box"].max_size, found["box"].scalable) == (0.0, 1, False)
    assert found["sr"].spot_percent == 100.0
    assert (found["fleet"].max_size, found["fleet"].spot_percent) == (4, 75.0)
    assert (found["sfr"].max_size, found["sfr"].spot_percent) == (5, 100.0)
    assert (found["ng"].max_size, found["ng"].spot_percent, found["ng"].scalable) == (3, 100.0, True)


def test_alicloud_group_configuration_rules_alarms_and_tasks() -> None:
    group = res(
        ALI_SCALING_GROUP,
        "grp",
        {
            "minSize": 0,
            "maxSize": 6,
            "multiAzPolicy": "COST_OPTIMIZED",
            "onDemandBaseCapacity": 0,
            "onDemandPercentageAboveBaseCapacity": 0,
        },
        provider_props={"region": "cn-hangzhou"},
    )
    config = res(
        ALI_SCALING_CONFIGURATION,
        "cfg",
        {
            "scalingGroupId": UNKNOWN_STR,
            "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
            "spotStrategy": "SpotAsPriceGo",
        },
        deps={"scalingGroupId": [group]},
    )
    rule = res(
        ALI_SCALING_RULE,
        "in",
        {
            "scalingGroupId": UNKNOWN_STR,
            "adjustmentType": "QuantityChangeInCapacity",
            "adjustmentValue": -1,
            "cooldown": 300,
        },
        deps={"scalingGroupId": [group]},
    )
    alarm = res(
        ALI_ESS_ALARM,
        "idle",
        {
            "alarmActions": [UNKNOWN_STR],
            "metricName": "GpuUtilizationAgent",
            "threshold": "30",
            "comparisonOperator": "<=",
            "period": 300,
            "evaluationCount": 6,
        },
        deps={"alarmActions": [rule]},
    )
    task = res(
        ALI_SCHEDULED_TASK,
        "night",
        {"scalingGroupId": UNKNOWN_STR, "desiredCapacity": 0, "minValue": 0, "maxValue": 0},
        deps={"scalingGroupId": [group]},
    )
    pool = _one([group, config, rule, alarm, task])
    assert (pool.cloud, pool.region, pool.instance_types, pool.spot_percent) == (
        "alicloud",
        "cn-hangzhou",
        ("ecs.gn7i-c8g1.2xlarge",),
        100.0,
    )
    (signal,) = pool.scaling
    assert (signal.direction, signal.threshold, signal.window_s, signal.cooldown_s) == ("in", 30.0, 1800, 300)
    assert pool.scheduled_to_zero


def test_tencent_group_config_alarm_policy_and_schedule() -> None:
    config = res(
        TC_SCALING_CONFIG, "cfg", {"instanceTypes": ["GN7.2XLARGE32"], "instanceChargeType": "SPOTPAID"}
    )
    group = res(
        TC_SCALING_GROUP,
        "grp",
        {"minSize": 0, "maxSize": 4, "configurationId": UNKNOWN_STR},
        deps={"configurationId": [config]},
    )
    policy = res(
        TC_SCALING_POLICY,
        "out",
        {
            "scalingGroupId": UNKNOWN_STR,
            "adjustmentType": "CHANGE_IN_CAPACITY",
            "adjustmentValue": 1,
            "comparisonOperator": "GREATER_THAN",
            "metricName": "CPU_UTILIZATION",
            "threshold": 80,
            "period": 300,
            "continuousTime": 1,
            "cooldown": 300,
        },
        deps={"scalingGroupId": [group]},
    )
    alarm = res(
        TC_ALARM_POLICY,
        "gpu-out",
        {
            "triggerTasks": [
                {"type": "AS", "taskConfig": json.dumps({"Group": UNKNOWN_STR, "Policy": UNKNOWN_STR})}
            ],
            "conditions": {
                "rules": [
                    {
                        "metricName": "GpuUtil",
                        "operator": "gt",
                        "value": "70",
                        "period": 60,
                        "continuePeriod": 5,
                    }
                ]
            },
        },
        deps={"triggerTasks": [policy]},
    )
    schedule = res(
        TC_SCHEDULE,
        "night",
        {"scalingGroupId": UNKNOWN_STR, "desiredCapacity": 0, "minSize": 0, "maxSize": 0},
        deps={"scalingGroupId": [group]},
    )
    pool = _one([config, group, policy, alarm, schedule])
    assert (pool.spot_percent, pool.instance_types) == (100.0, ("GN7.2XLARGE32",))
    gpu = next(s for s in pool.scaling if s.name == "gpu-out")
    assert (gpu.direction, gpu.threshold, gpu.window_s, gpu.cooldown_s) == ("out", 70.0, 300, 300)
    assert pool.scheduled_to_zero and not pool.scales_in


def test_unknown_decisive_values_are_recorded() -> None:
    lc = res(AWS_LAUNCH_CONFIGURATION, "lc", {"instanceType": "g4dn.xlarge"})
    asg = res(AWS_ASG, "gpu", {"minSize": 0, "maxSize": UNKNOWN_NUM, "launchConfiguration": "lc"})
    pool = _one([lc, asg])
    assert pool.max_size is None and "max_size" in pool.unknown
    try:
        pool.known("max_size")
    except Exception as error:
        assert "maxSize" in str(getattr(error, "message", ""))
    else:
        raise AssertionError("known() passed an unknown value")


def test_hourly_envelope_converts_and_takes_worst_type() -> None:
    catalog = FakeCatalog.default()
    lt = res(AWS_LAUNCH_TEMPLATE, "lt", {"instanceType": "g4dn.xlarge"})
    mip = {
        "launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateName": "lt"},
            "overrides": [{"instanceType": "g4dn.xlarge"}, {"instanceType": "g5.2xlarge"}],
        }
    }
    asg = res(
        AWS_ASG, "gpu", {"minSize": 1, "maxSize": 4, "mixedInstancesPolicy": mip, "region": "us-east-1"}
    )
    ali = res(
        ALI_INSTANCE,
        "box",
        {"instanceType": "ecs.gn7i-c8g1.2xlarge"},
        provider_props={"region": "cn-hangzhou"},
    )
    envelope = hourly_envelope(discover_pools([lt, asg, ali], catalog), catalog, "USD")
    assert (envelope.min_hourly, envelope.max_hourly, envelope.currency) == (2.0, 5.0, "USD")
    assert [line.render() for line in envelope.lines] == [
        "gpu: 4 x g5.2xlarge (us-east-1) at 1.00 USD/h",
        "box: 1 x ecs.gn7i-c8g1.2xlarge (cn-hangzhou) at 1.00 USD/h",
    ]
    assert monthly_estimate(envelope) == 1460.0


def test_envelope_reports_unpriced_and_unknown_region() -> None:
    catalog = FakeCatalog.default()
    known = res(AWS_INSTANCE, "a", {"instanceType": "g5.2xlarge"})
    unpriced = res(AWS_INSTANCE, "b", {"instanceType": "p5.48xlarge"})
    envelope = hourly_envelope(discover_pools([known, unpriced], catalog), catalog)
    assert envelope.max_hourly == 1.2
    assert envelope.lines[0].note == "highest listed price (eu-west-1)"
    assert envelope.unpriced == ("b: p5.48xlarge",)


def test_index_is_built_once_not_per_pool() -> None:
    lcs = [res(AWS_LAUNCH_CONFIGURATION, f"lc{i}", {"instanceType": "g4dn.xlarge"}) for i in range(400)]
    groups = [
        res(AWS_ASG, f"g{i}", {"minSize": 0, "maxSize": 1, "launchConfiguration": f"lc{i}"})
        for i in range(400)
    ]
    assert len(discover_pools([*lcs, *groups], FakeCatalog.default())) == 400


def _action(min_size: int | None, max_size: int | None, desired: int | None) -> P.ScheduledAction:
    return P.ScheduledAction("urn", "action", min_size, max_size, desired, "0 8 * * 1-5", None)


def test_scheduled_action_stop_is_a_zero_maximum_not_a_zero_desired() -> None:
    assert _action(0, 0, 0).scales_to_zero
    assert _action(None, 0, None).scales_to_zero
    # ESS rule to total capacity 0, or a desired-only action: nothing keeps capacity open.
    assert _action(None, None, 0).scales_to_zero
    # The morning start of a pool whose minimum is 0: desired 0 under a restored maximum.
    assert not _action(0, 4, 0).scales_to_zero
    assert not _action(1, 4, 2).scales_to_zero
    assert not _action(None, None, None).scales_to_zero
