"""The Alibaba Cloud site: the fleet's presence in one Alibaba region (DESIGN.md, "A fleet is sites
joined by links").

One explicit ``alicloud.Provider`` for the site's region carries every child (Alibaba ``oss.Bucket``
and ``ess.ScalingGroup`` take no region input). The site builds, in order: the KMS key; then, unless
BYOK material is pending, the OSS checkpoint bucket, the SLS project with the node log store (and,
in the home site, the ActionTrail trail and its store), Cloud Assistant's session-manager switch,
the network, and per pool a RAM role and an ESS pool. With ``storage.checkpoints.replica_regions.alicloud``
the site also builds a key in that region (beside its own) and a one-way replica of its bucket there
(:mod:`gpufleet.components.storage.alicloud_replica`).

BYOK (``storage.checkpoints.byok_material``): ``pending`` builds the key alone (its material is
imported out of band: docs/alicloud.md); ``imported`` builds everything and tags the key as imported;
``config`` is not available here, since pulumi-alicloud has no resource that imports material.

Alibaba has no budget resource: the spec's budget is held against the cost estimate by GF-COST-002.

Burst order: with ``burst.publishers.alicloud`` each pool with a gate (``SiteArgs.burst_gates``) scales
out on the exporter's ``GatedBacklog`` (:mod:`gpufleet.components.pools.burst_custom`), and the home Alibaba
site builds the exporter's identity (:class:`AlicloudBurstPublisher`) for every gated Alibaba pool of
the fleet. Without it the pools scale on their own queue, as before.
"""

from __future__ import annotations

from dataclasses import replace

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.audit.alicloud import AlicloudAudit, AlicloudAuditArgs
from gpufleet.components.identity.alicloud import MAX_ROLE_NAME, PoolIdentity, PoolIdentityArgs
from gpufleet.components.identity.alicloud_publisher import AlicloudBurstPublisher, PublisherArgs
from gpufleet.components.keys.alicloud import AlicloudKey, AlicloudKeyArgs
from gpufleet.components.network.alicloud import AlicloudNetwork, AlicloudNetworkArgs, zones_for_pools
from gpufleet.components.pools.alicloud import AlicloudGpuPool, AlicloudOffHours, AlicloudPoolArgs
from gpufleet.components.pools.alicloud_join import JoinedAlicloudGpuPool, join_secret, pool_secret_name
from gpufleet.components.pools.alicloud_join import join_user_data as alicloud_join_data
from gpufleet.components.pools.burst_custom import CustomGate
from gpufleet.components.pools.join import scaler_tags
from gpufleet.components.pools.scaling import ScalingRules, rules_from_spec
from gpufleet.components.pools.userdata import WorkloadContext
from gpufleet.components.sites.base import PoolOutputs, SiteArgs, SiteError, SiteFactory, SiteOutputs
from gpufleet.components.sites.workloads import group_worker_env, pool_workload
from gpufleet.components.spec import Pool
from gpufleet.components.spec.alicloud_publisher import AlicloudPublisher
from gpufleet.components.storage.alicloud import OssCheckpointBucket, OssCheckpointBucketArgs
from gpufleet.components.storage.alicloud_replica import OssCheckpointReplica, OssReplicaArgs

# Alibaba Cloud Linux 3, which has no NVIDIA driver: the pools' boot script installs it
# (gpufleet.components.pools.alicloud.gpu_driver_install).
IMAGE_NAME = "^aliyun_3_x64_20G_alibase_"
# The default image's architecture: the lookup's name says x64.
DEFAULT_IMAGE_ARCH = "x86_64"
SESSION_MANAGER_SWITCH = "sessionManagerStatus"
LONGEST_SUFFIX = "-scale-out"  # of the names the pool's resources take (gpufleet.components.pools.alicloud)


def _rules(pool: Pool) -> ScalingRules:
    return rules_from_spec(pool.scaling)


def publisher(args: SiteArgs) -> AlicloudPublisher | None:
    """The exporter's identity settings when the spec gates Alibaba pools; None: no gate."""
    burst = args.spec.burst
    return None if burst is None else burst.publishers.alicloud


