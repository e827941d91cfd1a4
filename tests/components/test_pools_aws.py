from __future__ import annotations

import pytest

from components.pools.aws import DLAMI_NAME_FILTER, GpuPool, GpuPoolArgs
from components.pools.scaling import ScalingRules

from .builders import KEY_ARN, OFF_HOURS, TAGS, pool_args
from .conftest import Runner

ASG = "pool-asg-0a1b2c3"


def _build(args: GpuPoolArgs):  # type: ignore[no-untyped-def]
    return lambda: GpuPool("pool", args)


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(off_hours=OFF_HOURS)))
    assert mocks.names_by_type() == [
        ("aws:autoscaling/group:Group", "pool-asg"),
        ("aws:autoscaling/policy:Policy", "pool-scale-in"),
        ("aws:autoscaling/policy:Policy", "pool-scale-out"),
        ("aws:autoscaling/schedule:Schedule", "pool-start"),
        ("aws:autoscaling/schedule:Schedule", "pool-stop"),
        ("aws:cloudwatch/metricAlarm:MetricAlarm", "pool-gpu-high"),
        ("aws:cloudwatch/metricAlarm:MetricAlarm", "pool-gpu-low"),
        ("aws:cloudwatch/metricAlarm:MetricAlarm", "pool-queue-deep"),
        ("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt"),
        ("gpufleet:pools:GpuPool", "pool"),
    ]


def test_launch_template_is_hardened(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(disk_gib=500)))
    lt = mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs
    assert lt["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 2,
        "instanceMetadataTags": "disabled",
    }
    assert "keyName" not in lt
    assert "userData" not in lt
    assert lt["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {
                "volumeType": "gp3",
                "volumeSize": 500,
                "encrypted": "true",
                "kmsKeyId": KEY_ARN,
                "deleteOnTermination": "true",
            },
        }
    ]
    assert lt["networkInterfaces"] == [
        {
            "deviceIndex": 0,
            "associatePublicIpAddress": "false",
            "deleteOnTermination": "true",
            "securityGroups": ["sg-1"],
        }
    ]
    assert lt["iamInstanceProfile"] == {"arn": "arn:aws:iam::123456789012:instance-profile/gpu"}
    assert lt["imageId"] == "ami-0dlami000000000"
    ami_calls = [args for token, args in mocks.calls if token == "aws:ec2/getAmi:getAmi"]
    assert ami_calls[0]["owners"] == ["amazon"] and ami_calls[0]["mostRecent"] is True
    assert {"name": "name", "values": [DLAMI_NAME_FILTER]} in ami_calls[0]["filters"]
    assert [spec["resourceType"] for spec in lt["tagSpecifications"]] == [
        "instance",
        "volume",
        "network-interface",
    ]


def test_an_explicit_image_skips_the_lookup(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(image_id="ami-pinned")))
    assert mocks.one("aws:ec2/launchTemplate:LaunchTemplate", "pool-lt").inputs["imageId"] == "ami-pinned"
    assert all(token != "aws:ec2/getAmi:getAmi" for token, _ in mocks.calls)


@pytest.mark.parametrize(("spot", "base", "above_base"), [(100, 0, 0), (50, 1, 50), (0, 2, 100)])
def test_group_mixes_spot_above_an_on_demand_base(
    run_pulumi: Runner, spot: int, base: int, above_base: int
) -> None:
    mocks = run_pulumi(_build(pool_args(spot_percent=spot, on_demand_base=base)))
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert group["mixedInstancesPolicy"]["instancesDistribution"] == {
        "onDemandBaseCapacity": base,
        "onDemandPercentageAboveBaseCapacity": above_base,
        "spotAllocationStrategy": "price-capacity-optimized",
        "onDemandAllocationStrategy": "prioritized",
    }
    assert group["capacityRebalance"] is (spot > 0)


def test_group_size_overrides_subnets_and_tag_list(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args()))
    group = mocks.one("aws:autoscaling/group:Group", "pool-asg").inputs
    assert (group["minSize"], group["maxSize"]) == (0, 4)
    assert group["vpcZoneIdentifiers"] == ["subnet-a", "subnet-b"]
    template = group["mixedInstancesPolicy"]["launchTemplate"]
    assert template["overrides"] == [{"instanceType": "g5.xlarge"}, {"instanceType": "g4dn.xlarge"}]
    assert template["launchTemplateSpecification"] == {"launchTemplateId": "pool-lt-id", "version": "1"}
    assert group["tags"] == [
        {"key": k, "value": v, "propagateAtLaunch": True}
        for k, v in sorted({**TAGS, "gpufleet:pool": "experiments"}.items())
    ]
    assert (group["defaultCooldown"], group["defaultInstanceWarmup"]) == (300, 300)


