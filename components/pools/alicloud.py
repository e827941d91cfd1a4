"""A GPU pool on Alibaba Cloud: an ESS scaling group launching from an ECS launch template.

The launch template, not a scaling configuration, is what can require hardened metadata access
(``http_tokens: required``). It sets no key pair and no password (nor ``password_inherit``), no
public IP, an encrypted ESSD system disk under the site's key, and the pool's RAM role. The group's
``COST_OPTIMIZED`` multi-zone policy takes the spot share: ``on_demand_base_capacity`` instances on
demand, then ``100 - spot_percent`` % of the rest, every instance type of the pool as an override.

Scaling (:mod:`components.pools.alicloud_scaling`) is compiled from the same spec rules as AWS: GPU
utilisation above/below a threshold, through ESS alarm tasks on CloudMonitor's ``GpuUtilizationAgent``
(read by the CloudMonitor agent, which the boot script installs), and the pool's MNS queue backlog in
bands, each a CloudMonitor alarm rule (``acs_mns_new`` ``NumberOfMessagesVisible``) that runs a simple
rule adding the band's lower bound in instances. Off-hours are ESS scheduled tasks, whose cron
recurrences run in UTC: see :func:`off_hours_utc`.

Scale-in never ends a running job: the worker protects its instance while it holds a job
(``ess:SetInstancesProtection`` on this group only, the ``-protection`` RAM policy attached to the
pool's role), and every scale-in waits on the ``-drain`` lifecycle hook (``SCALE_IN``,
:data:`components.pools.lifecycle.DRAIN_HEARTBEAT_S`, then ``CONTINUE``) while the worker checkpoints.
ESS authorizes ``CompleteLifecycleAction`` and ``RecordLifecycleActionHeartbeat`` on all resources
only (its RAM table lists no resource type for them), so those two are granted on ``*``.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import re
import zoneinfo
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.pools.alicloud_scaling import build_scaling
from gpufleet.components.pools.burst_custom import CustomGate
from gpufleet.components.pools.lifecycle import DRAIN_DEFAULT_RESULT, DRAIN_HEARTBEAT_S, DRAIN_HOOK_NAME
from gpufleet.components.pools.scaling import ScalingRules
from gpufleet.components.pools.userdata import WorkloadContext, render_workload
from gpufleet.components.pools.workload import MAX_USER_DATA_BYTES
from gpufleet.components.tags import check_cost_tags, image_arch_tags

AGENT_DIR = "/usr/local/cloudmonitor"
AGENT_VERSION = "3.5.12"
TASK_DAYS = 360  # ESS repeats a scheduled task for at most a year after it is created
# ess/lifecycle_hook.py: "Supported value: SCALE_OUT, SCALE_IN"; default results CONTINUE, ABANDON,
# ROLLBACK (default CONTINUE).
ESS_HOOK_TRANSITIONS = ("SCALE_OUT", "SCALE_IN")
ESS_HOOK_RESULTS = ("CONTINUE", "ABANDON", "ROLLBACK")
# RAM: ess:SetInstancesProtection takes the scaling group
# (acs:ess:{regionId}:{accountId}:scalinggroup/{ScalingGroupId}); the lifecycle actions take none.
ESS_PROTECT_ACTIONS = ("ess:SetInstancesProtection",)
ESS_LIFECYCLE_ACTIONS = ("ess:CompleteLifecycleAction", "ess:RecordLifecycleActionHeartbeat")
# What the worker reads (gpufleet.worker.alicloud): its lifecycle state, the group's maximum (the
# off-hours stop notice), its hook's id (it is told the hook's name) and the hook's pending
# action. List/read actions, granted on all resources as
# ESS's RAM table (help/en/auto-scaling/developer-reference/api-ess-2022-02-22-ram) lists them.
ESS_READ_ACTIONS = (
    "ess:DescribeLifecycleActions",
    "ess:DescribeLifecycleHooks",
    "ess:DescribeScalingActivities",
    "ess:DescribeScalingGroups",
    "ess:DescribeScalingInstances",
)
# The scaling group's desired capacity: none, ESS scales between min and max. Scheduled tasks may set
# one only when the group has one.
GROUP_DESIRED_CAPACITY: int | None = None
# Hardened-mode metadata tokens reach this many network hops (the provider takes 1-64). Two, as AWS's
# pools take under GF-ACC-004 (whose rule judges AWS launch templates only).
METADATA_HOP_LIMIT = 2

# ess.ScheduledTask ``scheduled_task_name`` (pulumi_alicloud/ess/scheduled_task.py): "must be 2-40
# characters (English or Chinese) long"; the ESS API (CreateScheduledTask) adds: letters, digits,
# Chinese characters, '_', '-' and '.', starting with a letter, digit or Chinese character.
TASK_NAME_MAX = 40
TASK_NAME_RE = re.compile(r"[A-Za-z0-9\u4e00-\u9fa5][A-Za-z0-9\u4e00-\u9fa5_.-]{1,39}")


def task_name(base: str, suffix: str) -> str:
    """An ESS scheduled task name ``<base>-<suffix>`` within 40 characters: a longer one keeps the start
    of ``base``, a short hash of the whole name (two pools never share one) and ``suffix``."""
    name = f"{base}-{suffix}"
    if len(name) > TASK_NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:6]
        head = base[: TASK_NAME_MAX - len(suffix) - len(digest) - 2].rstrip("-_.")
        name = f"{head}-{digest}-{suffix}"
    if not TASK_NAME_RE.fullmatch(name):
        raise ValueError(
            f"scheduled task name {name!r}: ESS takes 2-{TASK_NAME_MAX} letters, digits, Chinese characters, "
            "'_', '-' or '.', starting with a letter, digit or Chinese character"
        )
    return name


def compensate_with_on_demand(spot_percent: int) -> bool | None:
    """Whether ESS may launch pay-as-you-go instances when spot capacity is short (ess/scaling_group.py
    ``compensate_with_on_demand``: "automatically create pay-as-you-go instances ... when the expected
    capacity of preemptible instances cannot be provided"). Not for an all-spot pool: its cost estimate
    and GF-COST spot share price every instance at spot, and a compensating A10 would bill the on-demand
    price (about three times spot) unseen; such a pool waits for spot instead (``spot_instance_remedy``
    still replaces reclaimed ones). A mixed pool already prices an on-demand share and keeps it on for
    capacity. None without spot (no COST_OPTIMIZED policy to take it)."""
    if spot_percent <= 0:
        return None
    return spot_percent < 100


# ------------------------------------------------------------------------------------- off-hours
@dataclass(frozen=True, kw_only=True)
class UtcOffHours:
    """Off-hours as ESS runs them: two UTC crons, and the zone's offsets (minutes) they allow for."""

    stop_cron: str
    start_cron: str
    offsets_min: tuple[int, ...]


def _shift_days(days: str, shift: int) -> str:
    """Weekdays "1-5" (or every day, "*") moved by ``shift`` days (-1, 0 or 1: offsets are within 14 h)."""
    if days == "*" or shift == 0:
        return days
    return f"{1 + shift}-{5 + shift}"


def _utc(hour: int, minute: int, offset_min: int) -> tuple[int, int, int]:
    total = hour * 60 + minute - offset_min
    return total // 1440, (total % 1440) // 60, total % 60


def zone_offsets(timezone: str, year: int) -> tuple[int, ...]:
    """The UTC offsets, in minutes, ``timezone`` uses during ``year`` (two where it has daylight saving)."""
    zone = zoneinfo.ZoneInfo(timezone)
    start = datetime.datetime(year, 1, 1, 12, tzinfo=zone)
    found = set()
    for day in range(0, 366, 7):
        offset = (start + datetime.timedelta(days=day)).utcoffset()
        if offset is not None:
            found.add(int(offset.total_seconds() // 60))
    return tuple(sorted(found))


def off_hours_utc(
    timezone: str, stop: tuple[int, int], start: tuple[int, int], weekdays_only: bool, year: int
) -> UtcOffHours:
    """The pool stops at ``stop`` and starts at ``start`` (local hour, minute) in ``timezone``, as
    UTC crons. With daylight saving a local time is two UTC times a year; the pool must have capacity
    through the whole local working window in both seasons, so it starts at the earlier UTC time
    (the summer one) and stops at the later (the winter one): up to an hour more a day, never less.
    A start moved across midnight moves its weekdays with it (08:00 Mon-Fri in Asia/Shanghai is
    00:00 UTC Mon-Fri; 07:00 is 23:00 UTC Sun-Thu)."""
    offsets = zone_offsets(timezone, year)
    _, stop_h, stop_m = _utc(*stop, min(offsets))
    shift, start_h, start_m = _utc(*start, max(offsets))
    days = _shift_days("1-5" if weekdays_only else "*", shift)
    return UtcOffHours(
        stop_cron=f"{stop_m} {stop_h} * * *",
        start_cron=f"{start_m} {start_h} * * {days}",
        offsets_min=offsets,
    )


@dataclass(frozen=True, kw_only=True)
class AlicloudOffHours:
    """The spec's off-hours: local times in ``timezone``; ``weekends`` keeps Saturday and Sunday off."""

    timezone: str
    stop: tuple[int, int]
    start: tuple[int, int]
    weekends: bool = True


# ------------------------------------------------------------------------------------- user data
# The public Alibaba Cloud Linux 3 image has no NVIDIA driver: no CUDA for the workload, no NVML for the
# CloudMonitor agent's GpuUtilizationAgent. The boot script runs Alibaba's GPU auto-install script (the
# one the console's "install GPU driver automatically" option runs), from the region's internal mirror
# named by the metadata server's ``source-address`` (no route out needed), with the driver, CUDA and
# cuDNN versions as arguments and RDMA/eRDMA off, as Alibaba's own Compute Nest GPU template does
# (https://github.com/aliyun-computenest/quickstart-LobeChat/blob/main/lobe-chat-gpu/init_gpu.sh).
# The launch template requires hardened metadata access, so the script first takes a metadata token
# (PUT /latest/api/token with ``X-aliyun-ecs-metadata-token-ttl-seconds``, then the
# ``X-aliyun-ecs-metadata-token`` header: https://www.alibabacloud.com/help/en/ecs/user-guide/obtain-a-temporary-authorization-token).
METADATA_URL = "http://100.100.100.200"
GPU_DRIVER_SCRIPT = "auto_install_v4.0.sh"
GPU_DRIVER_VERSION = "550.127.08"
CUDA_VERSION = "12.4.1"
CUDNN_VERSION = "9.2.0.82"
GPU_DRIVER_DIR = "/root/auto_install"


def gpu_driver_install() -> str:
    """Install the NVIDIA driver, CUDA and cuDNN at first boot unless the image has them
    (``nvidia-smi`` answers); must run before the CloudMonitor agent, which reads the GPUs through NVML."""
    versions = f"{GPU_DRIVER_VERSION} {CUDA_VERSION} {CUDNN_VERSION}"
    return (
        "if ! nvidia-smi >/dev/null 2>&1; then\n"
        f"  md={METADATA_URL}\n"
        "  h=X-aliyun-ecs-metadata-token\n"
        '  token=$(curl -fsS -X PUT "$md/latest/api/token" -H "$h-ttl-seconds: 300")\n'
        '  mirror=$(curl -fsS -H "$h: $token" "$md/latest/meta-data/source-address" | head -1)\n'
        f"  mkdir -p {GPU_DRIVER_DIR} && cd {GPU_DRIVER_DIR}\n"
        f"  curl -fsS --retry 3 -o {GPU_DRIVER_SCRIPT} "
        f'"$mirror/opsx/ecs/linux/binary/script/{GPU_DRIVER_SCRIPT}" \\\n'
        f"    && bash {GPU_DRIVER_SCRIPT} {versions} FALSE FALSE \\\n"
        '    || log "no NVIDIA driver: no CUDA, no GpuUtilizationAgent; the GPU alarms stay silent"\n'
        "  cd /\n"
        "fi\n"
    )


def agent_install(region: str) -> str:
    """Install the CloudMonitor agent from the region's internal OSS endpoint (no route out needed)
    unless the image ships it: the GPU alarms read ``GpuUtilizationAgent``, which only it reports."""
    url = f"https://cms-agent-{region}.oss-{region}-internal.aliyuncs.com/Argus/agent_install_ecs-1.7.sh"
    return (
        f"if [ ! -x {AGENT_DIR}/bin/argusagent ]; then\n"
        f'  ARGUS_VERSION={AGENT_VERSION} REGION_ID={region} bash -c "$(curl -fsS --retry 3 {url})" \\\n'
        '    || log "no CloudMonitor agent: no GpuUtilizationAgent, the GPU alarms stay silent"\n'
        "fi\n"
    )


def render_user_data(region: str, workload: WorkloadContext | None = None) -> str:
    return (
        "#!/bin/bash\n"
        "# No set -e: a step that fails is logged and the boot goes on.\n"
        "set -uo pipefail\n"
        'log() { echo "gpufleet-boot: $*" >&2; }\n'
        + gpu_driver_install()
        + agent_install(region)
        + (render_workload(workload, "alicloud") if workload is not None else "")
    )


def encoded_user_data(region: str, workload: WorkloadContext | None = None) -> str:
    script = render_user_data(region, workload).encode()
    if len(script) > MAX_USER_DATA_BYTES:
        raise ValueError(
            f"the boot script is {len(script)} bytes; ECS takes at most {MAX_USER_DATA_BYTES}: shorten the "
            "workload's user_data or container env"
        )
    return base64.b64encode(script).decode()


@dataclass(frozen=True, kw_only=True)
class AlicloudPoolArgs:
    pool: str
    name_prefix: str
    region: str
    instance_types: Sequence[str]
    min_size: int
    max_size: int
    vswitch_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    security_group_id: pulumi.Input[str]
    role_name: pulumi.Input[str]
    key_id: pulumi.Input[str]
    image_id: pulumi.Input[str]
    queue_name: str
    tags: Mapping[str, str]
    # The image's architecture when known (the default image's, or the spec's image.arch or what its id
    # names): tagged gpufleet:image-arch on the launch template for GF-FIT-003.
    image_arch: str | None = None
    spot_percent: int = 0
    on_demand_base: int = 0
    disk_gib: int = 200
    rules: ScalingRules = field(default_factory=ScalingRules)
    queue_visibility_s: int = 900
    off_hours: AlicloudOffHours | None = None
    workload: WorkloadContext | None = None
    join_user_data: str | None = None  # joined pools boot the join script (pools/alicloud_join.py)
    today: datetime.date | None = None
    gate: CustomGate | None = None
    # The account that owns the pool: CloudMonitor alarm targets name it. None asks the provider.
    account_id: pulumi.Input[str] | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.instance_types:
            problems.append("instance_types: at least one")
        if not 0 <= self.min_size <= self.max_size:
            problems.append(f"min_size/max_size: 0 <= {self.min_size} <= {self.max_size} does not hold")
        if not 0 <= self.spot_percent <= 100:
            problems.append(f"spot_percent: {self.spot_percent} is not a percentage")
        if not 20 <= self.disk_gib <= 2048:
            problems.append(f"disk_gib: {self.disk_gib} is outside the ESSD system disk's 20..2048")
        problems.extend(self.rules.problems())
        if problems:
            raise ValueError(f"AlicloudPoolArgs ({self.pool}): " + "; ".join(problems))


class AlicloudGpuPool(pulumi.ComponentResource):
    """Queue, launch template, scaling group, scaling rules, alarms and off-hours tasks of one pool."""

    group_id: pulumi.Output[str]
    queue_name: pulumi.Output[str]

    def __init__(self, name: str, args: AlicloudPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:pools:AlicloudGpuPool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = {**args.tags, "gpufleet:pool": args.pool}
        queue = alicloud.message.ServiceQueue(
            f"{name}-queue",
            queue_name=args.queue_name,
            visibility_timeout=args.queue_visibility_s,
            polling_wait_seconds=20,
            message_retention_period=345_600,
            logging_enabled=True,
            tags=tags,
            opts=child,
        )
        spot = args.spot_percent > 0
        template = alicloud.ecs.EcsLaunchTemplate(
            f"{name}-template",
            launch_template_name=f"{args.name_prefix}-{args.pool}",
            description=f"gpufleet pool {args.pool}",
            image_id=args.image_id,
            instance_type=args.instance_types[0],
            instance_charge_type="PostPaid",
            spot_strategy="SpotAsPriceGo" if spot else "NoSpot",
            security_group_ids=[args.security_group_id],
            ram_role_name=args.role_name,
            http_endpoint="enabled",
            http_tokens="required",
            # Two hops: a container on the bridge network (the pool's container workload, the reference
            # worker) sits one hop further from the metadata service than the host, and needs its token.
            http_put_response_hop_limit=METADATA_HOP_LIMIT,
            password_inherit=False,
            internet_max_bandwidth_out=0,
            security_enhancement_strategy="Active",
            system_disk=alicloud.ecs.EcsLaunchTemplateSystemDiskArgs(
                category="cloud_essd",
                size=args.disk_gib,
                encrypted=True,
                kms_key_id=args.key_id,
                delete_with_instance=True,
            ),
            user_data=args.join_user_data or encoded_user_data(args.region, args.workload),
            update_default_version_number=True,
            tags={**tags, **image_arch_tags(args.image_arch)},
            template_tags=tags,
            opts=child,
        )
        group = alicloud.ess.ScalingGroup(
            f"{name}-group",
            scaling_group_name=f"{args.name_prefix}-{args.pool}",
            min_size=args.min_size,
            max_size=args.max_size,
            default_cooldown=args.rules.cooldown_s,
            vswitch_ids=args.vswitch_ids,
            launch_template_id=template.id,
            launch_template_version="Default",
            launch_template_overrides=[
                alicloud.ess.ScalingGroupLaunchTemplateOverrideArgs(instance_type=t)
                for t in args.instance_types
            ],
            multi_az_policy="COST_OPTIMIZED" if spot else "PRIORITY",
            on_demand_base_capacity=args.on_demand_base if spot else None,
            on_demand_percentage_above_base_capacity=100 - args.spot_percent if spot else None,
            spot_instance_pools=min(len(args.instance_types), 10) if spot else None,
            spot_instance_remedy=True if spot else None,
            compensate_with_on_demand=compensate_with_on_demand(args.spot_percent),
            desired_capacity=GROUP_DESIRED_CAPACITY,
            removal_policies=["NewestInstance", "OldestScalingConfiguration"],
            tags=tags,
            opts=child,
        )
        account = (
            pulumi.Output.from_input(args.account_id)
            if args.account_id is not None
            else alicloud.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        )
        self._scaling(name, args, group, queue, child=child, account=account)
        self._drain(name, args, group, account, child)
        if args.off_hours is not None:
            self._off_hours(name, args, args.off_hours, group, child)
        self.group_id = group.id
        self.queue_name = queue.queue_name
        self.register_outputs({"group_id": self.group_id, "queue_name": self.queue_name})

    def _scaling(
        self,
        name: str,
        args: AlicloudPoolArgs,
        group: alicloud.ess.ScalingGroup,
        queue: alicloud.message.ServiceQueue,
        *,
        child: pulumi.ResourceOptions,
        account: pulumi.Output[str],
    ) -> None:
        """The scaling rules and alarms (:func:`~gpufleet.components.pools.alicloud_scaling.build_scaling`);
        a joined pool has none (cluster-autoscaler sizes its group)."""
        build_scaling(name, args, group, queue, child, account=account)

    def _drain(
        self,
        name: str,
        args: AlicloudPoolArgs,
        group: alicloud.ess.ScalingGroup,
        account: pulumi.Output[str],
        child: pulumi.ResourceOptions,
    ) -> None:
        """``-drain``: a scale-in waits while the worker checkpoints; ``-protection``: what the worker
        may do to its own group."""
        alicloud.ess.LifecycleHook(
            f"{name}-drain",
            name=DRAIN_HOOK_NAME,
            scaling_group_id=group.id,
            lifecycle_transition="SCALE_IN",
            heartbeat_timeout=DRAIN_HEARTBEAT_S,
            default_result=DRAIN_DEFAULT_RESULT,
            opts=child,
        )
        policy_name = f"{args.name_prefix}-{args.pool}-protection"
        policy = alicloud.ram.Policy(
            f"{name}-protection",
            policy_name=policy_name,
            policy_document=pulumi.Output.all(account, group.id).apply(
                lambda ids: protection_document(args.region, ids[0], ids[1])
            ),
            description=f"gpufleet pool {args.pool}: protect its own instances, answer its drain hook",
            tags={**args.tags, "gpufleet:pool": args.pool},
            opts=child,
        )
        alicloud.ram.RolePolicyAttachment(
            f"{name}-protection-attach",
            role_name=args.role_name,
            policy_name=policy.policy_name.apply(lambda value: value or policy_name),
            policy_type="Custom",
            opts=child,
        )

    def _off_hours(
        self,
        name: str,
        args: AlicloudPoolArgs,
        off: AlicloudOffHours,
        group: alicloud.ess.ScalingGroup,
        child: pulumi.ResourceOptions,
    ) -> None:
        today = args.today or datetime.datetime.now(datetime.UTC).date()
        utc = off_hours_utc(off.timezone, off.stop, off.start, off.weekends, today.year)
        first = today + datetime.timedelta(days=1)
        end = f"{(today + datetime.timedelta(days=TASK_DAYS)).isoformat()}T00:00Z"
        # ess/scheduled_task.py ``desired_capacity``: "You must specify the `DesiredCapacity` parameter
        # when you create the scaling group". The group sets none (ESS keeps it between min and max),
        # so the tasks move only the bounds: 0..0 stops the pool, min..max starts it again.
        stop_desired = 0 if GROUP_DESIRED_CAPACITY is not None else None
        for suffix, cron, low, high, desired in (
            ("stop", utc.stop_cron, 0, 0, stop_desired),
            ("start", utc.start_cron, args.min_size, args.max_size, None),
        ):
            minute, hour = (int(part) for part in cron.split()[:2])
            alicloud.ess.ScheduledTask(
                f"{name}-off-hours-{suffix}",
                scheduled_task_name=task_name(f"{args.name_prefix}-{args.pool}", suffix),
                description=f"off-hours {suffix}: {off.stop[0]:02d}:{off.stop[1]:02d}-"
                f"{off.start[0]:02d}:{off.start[1]:02d} {off.timezone}, as UTC",
                scaling_group_id=group.id,
                launch_time=f"{first.isoformat()}T{hour:02d}:{minute:02d}Z",
                recurrence_type="Cron",
                recurrence_value=cron,
                recurrence_end_time=end,
                min_value=low,
                max_value=high,
                desired_capacity=desired,
                task_enabled=True,
                opts=child,
            )


def protection_document(region: str, account: str, group_id: str) -> str:
    """The RAM policy a pool's worker needs to keep its job through a scale-in: protect instances of
    its own group, and answer the group's lifecycle hook (ESS scopes those two to no resource)."""
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": list(ESS_PROTECT_ACTIONS),
                    "Resource": [f"acs:ess:{region}:{account}:scalinggroup/{group_id}"],
                },
                {"Effect": "Allow", "Action": list(ESS_LIFECYCLE_ACTIONS), "Resource": ["*"]},
                {"Effect": "Allow", "Action": list(ESS_READ_ACTIONS), "Resource": ["*"]},
            ],
        },
        sort_keys=True,
    )