def gated_queues(args: SiteArgs) -> list[tuple[str, str]]:
    """Region and MNS queue name of every Alibaba pool of the fleet that has a gate."""
    found = []
    for name, gate in args.burst_gates.items():
        cloud, _, region = gate.site.partition(":")
        if cloud == "alicloud" and name in args.spec.pools:
            found.append((region, f"{args.fleet}-{region}-{name}"))
    return sorted(found)


def pool_problems(args: SiteArgs) -> list[str]:
    """What the spec asks of this site that Alibaba Cloud cannot build, each naming its spec field."""
    problems = []
    if args.spec.storage.checkpoints.material == "config":
        problems.append(
            "storage.checkpoints.byok_material: config is not available on Alibaba Cloud (pulumi-alicloud "
            "has no resource that imports key material): use pending, import the material "
            "(docs/alicloud.md), then imported"
        )
    for name in args.plan.pools:
        pool = args.spec.pools.get(name)
        if pool is None or pool.cloud != "alicloud":
            found = "not in the spec" if pool is None else f"a pool of {pool.cloud}"
            problems.append(
                f"pools.{name}: the {args.plan.key} site builds Alibaba Cloud pools only; it is {found}"
            )
            continue
        if pool.queue.existing:
            problems.append(
                f"pools.{name}.queue: name and arn name SQS queues; an Alibaba pool gets its own MNS queue: "
                "leave them out"
            )
        # ESS takes names of at most 64 characters for groups, rules and tasks, as RAM does for roles.
        longest = f"{args.fleet}-{args.plan.region}-{name}{LONGEST_SUFFIX}"
        if len(longest) > MAX_ROLE_NAME:
            problems.append(
                f"pools.{name}: the pool's ESS and RAM names ({longest!r}) would be longer than "
                f"{MAX_ROLE_NAME} characters: shorten the pool's name"
            )
    return problems


