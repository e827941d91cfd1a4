"""Tencent pool arithmetic: the spot share as two AS groups, the off-hours schedules at UTC+8 (with
DST), and the boot script that locks logins."""

from __future__ import annotations

import base64
import datetime
import json

import pytest

from gpufleet.components.pools.off_hours import OffHours
from gpufleet.components.pools.tencent_time import region_schedule, shift_cron, zone_offsets
from gpufleet.components.pools.tencentcloud import (
    AS_HOOK_HEARTBEAT_S,
    AS_HOOK_RESULTS,
    AS_HOOK_TRANSITIONS,
    GroupShape,
    TencentPool,
    TencentPoolArgs,
    boot_script,
    gpu_driver_install,
    physical,
    queue_name,
    queue_retention,
    schedule_start,
    split_groups,
    spot_price_cap,
)
from gpufleet.components.pools.tencentcloud_scaling import AS_NEVER_THRESHOLD, notice_frequency
from gpufleet.components.storage.tencentcloud import bucket_name_part, ia_transition_days
from tests.components.conftest import Runner


@pytest.mark.parametrize(
    ("shape", "groups"),
    [
        ((0, 4, 100, 0), [GroupShape("spot", 0, 4)]),
        ((0, 4, 0, 0), [GroupShape("ondemand", 0, 4)]),
        ((0, 10, 60, 0), [GroupShape("spot", 0, 6), GroupShape("ondemand", 0, 4)]),
        # The base is on-demand first; spot is the share of the rest, rounded down.
        ((2, 10, 50, 2), [GroupShape("spot", 0, 4), GroupShape("ondemand", 2, 6)]),
        ((4, 10, 50, 0), [GroupShape("spot", 2, 5), GroupShape("ondemand", 2, 5)]),
        ((0, 3, 50, 0), [GroupShape("spot", 0, 1), GroupShape("ondemand", 0, 2)]),
        ((0, 1, 99, 0), [GroupShape("ondemand", 0, 1)]),
    ],
)
def test_spot_share_is_two_groups_sized_to_it(
    shape: tuple[int, int, int, int], groups: list[GroupShape]
) -> None:
    found = split_groups(*shape)
    assert found == groups
    assert sum(g.max_size for g in found) == shape[1]
    assert sum(g.min_size for g in found) == shape[0]


def test_bad_pool_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="bad pool shape: min 5, max 4"):
        split_groups(5, 4, 50, 0)


def test_shanghai_converts_exactly() -> None:
    hours = OffHours(timezone="Asia/Shanghai", stop_cron="0 20 * * *", start_cron="0 8 * * 1-5")
    assert region_schedule(hours) == ("0 20 * * *", "0 8 * * 1-5")


def test_berlin_keeps_the_pool_up_for_the_asked_hours_across_dst() -> None:
    assert zone_offsets("Europe/Berlin") == (60, 120)
    hours = OffHours(timezone="Europe/Berlin", stop_cron="0 20 * * *", start_cron="30 8 * * 1-5")
    stop, start = region_schedule(hours)
    # Stop at 20:00 CET (03:00 next day at UTC+8): in summer that is 21:00 CEST, never before 20:00.
    assert stop == "0 3 * * *"
    # Start at 08:30 CEST (14:30 at UTC+8): in winter that is 07:30 CET, never after 08:30.
    assert start == "30 14 * * 1-5"


def test_new_york_weekday_start_moves_to_the_next_day_at_utc_plus_8() -> None:
    assert zone_offsets("America/New_York") == (-300, -240)
    hours = OffHours(timezone="America/New_York", stop_cron="0 20 * * *", start_cron="0 8 * * 1-5")
    # 08:00 EDT is 20:00 at UTC+8 the same day; 20:00 EST is 09:00 at UTC+8 the next day.
    assert region_schedule(hours) == ("0 9 * * *", "0 20 * * 1-5")
    assert shift_cron("0 20 * * 1-5", -300) == "0 9 * * 2-6"
    assert shift_cron("0 20 * * 5", -300) == "0 9 * * 6"
    # Friday evening in New York is Saturday morning at UTC+8; Saturday wraps to Sunday (0).
    assert shift_cron("0 20 * * 5-6", -300) == "0 9 * * 0,6"


