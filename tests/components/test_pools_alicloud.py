"""AlicloudGpuPool: an ESS group launching from a hardened launch template, its spot mix, scaling rules
and alarms compiled from the spec's rules, its MNS queue, and off-hours tasks in UTC."""

from __future__ import annotations

import base64
import datetime
import json

import pytest

from gpufleet.components.pools.alicloud import (
    ESS_HOOK_RESULTS,
    ESS_HOOK_TRANSITIONS,
    AlicloudGpuPool,
    AlicloudOffHours,
    AlicloudPoolArgs,
    encoded_user_data,
    off_hours_utc,
    task_name,
    zone_offsets,
)
from gpufleet.components.pools.alicloud_scaling import (
    CMS_COMPARISON_OPERATORS,
    cms_operator,
    ess_adjustment,
    ess_operator,
    scaling_rule_arn,
    silence_time,
)
from gpufleet.components.pools.scaling import ScalingRules
from gpufleet.components.pools.userdata import WorkloadContext
from gpufleet.components.pools.workload import ContainerWorkload, ScriptWorkload
from tests.components.alicloud_builders import A10, T4, TAGS
from tests.components.conftest import RecordingMocks, Runner

TODAY = datetime.date(2026, 3, 10)
SHANGHAI = AlicloudOffHours(timezone="Asia/Shanghai", stop=(20, 0), start=(8, 0))


def pool_args(**changes: object) -> AlicloudPoolArgs:
    values: dict[str, object] = {
        "pool": "a10",
        "name_prefix": "gf-cn",
        "region": "cn-hangzhou",
        "instance_types": [A10, T4],
        "min_size": 0,
        "max_size": 4,
        "vswitch_ids": ["vsw-a", "vsw-b"],
        "security_group_id": "sg-1",
        "role_name": "gf-cn-a10",
        "key_id": "key-hzz0001",
        "image_id": "aliyun_3_x64_20G_alibase_20250101.vhd",
        "queue_name": "gf-cn-a10",
        "tags": TAGS,
        "spot_percent": 100,
        "today": TODAY,
    }
    values.update(changes)
    return AlicloudPoolArgs(**values)  # type: ignore[arg-type]


def build(run_pulumi: Runner, **changes: object) -> RecordingMocks:
    args = pool_args(**changes)
    return run_pulumi(lambda: AlicloudGpuPool("pool", args))