class AlicloudSite(pulumi.ComponentResource):
    """``gpufleet:sites:AlicloudSite``: key, bucket, audit, network, identity and pools of one region."""

    outputs: SiteOutputs

    def __init__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:sites:AlicloudSite", name, None, opts)
        plan, spec = args.plan, args.spec
        if plan.cloud != "alicloud":
            raise SiteError(f"{plan.key}: AlicloudSite builds alicloud sites only")
        problems = pool_problems(args)
        if args.byok_material_base64 is not None:
            problems.append("gpufleet:byokMaterial: Alibaba Cloud keys cannot take material from config")
        if problems:
            raise SiteError("; ".join(problems))
        provider = alicloud.Provider(
            f"{name}-provider", region=plan.region, opts=pulumi.ResourceOptions(parent=self)
        )
        child = pulumi.ResourceOptions(parent=self, providers={"alicloud": provider})
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        prefix = f"{args.fleet}-{plan.region}"
        tags = dict(args.tags)
        settings = publisher(args)
        queues = gated_queues(args)
        self.burst_publisher: AlicloudBurstPublisher | None = None  # the exporter's identity, for the fleet
        if plan.home and settings is not None and queues:
            self.burst_publisher = AlicloudBurstPublisher(
                f"{args.fleet}-burst-publisher",
                PublisherArgs(
                    name=f"{args.fleet}-burst-publisher",
                    issuer_url=settings.issuer_url,
                    fingerprints=settings.fingerprints,
                    client_id=settings.client_id,
                    subject=settings.subject,
                    queues=queues,
                    tags=tags,
                ),
                opts=child,
            )
        checkpoints = spec.storage.checkpoints
        material = checkpoints.material
        key = AlicloudKey(
            f"{prefix}-key",
            AlicloudKeyArgs(
                encryption=checkpoints.encryption, tags=tags, material_imported=material == "imported"
            ),
            opts=child,
        )
        replica_region = checkpoints.replica_regions.alicloud
        replica_provider = replica_key = None
        if replica_region is not None:
            # The replica's key is built with the site's, so a BYOK key of that region waits for its
            # material in the same first deploy.
            replica_provider = alicloud.Provider(
                f"{name}-replica-provider", region=replica_region, opts=pulumi.ResourceOptions(parent=self)
            )
            replica_key = AlicloudKey(
                f"{prefix}-replica-key",
                AlicloudKeyArgs(
                    encryption=checkpoints.encryption, tags=tags, material_imported=material == "imported"
                ),
                opts=pulumi.ResourceOptions(parent=self, providers={"alicloud": replica_provider}),
            )
        self.keys_pending_import = material == "pending"
        if self.keys_pending_import:
            self.outputs = SiteOutputs(
                cloud="alicloud", region=plan.region, currency="CNY", key_id=key.key_id, provider=provider
            )
            self.register_outputs({"key_id": key.key_id})
            return
        bucket_args = OssCheckpointBucketArgs(
            kms_key_id=key.key_id,
            tags=tags,
            ia_after_days=checkpoints.ia_after_days,
            expire_after_days=checkpoints.expire_after_days,
            noncurrent_expire_days=checkpoints.noncurrent_expire_days,
            classification=checkpoints.classification,
            checkpoint_prefix=spec.storage.checkpoint_prefix,
        )
        bucket = OssCheckpointBucket(f"{prefix}-checkpoints", bucket_args, opts=child)
        if replica_region is not None and replica_key is not None and replica_provider is not None:
            OssCheckpointReplica(
                f"{prefix}-replica",
                OssReplicaArgs(
                    source_bucket=bucket.bucket_name,
                    source_key_id=key.key_id,
                    source_region=plan.region,
                    region=replica_region,
                    key_id=replica_key.key_id,
                    provider=replica_provider,
                    role_name=f"{prefix}-ckpt-replication"[:MAX_ROLE_NAME],
                    tags=tags,
                    bucket=replace(bucket_args, kms_key_id=replica_key.key_id),
                ),
                opts=child,
            )
        account = alicloud.get_caller_identity_output(opts=invoke).account_id
        audit = AlicloudAudit(
            f"{prefix}-audit",
            AlicloudAuditArgs(
                name_prefix=prefix,
                region=plan.region,
                account_id=account,
                tags=tags,
                log_retention_days=spec.audit.log_retention_days,
                node_log_retention_days=spec.access.session_log_retention_days,
                trail=plan.home and spec.audit.trail,
            ),
            opts=child,
        )
        # One switch per region, shared by every stack there: kept when this stack is destroyed, so
        # tearing down one fleet does not turn session access off for the others in the region.
        alicloud.ecs.EcsSessionManagerStatus(
            f"{prefix}-session-manager",
            session_manager_status_name=SESSION_MANAGER_SWITCH,
            status="Enabled",
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(retain_on_delete=True)),
        )
        pools: dict[str, PoolOutputs] = {}
        network: AlicloudNetwork | None = None
        if plan.pools:
            network = self._network(prefix, args, invoke, child)
            image = alicloud.ecs.get_images_output(
                name_regex=IMAGE_NAME, owners="system", most_recent=True, opts=invoke
            ).ids.apply(lambda ids: ids[0])
            for pool_name in plan.pools:
                pools[pool_name] = self._pool(
                    prefix=prefix,
                    pool_name=pool_name,
                    args=args,
                    key=key,
                    bucket=bucket,
                    audit=audit,
                    network=network,
                    image=image,
                    account=account,
                    child=child,
                )
        self.outputs = SiteOutputs(
            cloud="alicloud",
            region=plan.region,
            currency="CNY",
            key_id=key.key_id,
            bucket_name=bucket.bucket_name,
            vpc_id=network.vpc_id if network else None,
            vpc_cidr=plan.vpc_cidr if network and not plan.subnet_ids else None,
            route_table_ids=network.route_table_ids if network else None,
            route_table_count=network.route_table_count if network else None,
            provider=provider,
            pools=pools,
        )
        self.register_outputs({"key_id": key.key_id, "bucket_name": bucket.bucket_name})

    def _network(
        self, prefix: str, args: SiteArgs, invoke: pulumi.InvokeOutputOptions, child: pulumi.ResourceOptions
    ) -> AlicloudNetwork:
        plan = args.plan
        if plan.subnet_ids:
            net_args = AlicloudNetworkArgs(tags=args.tags, vswitch_ids=plan.subnet_ids, name_prefix=prefix)
        else:
            if plan.vpc_cidr is None:
                raise SiteError(f"network: site {plan.key} has pools but neither a VPC range nor vSwitches")
            types = [args.spec.pools[name].instance_types for name in plan.pools]
            zones = zones_for_pools(invoke, plan.region, plan.availability_zones, types)
            net_args = AlicloudNetworkArgs(
                tags=args.tags,
                vpc_cidr=plan.vpc_cidr,
                zones=zones,
                egress=args.spec.network.egress,
                onprem_egress=plan.onprem_egress,
                onprem_ranges=plan.onprem_ranges,
                kubelet_sources=plan.kubelet_sources,
                name_prefix=prefix,
            )
        return AlicloudNetwork(f"{prefix}-network", net_args, opts=child)

    def _pool(
        self,
        *,
        prefix: str,
        pool_name: str,
        args: SiteArgs,
        key: AlicloudKey,
        bucket: OssCheckpointBucket,
        audit: AlicloudAudit,
        network: AlicloudNetwork,
        image: pulumi.Output[str],
        account: pulumi.Output[str],
        child: pulumi.ResourceOptions,
    ) -> PoolOutputs:
        spec, plan = args.spec, args.plan
        pool = spec.pools[pool_name]
        queue_name = f"{prefix}-{pool_name}"
        identity = PoolIdentity(
            f"{prefix}-pool-{pool_name}",
            PoolIdentityArgs(
                role_name=queue_name,
                region=plan.region,
                bucket_name=bucket.bucket_name,
                key_id=key.key_id,
                log_project=audit.project_name,
                log_store=audit.node_store_name,
                queue_name=queue_name,
                tags=args.tags,
                data_prefix=spec.storage.data_prefix,
                checkpoint_prefix=spec.storage.checkpoint_prefix,
            ),
            opts=child,
        )
        off = pool.off_hours
        off_hours = None
        if off is not None and spec.environment != "prod":
            off_hours = AlicloudOffHours(
                timezone=off.timezone,
                stop=(off.start_hour, off.start_minute),
                start=(off.end_hour, off.end_minute),
                weekends=off.weekends,
            )
        workload = pool_workload(pool, group_worker_env(pool))
        gate = args.burst_gates.get(pool_name)
        settings = publisher(args)
        custom_gate = (
            CustomGate(
                site=gate.site,
                pool=pool_name,
                ahead=gate.ahead,
                account_id=account,
                fallback_after_s=settings.fallback_after_s,
            )
            if gate is not None and settings is not None
            else None
        )
        join = args.joins.get(pool_name)
        pool_class, join_user_data = AlicloudGpuPool, None
        if join is not None:
            # Its nodes join the on-prem cluster: a join secret its role reads, no alarm scaling.
            secret = pool_secret_name(prefix, pool_name)
            join_secret(
                f"{prefix}-pool-{pool_name}",
                secret=secret,
                pool=pool_name,
                region=plan.region,
                account=account,
                key_id=key.key_id,
                role_name=identity.role_name,
                tags={**args.tags, "gpufleet:pool": pool_name},
                opts=child,
            )
            pool_class, join_user_data = JoinedAlicloudGpuPool, alicloud_join_data(join, secret, plan.region)
        built = pool_class(
            f"{prefix}-pool-{pool_name}",
            AlicloudPoolArgs(
                pool=pool_name,
                name_prefix=prefix,
                region=plan.region,
                instance_types=pool.instance_types,
                min_size=pool.size.min,
                max_size=pool.size.max,
                vswitch_ids=network.vswitch_ids,
                security_group_id=network.security_group_id,
                role_name=identity.role_name,
                key_id=key.key_id,
                image_id=pool.image.id if pool.image is not None and pool.image.id else image,
                image_arch=pool.image.named_arch if pool.image is not None else DEFAULT_IMAGE_ARCH,
                queue_name=queue_name,
                tags={**args.tags, **scaler_tags(join)},
                spot_percent=pool.spot_percent,
                on_demand_base=pool.on_demand_base,
                disk_gib=pool.disk_gib,
                rules=_rules(pool),
                queue_visibility_s=pool.queue.visibility_timeout_s,
                off_hours=off_hours,
                workload=WorkloadContext(workload=workload, queue_name=queue_name, region=plan.region)
                if workload is not None
                else None,
                gate=custom_gate,
                account_id=account,
                join_user_data=join_user_data,
            ),
            opts=child,
        )
        return PoolOutputs(groups=[built.group_id], queue=built.queue_name, role=identity.role_arn)


# What :data:`gpufleet.components.sites.SITES` builds this cloud's sites with.
SITE: SiteFactory = AlicloudSite
