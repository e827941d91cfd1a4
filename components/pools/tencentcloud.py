"""A GPU pool on Tencent Cloud: AS launch configurations and scaling groups, a CMQ work queue, Cloud
Monitor alarm policies that drive scaling, and off-hours schedules.

AS in tencentcloud-iac-pulumi 0.2.3 has no spot/on-demand mix in one group: a launch configuration is
all-spot (``SPOTPAID``) or all on-demand. The spec's ``spot_percent`` (above ``on_demand_base``) is
therefore realised as two groups, ``<pool>-spot`` and ``<pool>-ondemand``, whose maximum sizes split
the pool's maximum in that share (:func:`split_groups`); a group whose share is zero is not built.
Scaling moves both groups one instance at a time, so the share holds within one instance.

AS scaling policies know CPU, memory and traffic only. GPU utilisation drives scaling through Cloud
Monitor alarm policies on ``cvm_device`` ``Gpuutil`` (the GPU utilisation the Cloud Monitor agent reports
from NVML; the launch configuration keeps the agent on) whose ``AS`` trigger tasks run the groups'
scaling policies; a third alarm on the queue's ``visibleMsgNum`` (``QCE/CMQ``, published by CMQ itself)
wakes a pool at zero. Thresholds and windows come from :func:`components.pools.scaling.compile_alarms`,
as on AWS.

Instances get no password and no key pair. A CVM created with neither gets a random password mailed to
the account's console owner, so the boot script locks every password login (``passwd -l``) and turns
off SSH password authentication; instances are operated through TAT (the automation agent stays on).
The launch configuration has no data disk and no public IP. Its system disk cannot be encrypted
through this SDK (no input exists); checkpoints and data live in the KMS-encrypted bucket.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from components.pools.aws import OffHours
from components.pools.scaling import AlarmSpec, ScalingRules, compile_alarms
from components.pools.tencent_time import region_schedule
from components.tags import check_cost_tags

GPU_NAMESPACE = "cvm_device"
GPU_METRIC = "Gpuutil"
QUEUE_NAMESPACE = "QCE/CMQ"
QUEUE_METRIC = "visibleMsgNum"
POOL_TAG = "gpufleet:pool"
SYSTEM_DISK_TYPE = "CLOUD_BSSD"
# The scheduled actions' validity: AS wants a start and (for recurring actions) an end time.
SCHEDULE_START = "2026-01-01"
SCHEDULE_END = "2036-01-01"
_OPERATORS = {"GreaterThanThreshold": "gt", "LessThanThreshold": "lt"}
_QUEUE_NAME_RE = re.compile(r"[^A-Za-z0-9_-]+")

LOCK_LOGINS = """#!/bin/bash
# gpufleet: no login credentials. CVM set a random root password: lock every password login and turn
# off SSH password authentication; operate the instance through TAT.
for user in $(awk -F: '$2 ~ /^\\$/ {print $1}' /etc/shadow); do passwd -l "$user"; done
passwd -l root
if [ -f /etc/ssh/sshd_config ]; then
  sed -i -E 's/^#?PasswordAuthentication.*/PasswordAuthentication no/' /etc/ssh/sshd_config
  systemctl disable --now sshd 2>/dev/null || true
fi
"""


@dataclass(frozen=True)
class GroupShape:
    kind: Literal["spot", "ondemand"]
    min_size: int
    max_size: int


def split_groups(min_size: int, max_size: int, spot_percent: int, on_demand_base: int) -> list[GroupShape]:
    """The all-spot and on-demand groups of a pool: on-demand holds ``on_demand_base`` and the
    on-demand share of the rest (spot rounded down, so the on-demand side is never short); the
    minimum is split the same way. Groups with a maximum of 0 are left out."""
    if not 0 <= min_size <= max_size or not 0 <= spot_percent <= 100 or not 0 <= on_demand_base <= max_size:
        raise ValueError(
            f"bad pool shape: min {min_size}, max {max_size}, spot {spot_percent}%, base {on_demand_base}"
        )
    spot_max = math.floor((max_size - on_demand_base) * spot_percent / 100)
    base_min = min(min_size, on_demand_base)
    spot_min = min(spot_max, math.floor((min_size - base_min) * spot_percent / 100))
    shapes = [
        GroupShape("spot", spot_min, spot_max),
        GroupShape("ondemand", min_size - spot_min, max_size - spot_max),
    ]
    return [s for s in shapes if s.max_size > 0]


def physical(name: str, limit: int = 60) -> str:
    """A cloud-side name within ``limit`` characters (AS and Cloud Monitor names take 60): longer
    names keep their start and a hash of the whole, so two pools never share one."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: limit - 9].rstrip('-')}-{digest}"