def test_sydney_early_morning_moves_to_the_previous_day() -> None:
    # 06:00 in Sydney (UTC+10/+11) is the day before at UTC+8 only when it crosses midnight: 04:00/03:00.
    assert shift_cron("0 6 * * 1-5", 600) == "0 4 * * 1-5"
    assert shift_cron("0 1 * * 1", 600) == "0 23 * * 0"


def test_unsupported_cron_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported off-hours cron"):
        shift_cron("0 8 1 * *", 480)


def test_boot_script_locks_root_then_runs_the_workload() -> None:
    script = base64.b64decode(boot_script("echo train")).decode()
    assert script.startswith("#!/bin/bash\n")
    assert "passwd -l root\n" in script
    assert "PasswordAuthentication no" in script
    assert script.index("passwd -l root") < script.index("echo train")
    assert "echo train" not in base64.b64decode(boot_script(None)).decode()


def test_boot_script_installs_the_nvidia_driver_before_the_workload() -> None:
    # The public TencentOS image has no driver: Tencent's auto-install script from the internal mirror,
    # pinned versions in its ini file, skipped when nvidia-smi already answers.
    step = (
        "# gpufleet: the NVIDIA driver, CUDA and cuDNN (Tencent's GPU driver auto-install)\n"
        "if ! nvidia-smi >/dev/null 2>&1; then\n"
        "  cat > /tmp/user_define_install_info.ini <<'EOF'\n"
        "DRIVER_VERSION=535.161.07\n"
        "CUDA_VERSION=12.4.0\n"
        "CUDNN_VERSION=8.9.7\n"
        "DRIVER_URL=\n"
        "CUDA_URL=\n"
        "CUDNN_URL=\n"
        "EOF\n"
        "  curl -fsS --retry 3 -o /tmp/auto_install.sh "
        "https://mirrors.tencentyun.com/install/GPU/auto_install.sh \\\n"
        "    && bash /tmp/auto_install.sh >/var/log/gpufleet-gpu-driver.log 2>&1 \\\n"
        '    || echo "gpufleet: no NVIDIA driver: no CUDA, no Gpuutil; the GPU alarms stay silent" >&2\n'
        "fi\n"
    )
    assert gpu_driver_install() == step
    script = base64.b64decode(boot_script("echo train")).decode()
    assert step in script
    assert script.index("passwd -l root") < script.index(step) < script.index("echo train")
    assert step in base64.b64decode(boot_script(None)).decode()


def test_names_fit_tencent_rules() -> None:
    assert queue_name("gf-dev-tencentcloud-ap-guangzhou", "t4/x") == "gf-dev-tencentcloud-ap-guangzhou-t4-x"
    assert queue_name("1fleet", "p") == "q-1fleet-p"
    assert len(queue_name("x" * 80, "pool")) == 64
    assert bucket_name_part("GF_Dev-ckpt-ap-guangzhou") == "gf-dev-ckpt-ap-guangzhou"
    long = bucket_name_part("a-very-long-fleet-name-for-a-team-ckpt-ap-guangzhou")
    assert len(long) == 40
    assert long.startswith("a-very-long-fleet-name-for-a-team-")


def test_bucket_names_fit_cos_60_character_request_domain() -> None:
    """<name>-<APPID>.cos.<region>.myqcloud.com has at most 60 characters: 19 for the name in ap-guangzhou."""
    name = bucket_name_part("gpufleet-tc-dev-ckpt-ap-guangzhou", "ap-guangzhou")
    assert name.startswith("gpufleet-tc-") and len(name) <= 19
    assert len(f"{name}-1250000000.cos.ap-guangzhou.myqcloud.com") <= 60
    assert bucket_name_part("tc-ckpt", "ap-guangzhou") == "tc-ckpt"
    assert bucket_name_part("gpufleet-tc-dev-ckpt-ap-guangzhou-dr", "ap-guangzhou") != name


