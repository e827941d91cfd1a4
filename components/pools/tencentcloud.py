"""A GPU pool on Tencent Cloud: AS launch configurations and scaling groups, a CMQ work queue, Cloud
Monitor alarm policies that drive scaling, and off-hours schedules.

AS in tencentcloud-iac-pulumi 0.2.3 has no spot/on-demand mix in one group: a launch configuration is
all-spot (``SPOTPAID``) or all on-demand. The spec's ``spot_percent`` (above ``on_demand_base``) is
therefore realised as two groups, ``<pool>-spot`` and ``<pool>-ondemand``, whose maximum sizes split
the pool's maximum in that share (:func:`split_groups`); a group whose share is zero is not built.
Each scaling step moves both groups, each by its share of the step
(:func:`components.pools.tencentcloud_scaling.group_share`).

AS scaling policies know CPU, memory and traffic only. GPU utilisation drives scaling through Cloud
Monitor alarm policies on ``cvm_device`` ``Gpuutil`` (the GPU utilisation the Cloud Monitor agent
reports from NVML; the launch configuration keeps the agent on), bound to the pool's instances by the
pool tag, whose ``AS`` trigger tasks run the groups' scaling policies; the backlog bands' alarms, of
policy type ``cmq`` on the queue's ``visibleMsgNum`` (published by CMQ itself), are bound to the queue
as an object (a queue carries no tags to bind by), each running its band's policies
(:mod:`components.pools.tencentcloud_scaling`). Thresholds and windows come from
:func:`components.pools.scaling.compile_band_alarms`, as on AWS; a raised alarm runs its task again
after the pool's cooldown while it stays raised. An alarm policy judges each bound instance on its own
(not the pool's average): one busy instance raises ``-gpu-high``, one idle instance ``-gpu-low``;
instances holding a job are protected, so scale-in takes an idle one, and the scaling policies' cooldown
keeps the groups to one step per cooldown however many instances alarm. The boot script installs the
NVIDIA driver (:func:`gpu_driver_install`): without it there is no ``Gpuutil``.

Spot instances bid at most the on-demand price of the pool's dearest type in the catalogue
(:func:`spot_price_cap`), in the account's currency. Off-hours schedules start the day after the
program runs (:func:`schedule_start`): AS refuses a start time in the past.

Scale-in never ends a running job: each group's ``-drain`` lifecycle hook (``INSTANCE_TERMINATING``,
:data:`gpufleet.components.pools.lifecycle.DRAIN_HEARTBEAT_S`, then ``CONTINUE``) holds a terminating instance
while its worker checkpoints, and the ``-protection`` CAM policy on the pool's role lets the worker
protect instances of the pool's own groups while it holds a job (``as:SetInstancesProtection`` on
``qcs::as:<region>:uin/<uin>:auto-scaling-group/<id>``; ``as:CompleteLifecycleAction`` names a hook,
not a group, so it is granted on ``*``).

Instances get no password and no key pair. A CVM created with neither gets a random password mailed to
the account's console owner, so the boot script locks every password login (``passwd -l``) and turns
off SSH password authentication; instances are operated through TAT (the automation agent stays on).
The launch configuration has no data disk and no public IP. Its system disk cannot be encrypted
through this SDK (no input exists); checkpoints and data live in the KMS-encrypted bucket.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.catalog import Catalog, load_catalog
from gpufleet.components.cost.tencentcloud import CURRENCY
from gpufleet.components.pools.lifecycle import DRAIN_DEFAULT_RESULT, DRAIN_HEARTBEAT_S, DRAIN_HOOK_NAME
from gpufleet.components.pools.off_hours import OffHours
from gpufleet.components.pools.scaling import AlarmSpec, ScalingRules, compile_band_alarms
from gpufleet.components.pools.tencent_time import REGION_OFFSET_MIN, region_schedule
from gpufleet.components.pools.tencentcloud_scaling import (
    ALL_RULES,
    ANY_RULE,
    AS_ADJUSTMENT_TYPE,
    AS_NEVER_METRIC,
    AS_NEVER_THRESHOLD,
    alarm_rules,
    as_window,
    group_share,
    percent_threshold,
    remark,
)
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES
from gpufleet.components.tags import check_cost_tags, image_arch_tags

# Alarm policy ``namespace`` (tencentcloud_iac_pulumi/monitor/alarm_policy.py: "The type of alarm") is a
# policy type id, as DescribeAllNamespaces lists them (QceNamespacesNew.N.Id, e.g. ``cvm_device``), not
# a metric namespace such as ``QCE/CMQ``. ``cmq`` is CMQ queues' policy type; Tencent's policy type list
# was not reachable to confirm it, so a refused ``cmq`` would show on the first up, not silently.
# As/lifecycle_hook.py: transitions INSTANCE_LAUNCHING, INSTANCE_TERMINATING; results CONTINUE,
# ABANDON; heartbeat 30..7200 s.
AS_HOOK_TRANSITIONS = ("INSTANCE_LAUNCHING", "INSTANCE_TERMINATING")
AS_HOOK_RESULTS = ("CONTINUE", "ABANDON")
AS_HOOK_HEARTBEAT_S = (30, 7200)
AS_PROTECT_ACTIONS = ("as:SetInstancesProtection",)
AS_LIFECYCLE_ACTIONS = ("as:CompleteLifecycleAction",)
# What the worker reads (gpufleet.worker.tencentcloud): its lifecycle state, the group's maximum (the
# off-hours stop notice) and its hook's id (it is told the hook's name); read actions, on all resources.
AS_READ_ACTIONS = (
    "as:DescribeAutoScalingGroups",
    "as:DescribeAutoScalingInstances",
    "as:DescribeLifecycleHooks",
)
GPU_NAMESPACE = "cvm_device"
QUEUE_NAMESPACE = "cmq"
POLICY_NAMESPACES = frozenset({GPU_NAMESPACE, QUEUE_NAMESPACE})
# The GPU utilisation metric, as Cloud Monitor publishes it for CVM (the agent's NVML reading,
# nvmlDeviceGetUtilizationRates): ``Gpuutil``. Sources: the metric list Cloud Monitor's API returns for
# QCE/CVM (DescribeBaseMetrics, as the provider's ``monitor.get_alarm_basic_metric`` lists it: ``Gpuutil``,
# ``Gputemp``, ``Gpupowusage``, ``Gpumemusage``..., dimensions minorNumber and unInstanceId, that is per
# GPU of an instance) and Tencent's "CVM monitoring metrics" page (tencentyun/intlcloud-documents,
# yehe_doc/管理工具/云监控/云产品指标/云服务器监控指标_intl_en.md and _intl_zh.md: ``Gpuutil``). Later
# versions of that page print ``Gpuutil``, the casing of the console's chart; the API's list, which alarm
# rules name metrics from, keeps ``Gpuutil``, as it keeps ``CpuUsage`` where the page prints CPUUsage.
GPU_METRIC = "Gpuutil"
QUEUE_METRIC = "visibleMsgNum"
POOL_TAG = "gpufleet:pool"
# As.ScalingConfig ``system_disk_type`` (tencentcloud_iac_pulumi/as_/scaling_config.py): "Valid values:
# `CLOUD_PREMIUM` and `CLOUD_SSD`"; the provider checks it against its allow list (those two, the
# deprecated CLOUD_BASIC and the local disks) before the API sees it, so the AS API's CLOUD_BSSD is
# refused at preview. CLOUD_SSD: the SSD class of the two.
SYSTEM_DISK_TYPES = frozenset({"CLOUD_PREMIUM", "CLOUD_SSD"})
SYSTEM_DISK_TYPE = "CLOUD_SSD"
# As.Schedule ``start_time``/``end_time`` (tencentcloud_iac_pulumi/as_/schedule.py): "in
# "YYYY-MM-DDThh:mm:ss+08:00" format (UTC+8)"; AS refuses a start in the past, so the start is the next
# midnight at UTC+8 after the program runs (:func:`schedule_start`), and the end a fixed far date.
SCHEDULE_TZ = datetime.timezone(datetime.timedelta(minutes=REGION_OFFSET_MIN))
SCHEDULE_FORMAT = "%Y-%m-%dT%H:%M:%S+08:00"
SCHEDULE_END = "2036-01-01T00:00:00+08:00"
# tcmq.Queue ``msg_retention_seconds`` (tencentcloud_iac_pulumi/tcmq/queue.py): "Value range: 30-43,200
# seconds (30 seconds to 12 hours)".
QUEUE_RETENTION_RANGE_S = (30, 43_200)
# The queue keeps messages for its longest, 12 h: the four days the other clouds keep (SQS, MNS) is more
# than a CMQ queue can hold.
QUEUE_RETENTION_S = 43_200
_QUEUE_NAME_RE = re.compile(r"[^A-Za-z0-9_-]+")

LOCK_LOGINS = """#!/bin/bash
log() { echo "gpufleet-boot: $*" >&2; }
# gpufleet: no login credentials. CVM set a random root password: lock every password login and turn
# off SSH password authentication; operate the instance through TAT.
for user in $(awk -F: '$2 ~ /^\\$/ {print $1}' /etc/shadow); do passwd -l "$user"; done
passwd -l root
if [ -f /etc/ssh/sshd_config ]; then
  sed -i -E 's/^#?PasswordAuthentication.*/PasswordAuthentication no/' /etc/ssh/sshd_config
  systemctl disable --now sshd 2>/dev/null || true
