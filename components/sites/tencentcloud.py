"""The Tencent Cloud site: one region's key, checkpoint bucket, audit trail, network, CAM role, GPU
pools and budget, all through one explicit ``tencentcloud.Provider`` for the site's region.

The provider takes its credentials from the environment (``TENCENTCLOUD_SECRET_ID``/``SECRET_KEY``, or
a CAM role through ``TENCENTCLOUD_*`` settings): an explicit provider does not read the stack's
``tencentcloud:`` config. The site builds, in order: the KMS key; then, unless BYOK material is
``pending`` (first deploy: the key alone, see docs/first-deploy.md), the CLS topics and the CloudAudit
track (home site, ``audit.trail``), the COS bucket, and, when pools run here, the network, the role, a
TAT command (instances are operated through TAT), the pools and, on the home site, the budget. With
``storage.checkpoints.replica_regions.tencentcloud`` it also builds a key in that region (beside its own)
and a one-way replica of its bucket there (:mod:`gpufleet.components.storage.tencentcloud_replica`).
"""

from __future__ import annotations

from dataclasses import replace

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.audit.tencentcloud import TencentAudit, TencentAuditArgs
from gpufleet.components.cost.tencentcloud import CURRENCY, TencentBudget, TencentBudgetArgs
from gpufleet.components.identity.tencentcloud import TencentIdentity, TencentIdentityArgs
from gpufleet.components.keys.tencentcloud import TencentKey, TencentKeyArgs
from gpufleet.components.network.tencentcloud import TencentNetwork, TencentNetworkArgs
from gpufleet.components.pools.join import PoolJoin, scaler_tags, secret_name
from gpufleet.components.pools.off_hours import OffHours
from gpufleet.components.pools.scaling import ScalingRules, rules_from_spec
from gpufleet.components.pools.tencentcloud import (
    POOL_TAG,
    TencentPool,
    TencentPoolArgs,
    boot_script_problem,
    queue_name,
)
from gpufleet.components.pools.tencentcloud_join import join_secret
from gpufleet.components.pools.tencentcloud_join import join_user_data as tencent_join_data
from gpufleet.components.pools.userdata import WorkloadContext, render_workload
from gpufleet.components.sites.base import PoolOutputs, SiteArgs, SiteError, SiteFactory, SiteOutputs
from gpufleet.components.sites.workloads import group_worker_env, pool_workload
from gpufleet.components.spec_limits.tencentcloud import reference_worker_problem
from gpufleet.components.storage.tencentcloud import (
    CosReplication,
    TencentBucket,
    TencentBucketArgs,
    bucket_name_part,
)
from gpufleet.components.storage.tencentcloud_replica import (
    MAX_ROLE_NAME,
    CosCheckpointReplica,
    CosReplicaArgs,
)

# The public image the pools boot (looked up by name, newest first): TencentOS Server, which has no
# NVIDIA driver; the pools' boot script installs it at first boot
# (gpufleet.components.pools.tencentcloud.gpu_driver_install).
IMAGE_OS_NAME = "TencentOS Server 3.1 (TK4)"
BUDGET_PERIOD = ("2026-01", "2030-12")


def _problems(args: SiteArgs) -> list[str]:
    """What the spec asks of this site that Tencent cannot build, each naming the spec field."""
    spec, plan = args.spec, args.plan
    found = []
    checkpoints = spec.storage.checkpoints
    replica = checkpoints.replica_regions.tencentcloud
    if replica == plan.region:
        found.append(
            f"storage.checkpoints.replica_regions.tencentcloud: {replica} is this site's region; the "
            "replica must be in a second region"
        )
    if checkpoints.material == "config" and args.byok_material_base64 is None:
        found.append(
            "storage.checkpoints.byok_material: config needs the key material as the secret config value "
            "gpufleet:byokMaterial"
        )
    for pool_name in plan.pools:
        pool = spec.pools[pool_name]
        where = f"pools.{pool_name}"
        if pool.cloud != "tencentcloud":
            found.append(f"{where}.cloud: {pool.cloud!r} pools do not run on a Tencent Cloud site")
        if pool.queue.existing:
            found.append(
                f"{where}.queue: name/arn name an existing SQS queue; Tencent pools get their own CMQ queue "
                "(leave name, arn and kms_key_arn out)"
            )
        # The longest queue name a CMQ queue takes: the script is judged at its largest.
        too_long = boot_script_problem(_workload(args, pool_name, "q" * 64, plan.region))
        if too_long:
            found.append(f"{where}.workload: {too_long}")
        worker = pool.workload.reference_worker if pool.workload is not None else None
        if worker is not None:
            # The spec judged the pool's own region; a pool without one runs in the site's.
            problem = reference_worker_problem(
                plan.region, worker.env, pool.queue.model_dump(exclude_unset=True)
            )
            if problem:
                found.append(f"{where}.workload.reference_worker: {problem}")
    return found