def test_alarms_and_step_policies_follow_the_rules(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(scaling=ScalingRules(cooldown_s=600))))
    out = mocks.one("aws:autoscaling/policy:Policy", "pool-scale-out").inputs
    scale_in = mocks.one("aws:autoscaling/policy:Policy", "pool-scale-in").inputs
    assert (out["policyType"], out["adjustmentType"], out["estimatedInstanceWarmup"]) == (
        "StepScaling",
        "ChangeInCapacity",
        600,
    )
    assert out["stepAdjustments"] == [{"scalingAdjustment": 1, "metricIntervalLowerBound": "0"}]
    assert scale_in["stepAdjustments"] == [{"scalingAdjustment": -1, "metricIntervalUpperBound": "0"}]
    assert out["autoscalingGroupName"] == ASG
    alarms = {r.name: r.inputs for r in mocks.of_type("aws:cloudwatch/metricAlarm:MetricAlarm")}
    summary = {
        name: (
            a["namespace"],
            a["metricName"],
            a["dimensions"],
            a["statistic"],
            a["comparisonOperator"],
            a["threshold"],
            a["period"],
            a["evaluationPeriods"],
            a["alarmActions"],
        )
        for name, a in alarms.items()
    }
    out_arn = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-out-0a1b2c3"
    in_arn = "arn:aws:autoscaling:us-east-1:123456789012:policy/pool-scale-in-0a1b2c3"
    assert summary == {
        "pool-gpu-high": (
            "CWAgent",
            "nvidia_smi_utilization_gpu",
            {"AutoScalingGroupName": ASG},
            "Average",
            "GreaterThanThreshold",
            70,
            60,
            5,
            [out_arn],
        ),
        "pool-queue-deep": (
            "gpufleet",
            "QueueDepth",
            {"Pool": "experiments"},
            "Maximum",
            "GreaterThanThreshold",
            10,
            60,
            5,
            [out_arn],
        ),
        "pool-gpu-low": (
            "CWAgent",
            "nvidia_smi_utilization_gpu",
            {"AutoScalingGroupName": ASG},
            "Average",
            "LessThanThreshold",
            30,
            60,
            30,
            [in_arn],
        ),
    }
    assert alarms["pool-gpu-low"]["treatMissingData"] == "notBreaching"


def test_off_hours_schedule_scales_to_zero_in_its_time_zone(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args(min_size=1, off_hours=OFF_HOURS)))
    stop = mocks.one("aws:autoscaling/schedule:Schedule", "pool-stop").inputs
    start = mocks.one("aws:autoscaling/schedule:Schedule", "pool-start").inputs
    assert {k: stop[k] for k in ("minSize", "maxSize", "desiredCapacity", "recurrence", "timeZone")} == {
        "minSize": 0,
        "maxSize": 0,
        "desiredCapacity": 0,
        "recurrence": "0 20 * * *",
        "timeZone": "Asia/Shanghai",
    }
    assert {k: start[k] for k in ("minSize", "maxSize", "desiredCapacity", "recurrence", "timeZone")} == {
        "minSize": 1,
        "maxSize": 4,
        "desiredCapacity": 1,
        "recurrence": "0 8 * * 1-5",
        "timeZone": "Asia/Shanghai",
    }
    assert stop["autoscalingGroupName"] == ASG


def test_no_schedule_without_off_hours(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(pool_args()))
    mocks.one("aws:autoscaling/group:Group", "pool-asg")
    assert mocks.of_type("aws:autoscaling/schedule:Schedule") == []


def test_args_report_every_problem() -> None:
    with pytest.raises(ValueError) as raised:
        pool_args(
            instance_types=[],
            min_size=5,
            max_size=2,
            spot_percent=120,
            disk_gib=4,
            scaling=ScalingRules(gpu_util_in=80),
        )
    assert str(raised.value) == (
        "GpuPoolArgs(experiments): instance_types: at least one instance type is needed; "
        "size: need 0 <= min (5) <= max (2); spot_percent: 120 is not a percentage; "
        "disk_gib: 4 is outside gp3's 8..16384 GiB; "
        "scaling.gpu_util_in (80) must be below gpu_util_out (70)"
    )