def test_ia_transition_only_when_it_pays_off() -> None:
    assert ia_transition_days(7, 30) is None
    assert ia_transition_days(7, 37) == 7
    assert ia_transition_days(0, 29) is None


def test_long_cloud_names_are_cut_with_a_hash_so_pools_never_share_one() -> None:
    assert physical("short") == "short"
    long_a = physical("gpufleet-staging-tencentcloud-ap-guangzhou-pool-a-very-long-pool-name-spot")
    long_b = physical("gpufleet-staging-tencentcloud-ap-guangzhou-pool-a-very-long-pool-name-ondemand")
    assert len(long_a) == len(long_b) == 60
    assert long_a != long_b
    assert long_a.startswith("gpufleet-staging-tencentcloud-ap-guangzhou-pool-a-v-")


def test_schedules_start_at_the_next_midnight_at_utc_plus_8() -> None:
    # 12:08 UTC on 5 December 2026 is 20:08 at UTC+8: the next midnight there is 6 December.
    assert (
        schedule_start(datetime.datetime(2026, 12, 5, 12, 8, tzinfo=datetime.UTC))
        == "2026-12-06T00:00:00+08:00"
    )
    # 17:00 UTC is already 6 December at UTC+8: the start is 7 December, never today nor the past.
    assert (
        schedule_start(datetime.datetime(2026, 12, 5, 17, 0, tzinfo=datetime.UTC))
        == "2026-12-07T00:00:00+08:00"
    )
    with pytest.raises(ValueError, match="time zone"):
        schedule_start(datetime.datetime(2026, 12, 5))


def test_alarm_and_queue_values_are_in_tencents_ranges() -> None:
    assert [notice_frequency(s) for s in (0, 300, 301, 600, 3600, 200_000)] == [
        300,
        300,
        600,
        600,
        3600,
        86400,
    ]
    assert queue_retention() == 43_200
    with pytest.raises(ValueError, match=r"outside CMQ's 30\.\.43200"):
        queue_retention(345_600)
    assert 1 <= AS_NEVER_THRESHOLD <= 100


def test_spot_bid_is_capped_at_the_dearest_types_on_demand_price() -> None:
    # GN7.2XLARGE32 lists at 1.26 USD an hour in Guangzhou; in CNY at the catalogue's rate, to the fen.
    assert spot_price_cap(["GN7.2XLARGE32"], "ap-guangzhou") == "9.08"
    assert spot_price_cap(["GN7.2XLARGE32"], "ap-guangzhou", currency="USD") == "1.26"
    assert spot_price_cap(["GN6S.LARGE20", "GN6S.2XLARGE40"], "ap-guangzhou", currency="USD") == "2.22"
    with pytest.raises(KeyError, match="no price for region"):
        spot_price_cap(["GN6.7XLARGE48"], "ap-guangzhou")