fi
"""

# The public TencentOS image has no NVIDIA driver: no CUDA for the workload, no NVML for the Cloud
# Monitor agent, so no ``Gpuutil`` and the GPU alarms never fire. Tencent's "install the GPU driver
# automatically" path (the console's 后台自动安装GPU驱动; for API-created instances, user data that writes
# the wanted versions to /tmp/user_define_install_info.ini and runs
# https://mirrors.tencentyun.com/install/GPU/auto_install.sh: https://cloud.tencent.com/document/product/560/112129)
# runs at first boot from Tencent's internal mirror, which the HTTPS egress rule reaches without a route
# out. The versions are the ones that page's example installs; the driver list per type and image is
# "各实例支持的 GPU 驱动版本及安装方式" (https://cloud.tencent.com/document/product/560/76423#supportList).
# It runs before the workload (``docker run --gpus all`` needs the driver) and is skipped when
# ``nvidia-smi`` already answers (an image with the driver).
GPU_DRIVER_SCRIPT_URL = "https://mirrors.tencentyun.com/install/GPU/auto_install.sh"
GPU_DRIVER_INI = "/tmp/user_define_install_info.ini"
GPU_DRIVER_VERSION = "535.161.07"
CUDA_VERSION = "12.4.0"
CUDNN_VERSION = "8.9.7"
GPU_DRIVER_LOG = "/var/log/gpufleet-gpu-driver.log"


def gpu_driver_install() -> str:
    """The boot script's driver step: Tencent's auto-install script with pinned versions, unless the
    image has a driver. A failed install is logged and the boot goes on."""
    return (
        "# gpufleet: the NVIDIA driver, CUDA and cuDNN (Tencent's GPU driver auto-install)\n"
        "if ! nvidia-smi >/dev/null 2>&1; then\n"
        f"  cat > {GPU_DRIVER_INI} <<'EOF'\n"
        f"DRIVER_VERSION={GPU_DRIVER_VERSION}\n"
        f"CUDA_VERSION={CUDA_VERSION}\n"
        f"CUDNN_VERSION={CUDNN_VERSION}\n"
        "DRIVER_URL=\n"
        "CUDA_URL=\n"
        "CUDNN_URL=\n"
        "EOF\n"
        f"  curl -fsS --retry 3 -o /tmp/auto_install.sh {GPU_DRIVER_SCRIPT_URL} \\\n"
        f"    && bash /tmp/auto_install.sh >{GPU_DRIVER_LOG} 2>&1 \\\n"
        '    || echo "gpufleet: no NVIDIA driver: no CUDA, no Gpuutil; the GPU alarms stay silent" >&2\n'
        "fi\n"
    )


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


def schedule_start(now: datetime.datetime) -> str:
    """An off-hours schedule's start time: the next midnight at UTC+8 (the time AS reads) after ``now``,
    in AS's format. Always in the future; the recurrence, not the start, decides when actions run."""
    if now.tzinfo is None:
        raise ValueError("schedule_start: 'now' must carry its time zone")
    local = now.astimezone(SCHEDULE_TZ)
    start = datetime.datetime.combine(local.date() + datetime.timedelta(days=1), datetime.time(), SCHEDULE_TZ)
    return start.strftime(SCHEDULE_FORMAT)


