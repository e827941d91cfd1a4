"""A GPU burst pool on AWS: hardened launch template, mixed spot/on-demand Auto Scaling group, its own
SQS work queue, target tracking on the queue's backlog per instance, step scale-out on GPU
utilisation, simple scale-in with a cooldown only while the queue is empty, a termination lifecycle
hook, and an optional off-hours schedule.

How the policies fit together (AWS's documented pattern for scaling on an SQS queue, plus the seed's
GPU rules):

- ``-backlog``: target tracking on the jobs per instance in service,
  ``IF(m2 > 0, (m3 + IF(m1 > Q, m1, 0)) / m2, m1)``: the jobs workers hold (m3, the queue's messages in
  flight) and, once more than ``queue_out`` (Q) wait, the waiting ones (m1, visible), over the
  instances in service (m2, ``AWS/AutoScaling GroupInServiceInstances``, collected because the group
  enables it), held at one job per instance. Scale-out is proportional: 20 streams running and 180
  waiting on 20 instances ask for 200 instances at once, where a +1 step per cooldown would take an
  hour to add 12. A pool at zero counts every waiting job, so a pool at ``size.min`` 0 wakes for one
  job. Its scale-in is disabled: scaling in is the GPU alarm's, below.
- ``-scale-out`` (step, +1, paced by the warm-up) on ``-gpu-high``: GPU above ``gpu_util_out`` for
  ``out_for``, for work that keeps GPUs busy without queueing.
- ``-scale-in`` (simple, -1 per ``cooldown``) on ``-gpu-low``: a metric-math alarm on the GPU
  utilisation while the queue is empty (100 while any message waits), below ``gpu_util_in`` for
  ``in_for``. Scale-in needs an empty queue, so it never pulls against the backlog policy, and the two
  GPU thresholds are apart, so the GPU rules never flap either.

A second target-tracking policy on GPU utilisation (at ``gpu_util_out``) was the alternative: target
tracking scales in only when every policy agrees. It would scale in whenever utilisation fell below
the target, not below ``gpu_util_in`` for ``in_for``, and its scale-in cannot be slowed to one
instance per cooldown, so the seed's rules would not hold.

Scale-in never ends a running job (:mod:`gpufleet.components.pools.lifecycle`): the worker protects its
instance while it holds a job, and every termination waits on the ``-drain`` lifecycle hook.

The policies and alarms are built by :mod:`gpufleet.components.pools.aws_alarms`, the image and user data
by :mod:`gpufleet.components.pools.aws_boot`. A pool whose nodes join the on-prem cluster (``join``,
:mod:`gpufleet.components.pools.aws_join`) has neither: cluster-autoscaler alone sizes its group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.aws import InstanceIdentity, InstanceIdentityArgs
from gpufleet.components.identity.documents import document
from gpufleet.components.pools.aws_alarms import alarm_scaling
from gpufleet.components.pools.aws_boot import DLAMI_NAME_FILTER as DLAMI_NAME_FILTER  # noqa: PLC0414
from gpufleet.components.pools.aws_boot import pool_image, pool_user_data
from gpufleet.components.pools.aws_join import group_tags, join_secret
from gpufleet.components.pools.aws_metrics import compile_aws_alarms
from gpufleet.components.pools.aws_queue import (
    ExistingQueue,
    NewQueue,
    PoolQueueRefs,
    QueueSource,
    consumer_statements,
    create_queue,
    existing_queue,
)
from gpufleet.components.pools.aws_userdata import agent_namespace
from gpufleet.components.pools.burst import Gate
from gpufleet.components.pools.join import PoolJoin, secret_name
from gpufleet.components.pools.lifecycle import (
    DRAIN_DEFAULT_RESULT,
    DRAIN_HEARTBEAT_S,
    DRAIN_HOOK_NAME,
    TERMINATING,
    protection_statements,
)
from gpufleet.components.pools.off_hours import OffHours as OffHours  # noqa: PLC0414 (re-export)
from gpufleet.components.pools.scaling import (
    GPU_METRIC,
    GROUP_METRICS,
    AlarmSpec,
    ScalingRules,
    backlog_target,
)
from gpufleet.components.pools.workload import Workload
from gpufleet.components.tags import check_cost_tags, with_tags

ROOT_DEVICE = "/dev/xvda"
IMDS_HOP_LIMIT = 2  # containers on the instance sit one hop further away than the host
# AWS's spot guidance: be flexible across instance types; a spot pool lists at least this many.
MIN_SPOT_TYPES = 2
# IAM role names take 64 characters; Pulumi appends "-" and 7 random characters to the logical name.
MAX_ROLE_LOGICAL_NAME = 64 - 8


@dataclass(frozen=True, kw_only=True)
class GpuPoolArgs:
    pool: str
    instance_types: Sequence[str]
    min_size: int
    max_size: int
    subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
    security_group_id: pulumi.Input[str]
    kms_key_arn: pulumi.Input[str]
    tags: Mapping[str, str]
    stack: str
    # The pool's own role is built from ``identity``; or the instances take an existing role's profile.
    identity: InstanceIdentityArgs | None = None
    instance_profile_arn: pulumi.Input[str] | None = None
    role_name: pulumi.Input[str] | None = None
    workload: Workload | None = None
    queue: QueueSource = field(default_factory=NewQueue)
    spot_percent: int = 100
    on_demand_base: int = 0
    scaling: ScalingRules = field(default_factory=ScalingRules)
    off_hours: OffHours | None = None
    disk_gib: int = 200
    image_id: pulumi.Input[str] | None = None
    agent_log_group_name: pulumi.Input[str] | None = None
    region: str | None = None
    # The burst order's gate (gpufleet.components.pools.burst): None scales on the pool's own alarms alone.
    gate: Gate | None = None
    # The on-prem cluster its nodes join (gpufleet.components.pools.join): cluster-autoscaler then sizes
    # the group alone (no scaling policy, no alarm) and the nodes boot the join script.
    join: PoolJoin | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if not self.instance_types:
            problems.append("instance_types: at least one instance type is needed")
        if len(set(self.instance_types)) != len(self.instance_types):
            problems.append("instance_types: duplicates")
        if not 0 <= self.min_size <= self.max_size:
            problems.append(f"size: need 0 <= min ({self.min_size}) <= max ({self.max_size})")
        if not 0 <= self.spot_percent <= 100:
            problems.append(f"spot_percent: {self.spot_percent} is not a percentage")
        if not 0 <= self.on_demand_base <= self.max_size:
            problems.append(f"on_demand_base: {self.on_demand_base} must be within 0..max ({self.max_size})")
        if not 8 <= self.disk_gib <= 16_384:
            problems.append(f"disk_gib: {self.disk_gib} is outside gp3's 8..16384 GiB")
        problems.extend(f"scaling.{p}" for p in self.scaling.problems())
        if not self.stack:
            problems.append("stack: the '<project>/<stack>' value of the Stack dimension cannot be empty")
        problems.extend(self.queue.problems(self.region))
        existing_role = (self.instance_profile_arn is not None, self.role_name is not None)
        own_role = self.identity is not None and not any(existing_role)
        if not own_role and not (self.identity is None and all(existing_role)):
            problems.append("identity: give the pool's identity, or both instance_profile_arn and role_name")
        if (
            self.identity is not None
            and self.stack
            and self.identity.metric_namespace != agent_namespace(self.stack)
        ):
            problems.append(
                f"identity.metric_namespace: {self.identity.metric_namespace!r} is not the stack's "
                f"{agent_namespace(self.stack)!r}, where the agent publishes and the alarms read"
            )
        if self.workload is not None:
            problems.extend(f"workload.{p}" for p in self.workload.problems())
            if self.agent_log_group_name is None:
                problems.append("workload: runs from the boot script, which needs agent_log_group_name")
        if problems:
            raise ValueError(f"GpuPoolArgs({self.pool}): " + "; ".join(problems))


class GpuPool(pulumi.ComponentResource):
    """Children: ``-lt`` launch template (IMDSv2 only, hop limit 2, encrypted gp3 root volume with the
    fleet key, no public IP, no key pair), ``-asg`` Auto Scaling group (spot share above an on-demand
    base, price-capacity-optimized, one override per instance type), the work queue (``-queue`` and
    its ``-dlq``, see :mod:`gpufleet.components.pools.aws_queue`, unless the spec names an existing
    queue), the pool's own identity
    (:class:`gpufleet.components.identity.aws.InstanceIdentity` of the same name: ``-role``,
    ``-permissions``, ``-profile``; no other pool's instances share the role) with
    ``-queue-access`` letting that role consume this queue only, ``-protection`` letting it protect
    its instances in this group only and answer its ``-drain`` termination hook, the ``-backlog``
    target-tracking policy, a ``-scale-out`` step policy (paced by the instance warm-up) fired by
    ``-gpu-high``, a ``-scale-in`` simple policy with the cooldown fired by ``-gpu-low``, and
    ``-stop``/``-start`` schedules when off-hours are set. With ``agent_log_group_name`` the
    instances boot the CloudWatch agent that publishes the GPU metric the alarms watch, then the
    ``workload`` if any (:mod:`gpufleet.components.pools.userdata`).

    Scale-in is simple scaling on purpose: AWS re-runs an Auto Scaling alarm action every minute
    while the alarm stays in ALARM, and a step policy takes no cooldown, so 30 minutes below the
    threshold would remove one instance a minute; a simple policy waits ``cooldown`` between steps.
    A scale-in only ever picks an instance its worker has not protected."""

    asg_name: pulumi.Output[str]
    launch_template_id: pulumi.Output[str]
    queue_name: pulumi.Output[str]
    queue_arn: pulumi.Output[str]
    role_arn: pulumi.Output[str] | None
    alarms: tuple[AlarmSpec, ...]

    def __init__(self, name: str, args: GpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:pools:GpuPool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        rules = args.scaling
        # The GPU alarms read the stack's own namespace, the one its agent publishes to and its role
        # may publish to; compile_alarms names the agent's default.
        namespace = agent_namespace(args.stack)
        self.alarms = tuple(
            replace(alarm, namespace=namespace) if alarm.namespace == GPU_METRIC[0] else alarm
            for alarm in compile_aws_alarms(rules)
        )
        target = backlog_target(rules)
        tags = with_tags(args.tags, **{"gpufleet:pool": args.pool})
        image_id, image_tags = pool_image(args, self)
        template_tags = {**tags, **image_tags}
        if args.spot_percent > 0 and len(args.instance_types) < MIN_SPOT_TYPES:
            # Spot capacity is offered per type and zone: a group that may take one type only waits
            # (or falls back to nothing) whenever that type's spot pools run dry.
            pulumi.log.warn(
                f"pools.{args.pool}: {args.spot_percent}% spot on one instance type "
                f"({args.instance_types[0]}): list at least {MIN_SPOT_TYPES} types of the same GPU so "
                "Auto Scaling can find spot capacity"
            )
        queue = self._queue(name, args, tags, child)
        region: pulumi.Input[str] = (
            args.region or aws.get_region_output(opts=pulumi.InvokeOutputOptions(parent=self)).region
        )
        profile_arn, role_name = self._identity(name, args, child)
        secret: str | None = None
        if args.join is not None:
            secret = secret_name(name, args.pool)
            join_secret(
                name,
                secret=secret,
                pool=args.pool,
                kms_key_arn=args.kms_key_arn,
                role_name=role_name,
                region=args.region,
                region_name=region,
                tags=tags,
                opts=child,
            )
        user_data = pool_user_data(args, queue, region, secret)
        queue_access = aws.iam.RolePolicy(
            f"{name}-queue-access",
            role=role_name,
            policy=document(consumer_statements([queue.arn], queue.kms_key_arn, region)),
            opts=child,
        )

        template = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"gpufleet pool {args.pool}",
            image_id=image_id,
            update_default_version=True,
            user_data=user_data,
            region=args.region,
            iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=profile_arn),
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled",
                http_tokens="required",
                http_put_response_hop_limit=IMDS_HOP_LIMIT,
                instance_metadata_tags="disabled",
            ),
            block_device_mappings=[
                aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                    device_name=ROOT_DEVICE,
                    ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                        volume_type="gp3",
                        volume_size=args.disk_gib,
                        encrypted="true",
                        kms_key_id=args.kms_key_arn,
                        delete_on_termination="true",
                    ),
                )
            ],
            network_interfaces=[
                aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                    device_index=0,
                    associate_public_ip_address="false",
                    delete_on_termination="true",
                    security_groups=[args.security_group_id],
                )
            ],
            tag_specifications=[
                aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=tags)
                for kind in ("instance", "volume", "network-interface")
            ],
            tags=template_tags,
            opts=child,
        )

        group = aws.autoscaling.Group(
            f"{name}-asg",
            min_size=args.min_size,
            max_size=args.max_size,
            vpc_zone_identifiers=args.subnet_ids,
            region=args.region,
            default_cooldown=rules.cooldown_s,
            default_instance_warmup=rules.cooldown_s,
            capacity_rebalance=args.spot_percent > 0,
            health_check_type="EC2",
            # The backlog policy divides by the instances in service, which Auto Scaling publishes
            # only for a group that collects it.
            enabled_metrics=[aws.autoscaling.Metric(metric) for metric in GROUP_METRICS],
            metrics_granularity="1Minute",
            mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
                instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
                    on_demand_base_capacity=args.on_demand_base,
                    on_demand_percentage_above_base_capacity=100 - args.spot_percent,
                    spot_allocation_strategy="price-capacity-optimized",
                    on_demand_allocation_strategy="prioritized",
                ),
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=template.id, version=template.latest_version.apply(str)
                    ),
                    overrides=[
                        aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(instance_type=t)
                        for t in args.instance_types
                    ],
                ),
            ),
            tags=[
                aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True)
                for k, v in sorted(tags.items())
            ]
            + [
                # Who sizes the group (one scaler per group, GF-COST-006) and, for cluster-autoscaler,
                # its discovery and node template: the group's, never the instances'.
                aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=False)
                for k, v in sorted(group_tags(args.join).items())
            ],
            # Instances never boot unable to take work from their queue.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[queue_access]),
        )

        if args.join is None:
            alarm_scaling(
                name,
                rules=rules,
                target=target,
                alarms=self.alarms,
                gate=args.gate,
                group=group,
                queue_name=queue.name,
                stack=args.stack,
                region=args.region,
                tags=tags,
                child=child,
            )
        aws.autoscaling.LifecycleHook(
            f"{name}-drain",
            name=DRAIN_HOOK_NAME,
            autoscaling_group_name=group.name,
            lifecycle_transition=TERMINATING,
            heartbeat_timeout=DRAIN_HEARTBEAT_S,
            default_result=DRAIN_DEFAULT_RESULT,
            region=args.region,
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-protection",
            role=role_name,
            policy=document(protection_statements(group.arn)),
            opts=child,
        )

        if args.off_hours is not None:
            hours = args.off_hours
            aws.autoscaling.Schedule(
                f"{name}-stop",
                scheduled_action_name=f"{args.pool}-off-hours-stop",
                autoscaling_group_name=group.name,
                recurrence=hours.stop_cron,
                time_zone=hours.timezone,
                min_size=0,
                max_size=0,
                desired_capacity=0,
                region=args.region,
                opts=child,
            )
            aws.autoscaling.Schedule(
                f"{name}-start",
                scheduled_action_name=f"{args.pool}-off-hours-start",
                autoscaling_group_name=group.name,
                recurrence=hours.start_cron,
                time_zone=hours.timezone,
                min_size=args.min_size,
                max_size=args.max_size,
                desired_capacity=args.min_size,
                region=args.region,
                opts=child,
            )

        self.asg_name = group.name
        self.launch_template_id = template.id
        self.queue_name = queue.name
        self.queue_arn = queue.arn
        self.register_outputs(
            {
                "asg_name": self.asg_name,
                "launch_template_id": self.launch_template_id,
                "queue_name": self.queue_name,
                "queue_arn": self.queue_arn,
                "role_arn": self.role_arn,
            }
        )

    def _identity(
        self, name: str, args: GpuPoolArgs, opts: pulumi.ResourceOptions
    ) -> tuple[pulumi.Input[str], pulumi.Input[str]]:
        """The instance profile ARN and role name the pool's instances run under."""
        self.role_arn = None
        if args.identity is None:
            if args.instance_profile_arn is None or args.role_name is None:  # refused by GpuPoolArgs
                raise AssertionError("GpuPoolArgs without identity or an existing role")
            return args.instance_profile_arn, args.role_name
        if len(f"{name}-role") > MAX_ROLE_LOGICAL_NAME:
            raise ValueError(
                f"pools.{args.pool}: the pool's IAM role would be named {name}-role plus 8 "
                "random characters, longer than IAM's 64: shorten the pool's name (or the stack's)"
            )
        statements = [*args.identity.extra_statements]
        if args.workload is not None:
            statements += args.workload.statements()
        # Named like the pool (a component of another type): its role is ``<pool>-role``, the
        # shortest name that says whose it is, since IAM role names take 64 characters only.
        identity = InstanceIdentity(name, replace(args.identity, extra_statements=statements), opts=opts)
        self.role_arn = identity.role_arn
        return identity.instance_profile_arn, identity.role_name

    def _queue(
        self, name: str, args: GpuPoolArgs, tags: Mapping[str, str], opts: pulumi.ResourceOptions
    ) -> PoolQueueRefs:
        if isinstance(args.queue, ExistingQueue):
            return existing_queue(args.queue, pool=args.pool, region=args.region, parent=self)
        return create_queue(
            name, args.queue, kms_key_arn=args.kms_key_arn, tags=tags, region=args.region, opts=opts
        )