def _workload(args: SiteArgs, pool_name: str, queue: str, region: str) -> str | None:
    """The pool's workload as its boot script runs it, told its queue and region (``TENCENTCLOUD_REGION``):
    the renderer every cloud's boot script uses (docker or nerdctl, every GPU, restarted when it stops)."""
    pool = args.spec.pools[pool_name]
    workload = pool_workload(pool, group_worker_env(pool))
    if workload is None:
        return None  # nothing, or the image's own reader: the boot script starts nothing
    context = WorkloadContext(workload=workload, queue_name=queue, region=region)
    return render_workload(context, "tencentcloud")


def _off_hours(args: SiteArgs, pool_name: str) -> OffHours | None:
    hours = args.spec.pools[pool_name].off_hours
    if hours is None:
        return None
    if args.spec.environment == "prod":
        pulumi.log.warn(f"pools.{pool_name}.off_hours is ignored in prod")
        return None
    return OffHours(timezone=hours.timezone, stop_cron=hours.stop_cron, start_cron=hours.start_cron)


def _scaling(args: SiteArgs, pool_name: str) -> ScalingRules:
    return rules_from_spec(args.spec.pools[pool_name].scaling)


class TencentSite(pulumi.ComponentResource):
    """``gpufleet:sites:TencentSite``: see the module docstring. ``outputs`` is the site contract's
    :class:`SiteOutputs` (currency CNY)."""

    outputs: SiteOutputs
    keys_pending_import: bool
    # Tencent Cloud has no burst publisher: its pools are not gated (the site contract's ``burst_publisher``).
    burst_publisher: pulumi.ComponentResource | None = None

    def __init__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:sites:TencentSite", name, None, opts)
        problems = _problems(args)
        if problems:
            raise SiteError(f"site {args.plan.key}: " + "; ".join(problems))
        spec, plan = args.spec, args.plan
        provider = tencentcloud.Provider(
            f"{name}-provider", region=plan.region, opts=pulumi.ResourceOptions(parent=self)
        )
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        tags = dict(args.tags)
        checkpoints = spec.storage.checkpoints
        key = TencentKey(
            f"{name}-key",
            TencentKeyArgs(
                encryption=checkpoints.encryption,
                alias=f"{name}-checkpoints"[:60],
                material=checkpoints.material,
                key_material_base64=args.byok_material_base64 if checkpoints.material == "config" else None,
                tags=tags,
                provider=provider,
            ),
            opts=child,
        )
        replica_region = checkpoints.replica_regions.tencentcloud
        replica_provider = replica_key = None
        if replica_region is not None:
            # Built with the site's key, so a BYOK key of the replica region gets its material alike.
            replica_provider = tencentcloud.Provider(
                f"{name}-replica-provider", region=replica_region, opts=pulumi.ResourceOptions(parent=self)
            )
            replica_key = TencentKey(
                f"{name}-replica-key",
                TencentKeyArgs(
                    encryption=checkpoints.encryption,
                    alias=f"{name}-replica"[:60],
                    material=checkpoints.material,
                    key_material_base64=args.byok_material_base64
                    if checkpoints.material == "config"
                    else None,
                    tags=tags,
                    provider=replica_provider,
                ),
                opts=child,
            )
        self.keys_pending_import = checkpoints.material == "pending"
        self.outputs = SiteOutputs(
            cloud="tencentcloud", region=plan.region, currency=CURRENCY, key_id=key.key_id, provider=provider
        )
        if self.keys_pending_import:
            # Nothing may use a key before its material is in: the first deploy builds the key alone.
            pulumi.log.info(f"site {plan.key}: BYOK material pending: only the key is built", resource=self)
            self.register_outputs({"key_id": key.key_id})
            return

        info = tencentcloud.user.get_info_output(opts=invoke)
        audit = TencentAudit(
            f"{name}-audit",
            TencentAuditArgs(
                region=plan.region,
                tags=tags,
                retention_days=spec.audit.log_retention_days,
                trail=plan.home and spec.audit.trail,
                provider=provider,
            ),
            opts=child,
        )
        bucket_args = TencentBucketArgs(
            name_part=bucket_name_part(f"{args.fleet}-ckpt-{plan.region}", plan.region),
            app_id=info.app_id,
            region=plan.region,
            key_id=key.key_id,
            ia_after_days=checkpoints.ia_after_days,
            expire_after_days=checkpoints.expire_after_days,
            noncurrent_expire_days=checkpoints.noncurrent_expire_days,
            checkpoint_prefix=spec.storage.checkpoint_prefix,
            tags=tags,
            provider=provider,
        )
        bucket_opts = child
        if replica_region is not None and replica_key is not None and replica_provider is not None:
            replica = CosCheckpointReplica(
                f"{name}-replica",
                CosReplicaArgs(
                    source_name_part=bucket_args.name_part,
                    source_key_id=key.key_id,
                    source_region=plan.region,
                    owner_uin=info.owner_uin,
                    uin=info.owner_uin,
                    role_name=f"{name}-ckpt-replication"[:MAX_ROLE_NAME],
                    tags=tags,
                    bucket=replace(
                        bucket_args,
                        name_part=bucket_name_part(f"{args.fleet}-ckpt-{plan.region}-dr", replica_region),
                        region=replica_region,
                        key_id=replica_key.key_id,
                        provider=replica_provider,
                    ),
                    provider=provider,
                ),
                opts=child,
            )
            bucket_args = replace(
                bucket_args, replication=CosReplication(role=replica.role, destination=replica.destination)
            )
            bucket_opts = pulumi.ResourceOptions(parent=self, depends_on=[replica])
        bucket = TencentBucket(f"{name}-checkpoints", bucket_args, opts=bucket_opts)
        pools: dict[str, PoolOutputs] = {}
        vpc_id = route_tables = None
        if plan.pools:
            network = TencentNetwork(
                f"{name}-network",
                TencentNetworkArgs(
                    region=plan.region,
                    vpc_cidr=plan.vpc_cidr,
                    availability_zones=plan.availability_zones,
                    pool_types=[list(spec.pools[p].instance_types) for p in plan.pools],
                    subnet_ids=plan.subnet_ids,
                    egress=spec.network.egress,
                    onprem_egress=plan.onprem_egress,
                    onprem_ranges=plan.onprem_ranges,
                    kubelet_sources=plan.kubelet_sources,
                    tags=tags,
                    provider=provider,
                ),
                opts=child,
            )
            vpc_id, route_tables = network.vpc_id, network.route_table_ids
            queues = {p: queue_name(name, p) for p in plan.pools}
            identity = TencentIdentity(
                f"{name}-identity",
                TencentIdentityArgs(
                    region=plan.region,
                    app_id=info.app_id,
                    uin=info.owner_uin,
                    bucket_name=bucket.bucket_name,
                    key_id=key.key_id,
                    log_topic_id=audit.nodes_topic_id,
                    queue_names=list(queues.values()),
                    data_prefix=spec.storage.data_prefix,
                    checkpoint_prefix=spec.storage.checkpoint_prefix,
                    tags=tags,
                    provider=provider,
                ),
                opts=child,
            )
            tencentcloud.tat.Command(
                f"{name}-gpu-health",
                command_name=f"{name}-gpu-health"[:60],
                command_type="SHELL",
                content="nvidia-smi --query-gpu=name,utilization.gpu,memory.used --format=csv",
                description="GPU health check; instances are operated through TAT, never SSH",
                timeout=60,
                username="root",
                working_directory="/root",
                tags=[tencentcloud.tat.CommandTagArgs(key=k, value=v) for k, v in sorted(tags.items())],
                opts=pulumi.ResourceOptions(parent=self, provider=provider),
            )
            image = tencentcloud.images.get_instance_output(
                image_types=["PUBLIC_IMAGE"], os_name=IMAGE_OS_NAME, opts=invoke
            ).image_id.apply(str)
            for pool_name in plan.pools:
                pool = spec.pools[pool_name]
                join = args.joins.get(pool_name)
                join_user_data = (
                    _joined(
                        f"{name}-pool-{pool_name}",
                        join,
                        pool=pool_name,
                        region=plan.region,
                        uin=info.owner_uin,
                        key_id=key.key_id,
                        role_name=identity.role_name,
                        tags={**tags, POOL_TAG: pool_name},
                        opts=child,
                    )
                    if join is not None
                    else None
                )
                built = TencentPool(
                    f"{name}-pool-{pool_name}",
                    TencentPoolArgs(
                        pool=pool_name,
                        region=plan.region,
                        instance_types=list(pool.instance_types),
                        min_size=pool.size.min,
                        max_size=pool.size.max,
                        spot_percent=pool.spot_percent,
                        on_demand_base=pool.on_demand_base,
                        scaling=_scaling(args, pool_name),
                        off_hours=_off_hours(args, pool_name),
                        disk_gib=pool.disk_gib,
                        workload=_workload(args, pool_name, queues[pool_name], plan.region),
                        vpc_id=network.vpc_id,
                        subnet_ids=network.subnet_ids,
                        security_group_id=network.security_group_id,
                        role_name=identity.role_name,
                        image_id=pool.image.id if pool.image is not None and pool.image.id else image,
                        image_arch=pool.image.named_arch if pool.image is not None else None,
                        queue_name=queues[pool_name],
                        visibility_timeout_s=pool.queue.visibility_timeout_s,
                        max_receives=pool.queue.max_receives,
                        tags={**tags, **scaler_tags(join)},
                        provider=provider,
                        uin=info.owner_uin,
                        join_user_data=join_user_data,
                    ),
                    opts=child,
                )
                pools[pool_name] = PoolOutputs(
                    groups=built.group_ids, queue=built.queue_name, role=identity.role_name
                )
        budget: TencentBudget | None = None
        if plan.home:
            budget = TencentBudget(
                f"{name}-cost",
                TencentBudgetArgs(
                    budget_name=args.stack.replace("/", "-"),
                    monthly=spec.budget.monthly,
                    currency=spec.budget.currency,
                    alert_percent=spec.budget.alert_percent,
                    period_begin=BUDGET_PERIOD[0],
                    period_end=BUDGET_PERIOD[1],
                    provider=provider,
                ),
                opts=child,
            )
        self.outputs = SiteOutputs(
            cloud="tencentcloud",
            region=plan.region,
            currency=CURRENCY,
            key_id=key.key_id,
            bucket_name=bucket.bucket_name,
            vpc_id=vpc_id,
            vpc_cidr=plan.vpc_cidr,
            route_table_ids=route_tables,
            route_table_count=TencentNetwork.route_table_count if route_tables is not None else None,
            provider=provider,
            pools=pools,
            budget_name=budget.budget_name if budget is not None else None,
        )
        self.register_outputs({"key_id": key.key_id, "bucket_name": bucket.bucket_name})


def _joined(
    base: str,
    join: PoolJoin,
    *,
    pool: str,
    region: str,
    uin: pulumi.Input[str],
    key_id: pulumi.Input[str],
    role_name: pulumi.Input[str],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> str:
    """A pool whose nodes join the on-prem cluster: its join secret, its role's read on it, and the boot
    script (no alarm scaling: components/pools/tencentcloud_join.py)."""
    secret = secret_name(base, pool)
    join_secret(
        base,
        secret=secret,
        pool=pool,
        region=region,
        uin=uin,
        key_id=key_id,
        role_name=role_name,
        tags=tags,
        opts=opts,
    )
    return tencent_join_data(join, secret, region)


# What :data:`gpufleet.components.sites.SITES` builds this cloud's sites with.
SITE: SiteFactory = TencentSite