def queue_retention(seconds: int = QUEUE_RETENTION_S) -> int:
    low, high = QUEUE_RETENTION_RANGE_S
    if not low <= seconds <= high:
        raise ValueError(f"msg_retention_seconds: {seconds} is outside CMQ's {low}..{high}")
    return seconds


def spot_price_cap(
    instance_types: Sequence[str], region: str, currency: str = CURRENCY, catalog: Catalog | None = None
) -> str:
    """``spot_max_price`` for a launch configuration of ``instance_types``: the on-demand price of the
    dearest of them in ``region`` (the catalogue's, converted to the account's ``currency``), rounded
    up to the cent. A spot bid above on-demand buys nothing on-demand would not; AS wants a decimal
    string ("0.50")."""
    catalog = catalog or load_catalog()
    prices = []
    for name in instance_types:
        price = catalog.get("tencentcloud", name).hourly(region)
        prices.append(catalog.convert(price.amount, price.currency, currency))
    if not prices:
        raise ValueError("spot_price_cap: no instance types")
    cap = math.ceil(round(max(prices) * 100, 6)) / 100
    return f"{cap:.2f}"


def queue_name(prefix: str, pool: str) -> str:
    """A CMQ queue name (letters, digits, '-' and '_', at most 64, starting with a letter)."""
    name = _QUEUE_NAME_RE.sub("-", f"{prefix}-{pool}").strip("-")
    return name[:64] if name[:1].isalpha() else f"q-{name}"[:64]