def _as_window(seconds: int) -> dict[str, int]:
    """An AS metric alarm's ``period`` (60 or 300 s) and ``continuous_time`` (1..10 periods) covering
    ``seconds`` as closely as AS allows."""
    period = 60 if seconds <= 600 else 300
    return {"period": period, "continuous_time": max(1, min(10, seconds // period))}


def queue_name(prefix: str, pool: str) -> str:
    """A CMQ queue name (letters, digits, '-' and '_', at most 64, starting with a letter)."""
    name = _QUEUE_NAME_RE.sub("-", f"{prefix}-{pool}").strip("-")
    return name[:64] if name[:1].isalpha() else f"q-{name}"[:64]


def _remark(alarm: AlarmSpec, metric: str) -> str:
    verb = "above" if alarm.direction == "out" else "below"
    window = alarm.period_s * alarm.evaluation_periods
    return f"scale {alarm.direction}: {metric} {verb} {alarm.threshold:g} for {window}s"[:100]


def boot_script(workload: str | None) -> str:
    """The instances' user data (base64): lock logins, then the pool's workload script if any."""
    script = LOCK_LOGINS if workload is None else f"{LOCK_LOGINS}\n# the pool's workload\n{workload}\n"
    return base64.b64encode(script.encode()).decode()


@dataclass(frozen=True, kw_only=True)
class TencentPoolArgs:
    pool: str
    region: str
    instance_types: Sequence[str]
    min_size: int
    max_size: int
    vpc_id: pulumi.Input[str]
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    security_group_id: pulumi.Input[str]
    role_name: pulumi.Input[str]
    image_id: pulumi.Input[str]
    queue_name: str
    tags: Mapping[str, str]
    spot_percent: int = 100
    on_demand_base: int = 0
    scaling: ScalingRules = field(default_factory=ScalingRules)
    off_hours: OffHours | None = None
    disk_gib: int = 200
    workload: str | None = None
    visibility_timeout_s: int = 900
    max_receives: int = 5
    provider: pulumi.ProviderResource | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.instance_types:
            problems.append("instance_types: at least one instance type is needed")
        if not 0 <= self.min_size <= self.max_size:
            problems.append(f"size: min {self.min_size} and max {self.max_size} must satisfy 0 <= min <= max")
        if not 0 <= self.on_demand_base <= self.max_size:
            problems.append(f"on_demand_base: {self.on_demand_base} must be within 0..max_size")
        problems.extend(self.scaling.problems())
        if problems:
            raise ValueError("TencentPoolArgs: " + "; ".join(problems))


class TencentPool(pulumi.ComponentResource):
    """One pool: ``tcmq.Queue``; per group an ``As.ScalingConfig``, ``As.ScalingGroup``, scale-out and
    scale-in ``As.ScalingPolicy`` and (off-hours) two ``As.Schedule``; three ``Monitor.AlarmPolicy``
    whose AS trigger tasks run the groups' policies."""

    group_ids: list[pulumi.Output[str]]
    queue_name: pulumi.Output[str]
    shapes: list[GroupShape]

    def __init__(self, name: str, args: TencentPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:pools:TencentPool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        tags = {**args.tags, POOL_TAG: args.pool}
        queue = tencentcloud.tcmq.Queue(
            f"{name}-queue",
            queue_name=args.queue_name,
            visibility_timeout=args.visibility_timeout_s,
            max_receive_count=args.max_receives,
            msg_retention_seconds=345_600,
            polling_wait_seconds=20,
            opts=child,
        )
        self.queue_name = queue.queue_name
        self.shapes = split_groups(args.min_size, args.max_size, args.spot_percent, args.on_demand_base)
        if len(self.shapes) == 2:
            pulumi.log.info(
                f"pool {args.pool}: Tencent AS has no spot/on-demand mix; {args.spot_percent}% spot is two "
                + " and ".join(f"{s.kind} group {s.min_size}..{s.max_size}" for s in self.shapes),
                resource=self,
            )
        alarms = compile_alarms(args.scaling, args.min_size)
        policies: dict[str, list[tuple[pulumi.Output[str], pulumi.Output[str]]]] = {"out": [], "in": []}
        self.group_ids = []
        for shape in self.shapes:
            group, scale = self._group(name, args, shape, tags, child)
            self.group_ids.append(group.id)
            for direction, policy in scale.items():
                policies[direction].append((group.id, policy.id))
        for alarm in alarms:
            self._alarm(
                name=name, args=args, alarm=alarm, queue=queue, targets=policies[alarm.direction], child=child
            )
        self.register_outputs({"group_ids": self.group_ids, "queue_name": self.queue_name})

    def _group(
        self,
        name: str,
        args: TencentPoolArgs,
        shape: GroupShape,
        tags: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> tuple[tencentcloud.as_.ScalingGroup, dict[str, tencentcloud.as_.ScalingPolicy]]:
        spot = shape.kind == "spot"
        prefix = f"{name}-{shape.kind}"
        config = tencentcloud.as_.ScalingConfig(
            f"{prefix}-config",
            configuration_name=physical(prefix),
            image_id=args.image_id,
            instance_types=list(args.instance_types),
            project_id=0,
            cam_role_name=args.role_name,
            security_group_ids=[args.security_group_id],
            system_disk_type=SYSTEM_DISK_TYPE,
            system_disk_size=args.disk_gib,
            instance_charge_type="SPOTPAID" if spot else "POSTPAID_BY_HOUR",
            spot_instance_type="one-time" if spot else None,
            # No cap beyond the on-demand price: Tencent charges the market price.
            spot_max_price="1000" if spot else None,
            internet_charge_type="TRAFFIC_POSTPAID_BY_HOUR",
            internet_max_bandwidth_out=0,
            public_ip_assigned=False,
            user_data=boot_script(args.workload),
            enhanced_security_service=True,
            enhanced_monitor_service=True,
            enhanced_automation_tools_service=True,
            instance_tags=dict(tags),
            tags=dict(tags),
            opts=child,
        )
        group = tencentcloud.as_.ScalingGroup(
            prefix,
            scaling_group_name=physical(prefix),
            configuration_id=config.id,
            min_size=shape.min_size,
            max_size=shape.max_size,
            vpc_id=args.vpc_id,
            subnet_ids=args.subnet_ids,
            default_cooldown=args.scaling.cooldown_s,
            multi_zone_subnet_policy="EQUALITY",
            termination_policies="NEWEST_INSTANCE",
            retry_policy="INCREMENTAL_INTERVALS",
            replace_monitor_unhealthy=True,
            tags=dict(tags),
            opts=child,
        )
        scale = {
            direction: tencentcloud.as_.ScalingPolicy(
                f"{prefix}-scale-{direction}",
                scaling_group_id=group.id,
                policy_name=physical(f"{prefix}-scale-{direction}"),
                adjustment_type="CHANGE_IN_CAPACITY",
                adjustment_value=1 if direction == "out" else -1,
                # The alarm policies decide when. AS still wants a metric alarm of its own: CPU above
                # 100% or below 0% never happens, and its window matches the spec's.
                comparison_operator="GREATER_THAN" if direction == "out" else "LESS_THAN",
                metric_name="CPU_UTILIZATION",
                threshold=100 if direction == "out" else 0,
                **_as_window(args.scaling.out_for_s if direction == "out" else args.scaling.in_for_s),
                statistic="AVERAGE",
                cooldown=args.scaling.cooldown_s,
                opts=child,
            )
            for direction in ("out", "in")
        }
        if args.off_hours is not None:
            stop, start = region_schedule(args.off_hours)
            for action, cron, size in (("stop", stop, 0), ("start", start, shape.max_size)):
                tencentcloud.as_.Schedule(
                    f"{prefix}-off-hours-{action}",
                    scaling_group_id=group.id,
                    schedule_action_name=physical(f"{prefix}-{action}"),
                    min_size=0 if action == "stop" else shape.min_size,
                    max_size=size,
                    desired_capacity=0 if action == "stop" else shape.min_size,
                    start_time=f"{SCHEDULE_START}T00:00:00+08:00",
                    end_time=f"{SCHEDULE_END}T00:00:00+08:00",
                    recurrence=cron,
                    opts=child,
                )
        return group, scale

    def _alarm(
        self,
        *,
        name: str,
        args: TencentPoolArgs,
        alarm: AlarmSpec,
        queue: tencentcloud.tcmq.Queue,
        targets: list[tuple[pulumi.Output[str], pulumi.Output[str]]],
        child: pulumi.ResourceOptions,
    ) -> None:
        gpu = alarm.namespace == "CWAgent"
        tasks = [
            tencentcloud.monitor.AlarmPolicyTriggerTaskArgs(
                type="AS",
                task_config=pulumi.Output.all(group_id, policy_id).apply(
                    lambda ids: json.dumps({"Region": args.region, "Group": ids[0], "Policy": ids[1]})
                ),
            )
            for group_id, policy_id in targets
        ]
        rule = tencentcloud.monitor.AlarmPolicyConditionsRuleArgs(
            metric_name=GPU_METRIC if gpu else QUEUE_METRIC,
            period=alarm.period_s,
            operator=_OPERATORS[alarm.comparison_operator],
            value=f"{alarm.threshold:g}",
            continue_period=alarm.evaluation_periods,
            notice_frequency=0,
            is_power_notice=0,
        )
        tencentcloud.monitor.AlarmPolicy(
            f"{name}-{alarm.suffix}",
            policy_name=physical(f"{name}-{alarm.suffix}"),
            monitor_type="MT_QCE",
            namespace=GPU_NAMESPACE if gpu else QUEUE_NAMESPACE,
            enable=1,
            project_id=0,
            remark=_remark(alarm, GPU_METRIC if gpu else QUEUE_METRIC),
            conditions=tencentcloud.monitor.AlarmPolicyConditionsArgs(is_union_rule=0, rules=[rule]),
            # GPU alarms watch the pool's instances (tagged with the pool), the queue alarm its queue.
            policy_tags=[
                tencentcloud.monitor.AlarmPolicyPolicyTagArgs(
                    key=POOL_TAG if gpu else "gpufleet:queue", value=args.pool if gpu else args.queue_name
                )
            ],
            trigger_tasks=tasks,
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[queue])),
        )