def test_off_hours_schedules_start_after_the_injected_clock(run_pulumi: Runner) -> None:
    args = TencentPoolArgs(
        pool="t4",
        region="ap-guangzhou",
        instance_types=["GN7.2XLARGE32"],
        min_size=0,
        max_size=2,
        vpc_id="vpc-1",
        subnet_ids=["subnet-1"],
        security_group_id="sg-1",
        role_name="role",
        image_id="img-1",
        queue_name="q-t4",
        tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"},
        off_hours=OffHours(timezone="Asia/Shanghai", stop_cron="0 20 * * *", start_cron="0 8 * * 1-5"),
        now=datetime.datetime(2026, 12, 5, 12, 8, tzinfo=datetime.UTC),
    )
    mocks = run_pulumi(lambda: TencentPool("pool", args))
    for action in ("stop", "start"):
        schedule = mocks.one("tencentcloud:As/schedule:Schedule", f"pool-spot-off-hours-{action}").inputs
        assert (schedule["startTime"], schedule["endTime"]) == (
            "2026-12-06T00:00:00+08:00",
            "2036-01-01T00:00:00+08:00",
        )
    queue = mocks.one("tencentcloud:Tcmq/queue:Queue", "pool-queue").inputs
    assert queue["msgRetentionSeconds"] == 43_200
    scale_in = mocks.one("tencentcloud:As/scalingPolicy:ScalingPolicy", "pool-spot-scale-in").inputs
    scale_out = mocks.one("tencentcloud:As/scalingPolicy:ScalingPolicy", "pool-spot-scale-out").inputs
    # AS's own alarms never fire (a utilisation above 100%), with thresholds within AS's 1..100.
    assert (scale_out["metricName"], scale_out["comparisonOperator"], scale_out["threshold"]) == (
        "CPU_UTILIZATION",
        "GREATER_THAN",
        100,
    )
    assert (scale_in["metricName"], scale_in["comparisonOperator"], scale_in["threshold"]) == (
        "MEM_UTILIZATION",
        "GREATER_THAN",
        100,
    )
    assert (scale_in["adjustmentValue"], scale_out["adjustmentValue"]) == (-1, 1)


def test_each_group_drains_and_the_worker_may_protect_its_own_groups(run_pulumi: Runner) -> None:
    args = TencentPoolArgs(
        pool="t4",
        region="ap-guangzhou",
        instance_types=["GN7.2XLARGE32"],
        min_size=0,
        max_size=4,
        spot_percent=50,
        vpc_id="vpc-1",
        subnet_ids=["subnet-1"],
        security_group_id="sg-1",
        role_name="role",
        image_id="img-1",
        queue_name="q-t4",
        tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"},
        uin="100012345678",
    )
    mocks = run_pulumi(lambda: TencentPool("pool", args))
    hooks = {h.name: h.inputs for h in mocks.of_type("tencentcloud:As/lifecycleHook:LifecycleHook")}
    assert sorted(hooks) == ["pool-ondemand-drain", "pool-spot-drain"]
    for hook in hooks.values():
        assert {k: v for k, v in hook.items() if k != "scalingGroupId"} == {
            "lifecycleHookName": "gpufleet-drain",
            "lifecycleTransition": "INSTANCE_TERMINATING",
            "heartbeatTimeout": 900,
            "defaultResult": "CONTINUE",
        }
        assert hook["lifecycleTransition"] in AS_HOOK_TRANSITIONS
        assert hook["defaultResult"] in AS_HOOK_RESULTS
        assert AS_HOOK_HEARTBEAT_S[0] <= hook["heartbeatTimeout"] <= AS_HOOK_HEARTBEAT_S[1]
    policy = json.loads(mocks.one("tencentcloud:Cam/policy:Policy", "pool-protection").inputs["document"])
    protect, complete, read = policy["statement"]
    # Instances of the pool's own two groups, and no other group.
    assert (protect["effect"], protect["action"]) == ("allow", ["as:SetInstancesProtection"])
    assert sorted(protect["resource"]) == sorted(
        f"qcs::as:ap-guangzhou:uin/100012345678:auto-scaling-group/{hook['scalingGroupId']}"
        for hook in hooks.values()
    )
    # CompleteLifecycleAction names a hook, not a group.
    assert complete == {"effect": "allow", "action": ["as:CompleteLifecycleAction"], "resource": ["*"]}
    # The worker reads its lifecycle state and the group's maximum (the off-hours stop notice).
    assert read == {
        "effect": "allow",
        "action": [
            "as:DescribeAutoScalingGroups",
            "as:DescribeAutoScalingInstances",
            "as:DescribeLifecycleHooks",
        ],
        "resource": ["*"],
    }
    assert policy["version"] == "2.0"
    attach = mocks.one(
        "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName", "pool-protection-attach"
    ).inputs
    assert attach == {"roleName": "role", "policyName": "pool-protection"}