def boot_script(workload: str | None) -> str:
    """The instances' user data (base64): lock logins, install the GPU driver, then the pool's workload
    script if any."""
    script = f"{LOCK_LOGINS}{gpu_driver_install()}"
    if workload is not None:
        script = f"{script}\n# the pool's workload\n{workload}\n"
    return base64.b64encode(script.encode()).decode()


def boot_script_problem(workload: str | None) -> str | None:
    """Why CVM would refuse the boot script holding ``workload``: ``UserData`` is base64 and at most
    16 KB (RunInstances, CreateLaunchConfiguration), and base64 makes a script a third longer."""
    size = len(boot_script(workload))
    if size <= MAX_USER_DATA_BYTES:
        return None
    return (
        f"the boot script would be {size} bytes base64-encoded; CVM takes at most {MAX_USER_DATA_BYTES} "
        "(UserData, 16 KB): shorten the workload's user_data, command or env (keep large settings in COS)"
    )


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
    # The spec's image.arch or what its id names (the default TencentOS lookup names none): tagged
    # gpufleet:image-arch on the launch configuration for GF-FIT-003.
    image_arch: str | None = None
    spot_percent: int = 100
    on_demand_base: int = 0
    scaling: ScalingRules = field(default_factory=ScalingRules)
    off_hours: OffHours | None = None
    disk_gib: int = 200
    workload: str | None = None
    # A pool whose nodes join the on-prem cluster (pools/tencentcloud_join.py): its boot script, and no
    # scaling policy or alarm (cluster-autoscaler alone sizes its groups).
    join_user_data: str | None = None
    visibility_timeout_s: int = 900
    max_receives: int = 5
    provider: pulumi.ProviderResource | None = None
    # The account's UIN: the -protection CAM policy names the pool's groups by it (None: no policy).
    uin: pulumi.Input[str] | None = None
    # When the program runs (a zone-aware time): off-hours schedules start after it. None: now.
    now: datetime.datetime | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.instance_types:
            problems.append("instance_types: at least one instance type is needed")
        if not 0 <= self.min_size <= self.max_size:
            problems.append(f"size: min {self.min_size} and max {self.max_size} must satisfy 0 <= min <= max")
        if not 0 <= self.on_demand_base <= self.max_size:
            problems.append(f"on_demand_base: {self.on_demand_base} must be within 0..max_size")
        problems.extend(self.scaling.problems())
        if self.join_user_data is None:
            problem = boot_script_problem(self.workload)
            if problem:
                problems.append(f"workload: {problem}")
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
            # CMQ keeps a message 12 h at most (30..43200 s); SQS's four days do not fit.
            msg_retention_seconds=queue_retention(),
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
        alarms = compile_band_alarms(args.scaling, args.max_size)
        policies: dict[str, list[tuple[pulumi.Output[str], pulumi.Output[str]]]] = {}
        self.group_ids = []
        for shape in self.shapes:
            group = self._group(name, args, shape, tags, child)
            self.group_ids.append(group.id)
            for alarm in alarms if args.join_user_data is None else ():
                policy = self._policy(
                    f"{name}-{shape.kind}", args, shape=shape, group=group, alarm=alarm, child=child
                )
                policies.setdefault(alarm.suffix, []).append((group.id, policy.id))
        for alarm in alarms if args.join_user_data is None else ():
            self._alarm(
                name=name, args=args, alarm=alarm, queue=queue, targets=policies[alarm.suffix], child=child
            )
        if args.uin is not None:
            self._protection(name, args, args.uin, child)
        self.register_outputs({"group_ids": self.group_ids, "queue_name": self.queue_name})

    def _group(
        self,
        name: str,
        args: TencentPoolArgs,
        shape: GroupShape,
        tags: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> tencentcloud.as_.ScalingGroup:
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
            # Tencent charges the market price; the bid only caps it, at the on-demand price.
            spot_max_price=spot_price_cap(args.instance_types, args.region) if spot else None,
            internet_charge_type="TRAFFIC_POSTPAID_BY_HOUR",
            internet_max_bandwidth_out=0,
            public_ip_assigned=False,
            user_data=args.join_user_data or boot_script(args.workload),
            enhanced_security_service=True,
            enhanced_monitor_service=True,
            enhanced_automation_tools_service=True,
            instance_tags=dict(tags),
            tags={**tags, **image_arch_tags(args.image_arch)},
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
        tencentcloud.as_.LifecycleHook(
            f"{prefix}-drain",
            lifecycle_hook_name=DRAIN_HOOK_NAME,
            scaling_group_id=group.id,
            lifecycle_transition="INSTANCE_TERMINATING",
            heartbeat_timeout=DRAIN_HEARTBEAT_S,
            default_result=DRAIN_DEFAULT_RESULT,
            opts=child,
        )
        if args.off_hours is not None:
            stop, start = region_schedule(args.off_hours)
            start_time = schedule_start(args.now or datetime.datetime.now(datetime.UTC))
            for action, cron, size in (("stop", stop, 0), ("start", start, shape.max_size)):
                tencentcloud.as_.Schedule(
                    f"{prefix}-off-hours-{action}",
                    scaling_group_id=group.id,
                    schedule_action_name=physical(f"{prefix}-{action}"),
                    min_size=0 if action == "stop" else shape.min_size,
                    max_size=size,
                    desired_capacity=0 if action == "stop" else shape.min_size,
                    start_time=start_time,
                    end_time=SCHEDULE_END,
                    recurrence=cron,
                    opts=child,
                )
        return group

    def _policy(
        self,
        prefix: str,
        args: TencentPoolArgs,
        *,
        shape: GroupShape,
        group: tencentcloud.as_.ScalingGroup,
        alarm: AlarmSpec,
        child: pulumi.ResourceOptions,
    ) -> tencentcloud.as_.ScalingPolicy:
        """The group's policy an alarm runs: ``-scale-out`` (+1, GPU high), ``-scale-in`` (-1, GPU low)
        or ``-scale-<band>`` (the group's share of the band's instances)."""
        key = {"gpu-high": "out", "gpu-low": "in"}.get(alarm.suffix, alarm.suffix)
        direction = alarm.direction
        return tencentcloud.as_.ScalingPolicy(
            f"{prefix}-scale-{key}",
            scaling_group_id=group.id,
            policy_name=physical(f"{prefix}-scale-{key}"),
            adjustment_type=AS_ADJUSTMENT_TYPE,
            adjustment_value=group_share(alarm.adjustment, shape.max_size, args.max_size),
            # The alarm policies decide when. AS still wants a metric alarm of its own, with a
            # threshold in 1..100: a utilisation above 100% never happens (CPU below 1% does, on an
            # idle GPU instance, so the scale-in placeholder must not use it); its window matches
            # the spec's.
            comparison_operator="GREATER_THAN",
            metric_name=AS_NEVER_METRIC[direction],
            threshold=percent_threshold(AS_NEVER_THRESHOLD),
            **as_window(args.scaling.out_for_s if direction == "out" else args.scaling.in_for_s),
            statistic="AVERAGE",
            cooldown=args.scaling.cooldown_s,
            opts=child,
        )

    def _protection(
        self, name: str, args: TencentPoolArgs, uin: pulumi.Input[str], child: pulumi.ResourceOptions
    ) -> None:
        policy = tencentcloud.cam.Policy(
            f"{name}-protection",
            name=physical(f"{name}-protection"),
            document=pulumi.Output.all(uin, *self.group_ids).apply(
                lambda values: protection_document(args.region, str(values[0]), [str(v) for v in values[1:]])
            ),
            description=f"gpufleet pool {args.pool}: protect its own instances, answer its drain hooks",
            opts=child,
        )
        tencentcloud.cam.RolePolicyAttachmentByName(
            f"{name}-protection-attach", role_name=args.role_name, policy_name=policy.name, opts=child
        )

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
        rules = alarm_rules(alarm, GPU_METRIC if gpu else QUEUE_METRIC, args.scaling.cooldown_s)
        namespace = GPU_NAMESPACE if gpu else QUEUE_NAMESPACE
        if namespace not in POLICY_NAMESPACES:
            raise ValueError(f"alarm policy namespace {namespace!r} is not a policy type id")
        policy = tencentcloud.monitor.AlarmPolicy(
            f"{name}-{alarm.suffix}",
            policy_name=physical(f"{name}-{alarm.suffix}"),
            monitor_type="MT_QCE",
            namespace=namespace,
            enable=1,
            project_id=0,
            remark=remark(alarm, GPU_METRIC if gpu else QUEUE_METRIC),
            conditions=tencentcloud.monitor.AlarmPolicyConditionsArgs(
                is_union_rule=ALL_RULES if len(rules) > 1 else ANY_RULE, rules=rules
            ),
            # GPU alarms watch the pool's instances, which carry the pool tag.
            policy_tags=[tencentcloud.monitor.AlarmPolicyPolicyTagArgs(key=POOL_TAG, value=args.pool)]
            if gpu
            else None,
            trigger_tasks=tasks,
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[queue])),
        )
        if gpu:
            return
        # The queue alarm watches the queue itself: a CMQ queue takes no tags, so it is bound as an
        # object, by the dimensions CMQ publishes its metrics under (queueId, queueName).
        tencentcloud.monitor.PolicyBindingObject(
            f"{name}-{alarm.suffix}-queue",
            policy_id=policy.id,
            dimensions=[
                tencentcloud.monitor.PolicyBindingObjectDimensionArgs(
                    dimensions_json=pulumi.Output.all(queue.id, queue.queue_name).apply(
                        lambda ids: json.dumps({"queueId": ids[0], "queueName": ids[1]}, sort_keys=True)
                    ),
                    region=args.region,
                )
            ],
            opts=child,
        )


def protection_document(region: str, uin: str, group_ids: Sequence[str]) -> str:
    """The CAM policy a pool's worker needs to keep its job through a scale-in."""
    groups = [f"qcs::as:{region}:uin/{uin}:auto-scaling-group/{group}" for group in group_ids]
    statements = [
        {"effect": "allow", "action": list(AS_PROTECT_ACTIONS), "resource": groups},
        {"effect": "allow", "action": list(AS_LIFECYCLE_ACTIONS), "resource": ["*"]},
        {"effect": "allow", "action": list(AS_READ_ACTIONS), "resource": ["*"]},
    ]
    return json.dumps({"version": "2.0", "statement": statements}, sort_keys=True)