def test_launch_template_is_hardened(run_pulumi: Runner) -> None:
    template = (
        build(run_pulumi).one("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "pool-template").inputs
    )
    assert template["httpTokens"] == "required"
    assert template["httpEndpoint"] == "enabled"
    # Two: a container on the bridge network (the reference worker) reaches hardened metadata too.
    assert template["httpPutResponseHopLimit"] == 2
    assert template["passwordInherit"] is False
    for credential in ("keyPairName", "password"):
        assert credential not in template
    assert template["internetMaxBandwidthOut"] == 0
    assert template["ramRoleName"] == "gf-cn-a10"
    assert template["securityGroupIds"] == ["sg-1"]
    assert template["systemDisk"] == {
        "category": "cloud_essd",
        "size": 200,
        "encrypted": True,
        "kmsKeyId": "key-hzz0001",
        "deleteWithInstance": True,
    }
    assert template["spotStrategy"] == "SpotAsPriceGo"
    assert template["instanceType"] == A10
    script = base64.b64decode(template["userData"]).decode()
    assert script.startswith("#!/bin/bash\n")
    assert "https://cms-agent-cn-hangzhou.oss-cn-hangzhou-internal.aliyuncs.com/Argus/" in script
    assert "set -e\n" not in script


def test_the_boot_script_installs_the_nvidia_driver_before_the_agent(run_pulumi: Runner) -> None:
    """Alibaba Cloud Linux 3 has no NVIDIA driver: Alibaba's auto-install script from the internal
    mirror, through a hardened-mode metadata token, before the CloudMonitor agent (NVML)."""
    template = (
        build(run_pulumi).one("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "pool-template").inputs
    )
    script = base64.b64decode(template["userData"]).decode()
    driver = (
        "if ! nvidia-smi >/dev/null 2>&1; then\n"
        "  md=http://100.100.100.200\n"
        "  h=X-aliyun-ecs-metadata-token\n"
        '  token=$(curl -fsS -X PUT "$md/latest/api/token" -H "$h-ttl-seconds: 300")\n'
        '  mirror=$(curl -fsS -H "$h: $token" "$md/latest/meta-data/source-address" | head -1)\n'
        "  mkdir -p /root/auto_install && cd /root/auto_install\n"
        "  curl -fsS --retry 3 -o auto_install_v4.0.sh "
        '"$mirror/opsx/ecs/linux/binary/script/auto_install_v4.0.sh" \\\n'
        "    && bash auto_install_v4.0.sh 550.127.08 12.4.1 9.2.0.82 FALSE FALSE \\\n"
    )
    assert driver in script
    assert script.index("nvidia-smi") < script.index("argusagent")


def test_group_takes_the_spot_mix_and_every_type(run_pulumi: Runner) -> None:
    group = build(run_pulumi, spot_percent=75, on_demand_base=1).one(
        "alicloud:ess/scalingGroup:ScalingGroup", "pool-group"
    )
    inputs = group.inputs
    assert inputs["multiAzPolicy"] == "COST_OPTIMIZED"
    assert inputs["onDemandBaseCapacity"] == 1
    assert inputs["onDemandPercentageAboveBaseCapacity"] == 25
    assert inputs["spotInstancePools"] == 2
    assert inputs["launchTemplateId"] == "pool-template-id"
    assert inputs["launchTemplateOverrides"] == [{"instanceType": A10}, {"instanceType": T4}]
    assert inputs["vswitchIds"] == ["vsw-a", "vsw-b"]
    assert (inputs["minSize"], inputs["maxSize"], inputs["defaultCooldown"]) == (0, 4, 300)
    # A mixed pool prices an on-demand share already: it may cover a spot shortage on demand.
    assert inputs["compensateWithOnDemand"] is True


def test_an_all_spot_pool_never_launches_on_demand(run_pulumi: Runner) -> None:
    """A 100 % spot (dev) pool is priced at spot only: a spot shortage waits, it is not billed on demand."""
    group = build(run_pulumi, spot_percent=100).one("alicloud:ess/scalingGroup:ScalingGroup", "pool-group")
    assert group.inputs["compensateWithOnDemand"] is False
    assert group.inputs["onDemandPercentageAboveBaseCapacity"] == 0
    assert group.inputs["spotInstanceRemedy"] is True


def test_on_demand_pool_asks_for_no_spot(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, spot_percent=0)
    group = mocks.one("alicloud:ess/scalingGroup:ScalingGroup", "pool-group").inputs
    assert group["multiAzPolicy"] == "PRIORITY"
    assert "onDemandPercentageAboveBaseCapacity" not in group
    assert "compensateWithOnDemand" not in group
    template = mocks.one("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "pool-template").inputs
    assert template["spotStrategy"] == "NoSpot"


def test_alarms_follow_the_spec_rules(run_pulumi: Runner) -> None:
    rules = ScalingRules(
        gpu_util_out=80, out_for_s=600, gpu_util_in=20, in_for_s=1800, queue_out=5, cooldown_s=600
    )
    mocks = build(run_pulumi, rules=rules, min_size=1)
    high = mocks.one("alicloud:ess/alarm:Alarm", "pool-gpu-high").inputs
    assert (high["metricType"], high["metricName"], high["statistics"]) == (
        "system",
        "GpuUtilizationAgent",
        "Average",
    )
    assert (high["comparisonOperator"], high["threshold"]) == (">", "80")
    # As on AWS: each one-minute period of the window breaches.
    assert (high["period"], high["evaluationCount"]) == (60, 10)
    # ESS alarm tasks name the rule by its ari, as the provider returns it.
    assert high["alarmActions"] == ["ari:acs:ess:cn-hangzhou:1234567890123456:scalingrule/pool-scale-out-id"]
    low = mocks.one("alicloud:ess/alarm:Alarm", "pool-gpu-low").inputs
    assert (low["comparisonOperator"], low["threshold"], low["period"], low["evaluationCount"]) == (
        "<",
        "20",
        60,
        30,
    )
    assert low["alarmActions"] == ["ari:acs:ess:cn-hangzhou:1234567890123456:scalingrule/pool-scale-in-id"]
    out_rule = mocks.one("alicloud:ess/scalingRule:ScalingRule", "pool-scale-out").inputs
    in_rule = mocks.one("alicloud:ess/scalingRule:ScalingRule", "pool-scale-in").inputs
    assert (out_rule["adjustmentValue"], out_rule["cooldown"], out_rule["scalingRuleType"]) == (
        1,
        600,
        "SimpleScalingRule",
    )
    assert (in_rule["adjustmentValue"], in_rule["cooldown"]) == (-1, 600)
    # The GPU rules stay the seed's; the backlog has a rule and an alarm per band.
    rule_names = {r.name for r in mocks.of_type("alicloud:ess/scalingRule:ScalingRule")}
    assert rule_names == {
        "pool-scale-out",
        "pool-scale-in",
        "pool-scale-queue-deep",
        "pool-scale-queue-deep-x2",
        "pool-scale-queue-deep-x4",
        "pool-scale-queue-deep-x8",
    }


# queue_out 5 on a pool of at most 40: bands above 5, 10, 20 and 40 waiting messages add 5, 10, 20 and
# the 40 the pool can hold; each band is bounded by the next one's lower bound.
BANDS = (
    (
        "queue-deep",
        5,
        "@NumberOfMessagesVisible[300].$Maximum > 5 && @NumberOfMessagesVisible[300].$Maximum <= 10",
    ),
    (
        "queue-deep-x2",
        10,
        "@NumberOfMessagesVisible[300].$Maximum > 10 && @NumberOfMessagesVisible[300].$Maximum <= 20",
    ),
    (
        "queue-deep-x4",
        20,
        "@NumberOfMessagesVisible[300].$Maximum > 20 && @NumberOfMessagesVisible[300].$Maximum <= 40",
    ),
)


def test_each_backlog_band_runs_its_own_rule_of_its_lower_bound(run_pulumi: Runner) -> None:
    rules = ScalingRules(out_for_s=600, queue_out=5, cooldown_s=600, in_for_s=1800)
    mocks = build(run_pulumi, rules=rules, min_size=1, max_size=40)
    for suffix, add, expression in BANDS:
        rule = mocks.one("alicloud:ess/scalingRule:ScalingRule", f"pool-scale-{suffix}").inputs
        assert rule == {
            "scalingGroupId": "pool-group-id",
            "scalingRuleName": f"gf-cn-a10-scale-{suffix}",
            "scalingRuleType": "SimpleScalingRule",
            "adjustmentType": "QuantityChangeInCapacity",
            "adjustmentValue": add,
            "cooldown": 600,
        }
        alarm = mocks.one("alicloud:cms/alarm:Alarm", f"pool-{suffix}").inputs
        assert (alarm["project"], alarm["metric"], alarm["period"]) == (
            "acs_mns_new",
            "NumberOfMessagesVisible",
            300,
        )
        assert json.loads(alarm["metricDimensions"]) == [{"queue": "gf-cn-a10", "region": "cn-hangzhou"}]
        assert alarm["compositeExpression"] == {"expressionRaw": expression, "level": "CRITICAL", "times": 2}
        assert "escalationsCritical" not in alarm
        # CloudMonitor names the rule by group and rule id under the account (not the rule's ari), and
        # runs it again after the pool's cooldown while the backlog stays (not once a day).
        assert alarm["targets"] == [
            {
                "targetId": "1",
                "arn": "acs:ess:cn-hangzhou:1234567890123456:"
                f"scalingGroupId/pool-group-id:scalingRuleId/pool-scale-{suffix}-id",
            }
        ]
        assert alarm["silenceTime"] == 600
        assert alarm["contactGroups"] == ["gf-cn-a10"]
    top = mocks.one("alicloud:cms/alarm:Alarm", "pool-queue-deep-x8").inputs
    assert top["escalationsCritical"] == {
        "statistics": "Maximum",
        "comparisonOperator": ">",
        "threshold": "40",
        "times": 2,
    }
    assert "compositeExpression" not in top
    top_rule = mocks.one("alicloud:ess/scalingRule:ScalingRule", "pool-scale-queue-deep-x8").inputs
    assert top_rule["adjustmentValue"] == 40


def test_an_empty_pool_wakes_past_queue_out_like_any_other(run_pulumi: Runner) -> None:
    queue = build(run_pulumi, min_size=0).one("alicloud:cms/alarm:Alarm", "pool-queue-deep").inputs
    assert queue["compositeExpression"]["expressionRaw"].startswith(
        "@NumberOfMessagesVisible[300].$Maximum > 10 &&"
    )


def test_band_rule_values_are_ones_ess_takes() -> None:
    assert ess_adjustment(500) == 500
    for bad in (0, 501, -500):
        with pytest.raises(ValueError, match=r"QuantityChangeInCapacity takes -499\.\.500, not 0"):
            ess_adjustment(bad)


def test_queue_is_the_pools_own(run_pulumi: Runner) -> None:
    queue = build(run_pulumi, queue_visibility_s=1800).one(
        "alicloud:message/serviceQueue:ServiceQueue", "pool-queue"
    )
    assert queue.inputs["queueName"] == "gf-cn-a10"
    assert queue.inputs["visibilityTimeout"] == 1800
    assert queue.inputs["pollingWaitSeconds"] == 20


def test_off_hours_tasks_run_in_utc(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, off_hours=SHANGHAI)
    stop = mocks.one("alicloud:ess/scheduledTask:ScheduledTask", "pool-off-hours-stop").inputs
    start = mocks.one("alicloud:ess/scheduledTask:ScheduledTask", "pool-off-hours-start").inputs
    # 20:00 and 08:00 in Shanghai (UTC+8, no daylight saving) are 12:00 and 00:00 UTC.
    assert (stop["recurrenceType"], stop["recurrenceValue"]) == ("Cron", "0 12 * * *")
    assert (stop["minValue"], stop["maxValue"]) == (0, 0)
    # The group has no desired capacity, so neither task may set one.
    assert "desiredCapacity" not in stop
    assert (stop["scheduledTaskName"], start["scheduledTaskName"]) == ("gf-cn-a10-stop", "gf-cn-a10-start")
    assert stop["launchTime"] == "2026-03-11T12:00Z"
    assert stop["recurrenceEndTime"] == "2027-03-05T00:00Z"
    assert (start["recurrenceValue"], start["minValue"], start["maxValue"]) == ("0 0 * * 1-5", 0, 4)
    assert "desiredCapacity" not in start
    assert start["launchTime"] == "2026-03-11T00:00Z"


def test_long_task_names_are_shortened_within_esss_40_characters(run_pulumi: Runner) -> None:
    # The cn-dev stack's start task: 'gpufleet-cn-dev-cn-hangzhou-a10-dev-start' is 41 characters.
    mocks = build(run_pulumi, off_hours=SHANGHAI, name_prefix="gpufleet-cn-dev-cn-hangzhou", pool="a10-dev")
    stop = mocks.one("alicloud:ess/scheduledTask:ScheduledTask", "pool-off-hours-stop").inputs
    start = mocks.one("alicloud:ess/scheduledTask:ScheduledTask", "pool-off-hours-start").inputs
    assert stop["scheduledTaskName"] == "gpufleet-cn-dev-cn-hangzhou-a10-dev-stop"  # 40: kept
    assert start["scheduledTaskName"] == "gpufleet-cn-dev-cn-hangzhou-bf8885-start"
    assert len(start["scheduledTaskName"]) == 40


def test_task_names_are_checked_against_esss_rules() -> None:
    assert task_name("gf", "stop") == "gf-stop"
    assert task_name("x" * 40, "start") == "x" * 27 + "-f78521-start"
    for bad in ("-gf", "_gf", "gf pool"):
        with pytest.raises(ValueError, match="ESS takes 2-40"):
            task_name(bad, "stop")


def test_alarm_values_are_ones_the_provider_takes() -> None:
    assert cms_operator("GreaterThanThreshold") == ">"
    assert cms_operator("LessThanThreshold") == "<"
    assert ess_operator("GreaterThanThreshold") == ">"
    assert "GreaterThanThreshold" not in CMS_COMPARISON_OPERATORS
    with pytest.raises(ValueError, match="CloudMonitor takes"):
        cms_operator("GreaterThanUpperThreshold")
    with pytest.raises(ValueError, match="ESS takes"):
        ess_operator("GreaterThanYesterday")
    assert [silence_time(s) for s in (0, 300, 600, 100_000)] == [300, 300, 600, 86_400]
    assert scaling_rule_arn("cn-hangzhou", "1234", "asg-1", "asr-2") == (
        "acs:ess:cn-hangzhou:1234:scalingGroupId/asg-1:scalingRuleId/asr-2"
    )


def test_no_off_hours_no_tasks(run_pulumi: Runner) -> None:
    assert build(run_pulumi).of_type("alicloud:ess/scheduledTask:ScheduledTask") == []


# ------------------------------------------------------------------------------ time zones to UTC
def test_a_zone_without_daylight_saving_has_one_offset() -> None:
    assert zone_offsets("Asia/Shanghai", 2026) == (480,)
    assert off_hours_utc("Asia/Shanghai", (20, 0), (8, 0), True, 2026).stop_cron == "0 12 * * *"


def test_a_zone_with_daylight_saving_keeps_capacity_through_both_seasons() -> None:
    # Berlin is UTC+1 in winter and UTC+2 in summer: 08:00 local is 07:00 or 06:00 UTC, 20:00 local
    # is 19:00 or 18:00 UTC. Starting at 06:00 and stopping at 19:00 UTC covers 08:00-20:00 all year.
    utc = off_hours_utc("Europe/Berlin", (20, 0), (8, 0), True, 2026)
    assert utc.offsets_min == (60, 120)
    assert (utc.stop_cron, utc.start_cron) == ("0 19 * * *", "0 6 * * 1-5")


def test_a_start_moved_across_midnight_moves_its_weekdays() -> None:
    # 07:30 Monday-Friday in Shanghai is 23:30 UTC Sunday-Thursday.
    assert off_hours_utc("Asia/Shanghai", (20, 0), (7, 30), True, 2026).start_cron == "30 23 * * 0-4"
    # 21:00 Monday-Friday in New York (UTC-5/-4) is 01:00 UTC Tuesday-Saturday at the earliest.
    assert off_hours_utc("America/New_York", (23, 0), (21, 0), True, 2026).start_cron == "0 1 * * 2-6"
    # Every day stays every day.
    assert off_hours_utc("Asia/Shanghai", (20, 0), (7, 0), False, 2026).start_cron == "0 23 * * *"


def test_half_hour_zones_keep_their_minutes() -> None:
    utc = off_hours_utc("Asia/Kolkata", (20, 0), (9, 0), True, 2026)
    assert (utc.stop_cron, utc.start_cron) == ("30 14 * * *", "30 3 * * 1-5")


def test_user_data_carries_the_workload_after_the_agent() -> None:
    context = WorkloadContext(
        workload=ScriptWorkload(user_data="echo train"), queue_name="q", region="cn-hangzhou"
    )
    script = base64.b64decode(encoded_user_data("cn-hangzhou", context)).decode()
    assert script.index("argusagent") < script.index("echo train")
    assert "GPUFLEET_QUEUE_NAME=q" in script


def test_the_workload_is_told_its_region_in_alibaba_clouds_variable() -> None:
    # AWS_REGION on an ECS instance would aim any AWS SDK in the image at a region AWS does not have.
    context = WorkloadContext(
        workload=ScriptWorkload(user_data="echo train"), queue_name="q", region="cn-hangzhou"
    )
    script = base64.b64decode(encoded_user_data("cn-hangzhou", context)).decode()
    assert (
        "GPUFLEET_QUEUE_NAME=q ALIBABA_CLOUD_REGION_ID=cn-hangzhou bash /var/lib/gpufleet/workload.sh"
        in script
    )
    assert "AWS_REGION" not in script
    container = WorkloadContext(
        workload=ContainerWorkload(
            image="registry.cn-hangzhou.aliyuncs.com/acme/train:1", env={"EPOCHS": "3"}
        ),
        queue_name="q",
        region="cn-hangzhou",
    )
    script = base64.b64decode(encoded_user_data("cn-hangzhou", container)).decode()
    assert "-e GPUFLEET_QUEUE_NAME=q -e ALIBABA_CLOUD_REGION_ID=cn-hangzhou -e EPOCHS=3 " in script
    assert "AWS_REGION" not in script


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"instance_types": []}, "instance_types: at least one"),
        ({"min_size": 5}, "0 <= 5 <= 4 does not hold"),
        ({"disk_gib": 4096}, "disk_gib: 4096"),
        ({"tags": {"project": "vision"}}, "missing cost tag"),
    ],
)
def test_bad_arguments_are_refused(changes: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        pool_args(**changes)


def test_a_scale_in_waits_on_the_drain_hook(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi)
    hook = mocks.one("alicloud:ess/lifecycleHook:LifecycleHook", "pool-drain").inputs
    group_id = hook["scalingGroupId"]
    assert hook == {
        "name": "gpufleet-drain",
        "scalingGroupId": group_id,
        "lifecycleTransition": "SCALE_IN",
        "heartbeatTimeout": 900,
        "defaultResult": "CONTINUE",
    }
    assert hook["lifecycleTransition"] in ESS_HOOK_TRANSITIONS
    assert hook["defaultResult"] in ESS_HOOK_RESULTS


def test_the_worker_may_protect_instances_of_its_own_group_only(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, account_id="1234567890123456")
    policy = mocks.one("alicloud:ram/policy:Policy", "pool-protection").inputs
    group_id = mocks.one("alicloud:ess/lifecycleHook:LifecycleHook", "pool-drain").inputs["scalingGroupId"]
    assert policy["policyName"] == "gf-cn-a10-protection"
    assert json.loads(policy["policyDocument"]) == {
        "Version": "1",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["ess:SetInstancesProtection"],
                "Resource": [f"acs:ess:cn-hangzhou:1234567890123456:scalinggroup/{group_id}"],
            },
            # ESS's RAM table names no resource type for the lifecycle actions.
            {
                "Effect": "Allow",
                "Action": ["ess:CompleteLifecycleAction", "ess:RecordLifecycleActionHeartbeat"],
                "Resource": ["*"],
            },
            # What the worker reads: its state, the group's maximum (the stop notice), its hook's action.
            {
                "Effect": "Allow",
                "Action": [
                    "ess:DescribeLifecycleActions",
                    "ess:DescribeLifecycleHooks",
                    "ess:DescribeScalingActivities",
                    "ess:DescribeScalingGroups",
                    "ess:DescribeScalingInstances",
                ],
                "Resource": ["*"],
            },
        ],
    }
    attach = mocks.one("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "pool-protection-attach")
    assert (attach.inputs["roleName"], attach.inputs["policyName"], attach.inputs["policyType"]) == (
        "gf-cn-a10",
        "gf-cn-a10-protection",
        "Custom",
    )


def test_band_thresholds_reach_cloudmonitor_written_in_full() -> None:
    """A large ``queue_out`` puts ``8 * queue_out`` into the composite expression in full, not as
    ``1.6e+06`` (or ``1.23457e+06`` for 1234567, another threshold)."""
    from gpufleet.components.pools.alicloud_scaling import band_expression
    from gpufleet.components.pools.scaling import compile_band_alarms

    alarms = {a.suffix: a for a in compile_band_alarms(ScalingRules(queue_out=200_000), 500)}
    bounded = [a for a in alarms.values() if a.upper is not None and not a.suffix.startswith("gpu")]
    top = max(bounded, key=lambda a: a.upper or 0)
    expression = band_expression("NumberOfMessagesVisible", top)
    assert "e+" not in expression
    assert expression == (
        f"@NumberOfMessagesVisible[300].$Maximum > {int(top.threshold)} "
        f"&& @NumberOfMessagesVisible[300].$Maximum <= {int(top.upper or 0)}"
    )
    assert int(top.upper or 0) >= 1_000_000