def test_each_backlog_band_runs_its_share_on_each_group(run_pulumi: Runner) -> None:
    # queue_out 10 on a pool of at most 40, half spot: two groups of at most 20. The bands above 10, 20,
    # 40 and 80 waiting messages add 10, 20, 40 and 40 (the pool's maximum) instances, each group half.
    args = TencentPoolArgs(
        pool="t4",
        region="ap-guangzhou",
        instance_types=["GN7.2XLARGE32"],
        min_size=0,
        max_size=40,
        spot_percent=50,
        vpc_id="vpc-1",
        subnet_ids=["subnet-1"],
        security_group_id="sg-1",
        role_name="role",
        image_id="img-1",
        queue_name="q-t4",
        tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"},
    )
    mocks = run_pulumi(lambda: TencentPool("pool", args))
    policy_type = "tencentcloud:As/scalingPolicy:ScalingPolicy"
    for band, lower, upper, each in (
        ("queue-deep", "10", "20", 5),
        ("queue-deep-x2", "20", "40", 10),
        ("queue-deep-x4", "40", "80", 20),
        ("queue-deep-x8", "80", None, 20),
    ):
        for kind in ("spot", "ondemand"):
            policy = mocks.one(policy_type, f"pool-{kind}-scale-{band}").inputs
            assert (policy["adjustmentType"], policy["adjustmentValue"], policy["cooldown"]) == (
                "CHANGE_IN_CAPACITY",
                each,
                300,
            )
        alarm = mocks.one("tencentcloud:Monitor/alarmPolicy:AlarmPolicy", f"pool-{band}").inputs
        assert alarm["namespace"] == "cmq"
        rules = alarm["conditions"]["rules"]
        bounds = [
            (r["metricName"], r["operator"], r["value"], r["period"], r["continuePeriod"]) for r in rules
        ]
        expected = [("visibleMsgNum", "gt", lower, 300, 1)]
        if upper is not None:
            expected.append(("visibleMsgNum", "le", upper, 300, 1))
        assert bounds == expected
        # Both rules must hold (1: all) for a bounded band.
        assert alarm["conditions"]["isUnionRule"] == (1 if upper is not None else 0)
        tasks = [json.loads(t["taskConfig"]) for t in alarm["triggerTasks"]]
        assert [t["Policy"] for t in tasks] == [
            f"pool-spot-scale-{band}-id",
            f"pool-ondemand-scale-{band}-id",
        ]
        assert {t["type"] for t in alarm["triggerTasks"]} == {"AS"}
    first = mocks.one("tencentcloud:Monitor/alarmPolicy:AlarmPolicy", "pool-queue-deep").inputs
    assert first["remark"] == "scale out (+10): visibleMsgNum above 10 and at most 20 for 300s"
    # The GPU rules stay the seed's +1 and -1 on each group.
    for kind in ("spot", "ondemand"):
        assert mocks.one(policy_type, f"pool-{kind}-scale-out").inputs["adjustmentValue"] == 1
        assert mocks.one(policy_type, f"pool-{kind}-scale-in").inputs["adjustmentValue"] == -1


def test_band_rule_values_reach_cloud_monitor_written_in_full() -> None:
    """The rules' ``value`` for a large ``queue_out``: digits in full ("1600000"), never "1.6e+06"."""
    from gpufleet.components.pools.scaling import ScalingRules, compile_band_alarms
    from gpufleet.components.pools.tencentcloud_scaling import alarm_rules

    alarms = [a for a in compile_band_alarms(ScalingRules(queue_out=200_000), 500) if a.upper is not None]
    top = max((a for a in alarms if not a.suffix.startswith("gpu")), key=lambda a: a.upper or 0)
    rules = alarm_rules(top, "visibleMsgNum", 300)
    assert [(r.operator, r.value) for r in rules] == [
        ("gt", str(int(top.threshold))),
        ("le", str(int(top.upper or 0))),
    ]
    assert int(top.upper or 0) >= 1_000_000
