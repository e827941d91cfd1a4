"""HybridGpuFleet: every concern of one fleet, composed from one FleetSpec.

The stack's ``aws:region`` is the fleet's home: its key, checkpoint bucket, trail, budget and the
pools that name no other region live there. Each other region the fleet reaches (a pool's ``region``,
``storage.checkpoints.replicate_to``) gets one :class:`RegionalSite`: that region's key, its copy of
the checkpoints, and, where pools run, its own private network, encrypted logs and instance role.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pulumi
import pulumi_aws as aws

from components.audit.aws import FleetAudit, FleetAuditArgs
from components.cost.aws import FleetBudget, FleetBudgetArgs
from components.identity.aws import InstanceIdentity, InstanceIdentityArgs
from components.keys.aws import FleetKey, FleetKeyArgs
from components.network.aws import FleetNetwork, FleetNetworkArgs
from components.pools.aws import GpuPool, GpuPoolArgs, OffHours
from components.pools.queue import ExistingQueue, NewQueue, QueueSource
from components.pools.scaling import ScalingRules
from components.storage.aws import (
    AWS_REGION_RE,
    CheckpointBucket,
    CheckpointBucketArgs,
    CheckpointReplication,
    CheckpointReplicationArgs,
    ReplicatedBucket,
)
from components.tags import STACK_TAG, current_stack

if TYPE_CHECKING:
    from components.spec import FleetSpec, Pool, RegionNetwork

SUPPORTED_CLOUDS = ("aws",)


class FleetError(Exception):
    """The spec asks for something this version of the fleet cannot build."""


def _zone(names: list[str], index: int, region: str) -> str:
    # The offline engine may answer with fewer zones than asked for; a real account never does.
    return names[index] if index < len(names) else f"{region}{'abcdef'[index]}"


def _zone_at(names: pulumi.Output[list[str]], index: int, region: str) -> pulumi.Output[str]:
    return names.apply(lambda resolved: _zone(resolved, index, region))


def _zones(parent: pulumi.Resource, region: str, count: int) -> list[pulumi.Output[str]]:
    names = aws.get_availability_zones_output(
        state="available", region=region, opts=pulumi.InvokeOutputOptions(parent=parent)
    ).names
    return [_zone_at(names, index, region) for index in range(count)]


def _scaling(pool: Pool) -> ScalingRules:
    rules = pool.scaling
    return ScalingRules(
        gpu_util_out=rules.gpu_util_out,
        out_for_s=rules.out_for_s,
        queue_out=rules.queue_out,
        gpu_util_in=rules.gpu_util_in,
        in_for_s=rules.in_for_s,
        cooldown_s=rules.cooldown_s,
    )


def _queue(pool: Pool) -> QueueSource:
    queue = pool.queue
    if queue.existing:
        return ExistingQueue(name=queue.name, arn=queue.arn)
    return NewQueue(visibility_timeout_s=queue.visibility_timeout_s, max_receives=queue.max_receives)


@dataclass(frozen=True)
class Placement:
    """What a pool needs from the region it runs in."""

    network: FleetNetwork
    identity: InstanceIdentity
    audit: FleetAudit
    key: FleetKey


@dataclass(frozen=True, kw_only=True)
class RegionalSiteArgs:
    """``replicate_here`` puts the checkpoint replica in this region; ``network`` (the region's entry
    of ``network.regions``) is given where pools run here, and builds their network, logs and role."""

    fleet: str
    region: str
    spec: FleetSpec
    account_id: pulumi.Input[str]
    partition: pulumi.Input[str]
    home_key_arn: pulumi.Input[str]
    home_bucket_arn: pulumi.Input[str]
    replicate_here: bool = False
    network: RegionNetwork | None = None

    def __post_init__(self) -> None:
        problems = []
        if not AWS_REGION_RE.match(self.region):
            problems.append(f"region: {self.region!r} is not an AWS region name like us-west-2")
        if not self.replicate_here and self.network is None:
            problems.append("a site holds the checkpoint replica, pools, or both; this one holds neither")
        if problems:
            raise ValueError(f"RegionalSiteArgs({self.region}): " + "; ".join(problems))


class RegionalSite(pulumi.ComponentResource):
    """The fleet's presence in one more region, created once per region whatever uses it.

    Children: ``-key`` (a replica of the home BYOK key, or a new rotating key for sse-kms: see
    :meth:`_key`); with ``replicate_here`` the checkpoint replica ``-storage``, hardened like the
    primary (same classification, lifecycle, versioning, public-access block, TLS-only policy) and
    encrypted with this region's key; with ``network`` a private ``-network`` like the home one, the
    ``-audit`` log groups and Session Manager preferences of this region (the trail is multi-region
    already), and an ``-identity`` whose role reads the bucket in this region when there is one."""

    key: FleetKey
    storage: CheckpointBucket | None
    placement: Placement | None

    def __init__(self, name: str, args: RegionalSiteArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:fleet:RegionalSite", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        spec = args.spec
        tags = {**spec.cost_tags, STACK_TAG: current_stack()}
        checkpoints = spec.storage.checkpoints
        self.key = self._key(name, args, tags, child)
        self.storage = None
        if args.replicate_here:
            self.storage = CheckpointBucket(
                f"{name}-storage",
                CheckpointBucketArgs(
                    kms_key_arn=self.key.key_arn,
                    tags=tags,
                    classification=checkpoints.classification,
                    checkpoint_prefix=spec.storage.checkpoint_prefix,
                    ia_after_days=checkpoints.ia_after_days,
                    expire_after_days=checkpoints.expire_after_days,
                    noncurrent_expire_days=checkpoints.noncurrent_expire_days,
                    region=args.region,
                ),
                opts=child,
            )
        self.placement = None
        if args.network is not None:
            network = FleetNetwork(
                f"{name}-network",
                FleetNetworkArgs(
                    region=args.region,
                    tags=tags,
                    vpc_cidr=str(args.network.vpc_cidr),
                    availability_zones=_zones(self, args.region, args.network.availability_zones),
                ),
                opts=child,
            )
            audit = FleetAudit(
                f"{name}-audit",
                FleetAuditArgs(
                    fleet=args.fleet,
                    kms_key_arn=self.key.key_arn,
                    account_id=args.account_id,
                    region=args.region,
                    partition=args.partition,
                    tags=tags,
                    log_retention_days=spec.audit.log_retention_days,
                    session_log_retention_days=spec.access.session_log_retention_days,
                    trail=False,
                    session_manager=spec.access.session_manager,
                ),
                opts=child,
            )
            # Pools read the copy in their own region when there is one (no cross-region transfer);
            # otherwise the home bucket, which only the home key decrypts.
            bucket_arn, bucket_key_arn = (
                (self.storage.bucket_arn, self.key.key_arn)
                if self.storage is not None
                else (args.home_bucket_arn, args.home_key_arn)
            )
            identity = InstanceIdentity(
                f"{name}-identity",
                InstanceIdentityArgs(
                    bucket_arn=bucket_arn,
                    kms_key_arns=[bucket_key_arn],
                    log_group_arns=[audit.agent_log_group_arn, audit.session_log_group_arn],
                    tags=tags,
                    data_prefix=spec.storage.data_prefix,
                    checkpoint_prefix=spec.storage.checkpoint_prefix,
                    partition=args.partition,
                ),
                opts=child,
            )
            self.placement = Placement(network, identity, audit, self.key)
        outputs: dict[str, pulumi.Input[str] | None] = {
            "key_arn": self.key.key_arn,
            "bucket_name": self.storage.bucket_name if self.storage else None,
        }
        self.register_outputs(outputs)

    @staticmethod
    def _key(
        name: str, args: RegionalSiteArgs, tags: dict[str, str], opts: pulumi.ResourceOptions
    ) -> FleetKey:
        """BYOK: a replica of the home key (``aws.kms.ReplicaExternalKey``), so one key material,
        held by the owner, protects the fleet everywhere and restricted data stays under imported
        material. sse-kms: a new key of this region with yearly rotation rather than a replica of a
        multi-Region primary, because ``multi_region`` is fixed when a key is created (turning an
        existing home key into a primary would replace it and strand what it encrypts), S3
        replication re-encrypts every replica with the destination's key anyway, and an independent
        key keeps a mistake in one region's key policy out of the other."""
        encryption: Literal["sse-kms", "byok"] = args.spec.storage.checkpoints.encryption
        return FleetKey(
            f"{name}-key",
            FleetKeyArgs(
                encryption=encryption,
                account_id=args.account_id,
                region=args.region,
                partition=args.partition,
                tags=tags,
                home=False,
                replica_of=args.home_key_arn if encryption == "byok" else None,
            ),
            opts=opts,
        )


class HybridGpuFleet(pulumi.ComponentResource):
    """The fleet's key, checkpoint bucket, audit trail and logs, budget, and for its AWS pools the
    private network, the instance identity and one GpuPool per pool; one RegionalSite per other
    region, and two-way checkpoint replication when ``storage.checkpoints.replicate_to`` is set."""

    bucket_name: pulumi.Output[str]
    key_arn: pulumi.Output[str]
    pool_asg_names: pulumi.Output[dict[str, str]]
    pool_queue_names: pulumi.Output[dict[str, str]]
    role_arn: pulumi.Output[str] | None
    budget_name: pulumi.Output[str]
    replica_bucket_name: pulumi.Output[str] | None
    regional_key_arns: pulumi.Output[dict[str, str]]

    def __init__(self, name: str, spec: FleetSpec, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:fleet:HybridGpuFleet", name, None, opts)
        region = aws.config.region
        if not region:
            raise FleetError("set aws:region in the stack's config: the fleet needs a home region")
        aws_pools = self._aws_pools(spec, region)
        child = pulumi.ResourceOptions(parent=self)
        caller = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self))
        partition = aws.get_partition_output(opts=pulumi.InvokeOutputOptions(parent=self)).partition
        account_id = caller.account_id
        tags = {**spec.cost_tags, STACK_TAG: current_stack()}
        checkpoints = spec.storage.checkpoints
        replica_region = checkpoints.replicate_to
        pool_regions = {r for r in aws_pools.values() if r != region}
        other_regions = sorted(pool_regions | ({replica_region} if replica_region else set()))

        key = FleetKey(
            f"{name}-key",
            FleetKeyArgs(
                encryption=checkpoints.encryption,
                account_id=account_id,
                region=region,
                partition=partition,
                tags=tags,
                # Second regions replicate the imported key; see RegionalSite._key.
                multi_region=checkpoints.encryption == "byok" and bool(other_regions),
            ),
            opts=child,
        )
        storage = CheckpointBucket(
            f"{name}-storage",
            CheckpointBucketArgs(
                kms_key_arn=key.key_arn,
                tags=tags,
                classification=checkpoints.classification,
                checkpoint_prefix=spec.storage.checkpoint_prefix,
                ia_after_days=checkpoints.ia_after_days,
                expire_after_days=checkpoints.expire_after_days,
                noncurrent_expire_days=checkpoints.noncurrent_expire_days,
                region=region,
            ),
            opts=child,
        )
        audit = FleetAudit(
            f"{name}-audit",
            FleetAuditArgs(
                fleet=name,
                kms_key_arn=key.key_arn,
                account_id=account_id,
                region=region,
                partition=partition,
                tags=tags,
                log_retention_days=spec.audit.log_retention_days,
                session_log_retention_days=spec.access.session_log_retention_days,
                trail=spec.audit.trail,
                session_manager=spec.access.session_manager,
            ),
            opts=child,
        )
        budget = FleetBudget(
            f"{name}-budget",
            FleetBudgetArgs(
                monthly_limit=spec.budget.monthly,
                currency=spec.budget.currency,
                alert_percent=spec.budget.alert_percent,
                stack=current_stack(),
                activate_stack_tag=spec.budget.activate_stack_tag,
                account_id=account_id,
                kms_key_arn=key.key_arn,
                tags=tags,
            ),
            opts=child,
        )

        placements: dict[str, Placement] = {}
        self.role_arn = None
        if region in aws_pools.values():
            network = self._network(name, spec, region, tags)
            identity = InstanceIdentity(
                f"{name}-identity",
                InstanceIdentityArgs(
                    bucket_arn=storage.bucket_arn,
                    kms_key_arns=[key.key_arn],
                    log_group_arns=[audit.agent_log_group_arn, audit.session_log_group_arn],
                    tags=tags,
                    data_prefix=spec.storage.data_prefix,
                    checkpoint_prefix=spec.storage.checkpoint_prefix,
                    partition=partition,
                ),
                opts=child,
            )
            self.role_arn = identity.role_arn
            placements[region] = Placement(network, identity, audit, key)

        sites: dict[str, RegionalSite] = {}
        for site_region in other_regions:
            sites[site_region] = RegionalSite(
                f"{name}-{site_region}",
                RegionalSiteArgs(
                    fleet=name,
                    region=site_region,
                    spec=spec,
                    account_id=account_id,
                    partition=partition,
                    home_key_arn=key.key_arn,
                    home_bucket_arn=storage.bucket_arn,
                    replicate_here=site_region == replica_region,
                    network=spec.network.regions.get(site_region) if site_region in pool_regions else None,
                ),
                opts=child,
            )
            placement = sites[site_region].placement
            if placement is not None:
                placements[site_region] = placement

        self.replica_bucket_name = None
        if replica_region:
            replica = sites[replica_region]
            if replica.storage is None:  # RegionalSiteArgs(replicate_here=True) always builds it
                raise AssertionError(replica_region)
            CheckpointReplication(
                f"{name}-replication",
                CheckpointReplicationArgs(
                    primary=ReplicatedBucket(bucket=storage, kms_key_arn=key.key_arn, region=region),
                    replica=ReplicatedBucket(
                        bucket=replica.storage, kms_key_arn=replica.key.key_arn, region=replica_region
                    ),
                    tags=tags,
                ),
                opts=child,
            )
            self.replica_bucket_name = replica.storage.bucket_name

        asg_names: dict[str, pulumi.Output[str]] = {}
        queue_names: dict[str, pulumi.Output[str]] = {}
        for pool_name, pool_region in aws_pools.items():
            pool = spec.pools[pool_name]
            where = placements[pool_region]
            group = GpuPool(
                f"{name}-pool-{pool_name}",
                GpuPoolArgs(
                    pool=pool_name,
                    instance_types=list(pool.instance_types),
                    min_size=pool.size.min,
                    max_size=pool.size.max,
                    spot_percent=pool.spot_percent,
                    on_demand_base=pool.on_demand_base,
                    scaling=_scaling(pool),
                    off_hours=self._off_hours(spec, pool_name, pool),
                    disk_gib=pool.disk_gib,
                    subnet_ids=where.network.subnet_ids,
                    security_group_id=where.network.security_group_id,
                    instance_profile_arn=where.identity.instance_profile_arn,
                    role_name=where.identity.role_name,
                    stack=current_stack(),
                    queue=_queue(pool),
                    agent_log_group_name=where.audit.agent_log_group_name,
                    kms_key_arn=where.key.key_arn,
                    tags=tags,
                    region=pool_region,
                ),
                opts=child,
            )
            asg_names[pool_name] = group.asg_name
            queue_names[pool_name] = group.queue_name

        self.bucket_name = storage.bucket_name
        self.key_arn = key.key_arn
        self.budget_name = budget.budget_name
        self.pool_asg_names = pulumi.Output.all(**asg_names) if asg_names else pulumi.Output.from_input({})
        self.pool_queue_names = (
            pulumi.Output.all(**queue_names) if queue_names else pulumi.Output.from_input({})
        )
        self.regional_key_arns = pulumi.Output.all(
            **{region: key.key_arn, **{r: site.key.key_arn for r, site in sites.items()}}
        )
        self.register_outputs(
            {
                "bucket_name": self.bucket_name,
                "key_arn": self.key_arn,
                "pool_asg_names": self.pool_asg_names,
                "pool_queue_names": self.pool_queue_names,
                "role_arn": self.role_arn,
                "budget_name": self.budget_name,
                "replica_bucket_name": self.replica_bucket_name,
                "regional_key_arns": self.regional_key_arns,
            }
        )

    @staticmethod
    def _aws_pools(spec: FleetSpec, region: str) -> dict[str, str]:
        """Each AWS pool's region; every problem with pools, replication and regional networks at once."""
        problems: list[str] = []
        pools: dict[str, str] = {}
        for pool_name, pool in spec.pools.items():
            if pool.cloud not in SUPPORTED_CLOUDS:
                problems.append(f"pools.{pool_name}: pools on {pool.cloud} are not supported yet")
                continue
            pool_region = spec.pool_region(pool_name, region)
            if not AWS_REGION_RE.match(pool_region):
                problems.append(
                    f"pools.{pool_name}.region: {pool_region!r} is not an AWS region name like us-west-2"
                )
                continue
            if pool_region != region and pool_region not in spec.network.regions:
                problems.append(
                    f"pools.{pool_name}.region: {pool_region} differs from the stack's aws:region {region} "
                    f"and needs its own network: add network.regions.{pool_region}.vpc_cidr, a range that "
                    "overlaps none of the fleet's others"
                )
                continue
            pools[pool_name] = pool_region
        replica = spec.storage.checkpoints.replicate_to
        if replica is not None:
            if not AWS_REGION_RE.match(replica):
                problems.append(
                    f"storage.checkpoints.replicate_to: {replica!r} is not an AWS region name like us-west-2"
                )
            elif replica == region:
                problems.append(
                    f"storage.checkpoints.replicate_to: {replica} is the stack's own aws:region; the "
                    "replica must be in a second region to survive a regional outage"
                )
        used = {spec.pool_region(n, region) for n, p in spec.pools.items() if p.cloud in SUPPORTED_CLOUDS}
        for network_region in spec.network.regions:
            if network_region == region:
                problems.append(
                    f"network.regions.{network_region}: this is the stack's own aws:region, whose network "
                    "is network.vpc_cidr; remove the entry"
                )
            elif network_region not in used:
                problems.append(
                    f"network.regions.{network_region}: no pool runs in {network_region}; remove the entry "
                    "or add a pool with that region"
                )
        if problems:
            raise FleetError("\n".join(problems))
        return pools

    def _network(self, name: str, spec: FleetSpec, region: str, tags: dict[str, str]) -> FleetNetwork:
        net = spec.network
        if net.subnet_ids:
            args = FleetNetworkArgs(region=region, tags=tags, subnet_ids=list(net.subnet_ids))
        else:
            zones: Sequence[pulumi.Input[str]] = _zones(self, region, net.availability_zones)
            args = FleetNetworkArgs(
                region=region, tags=tags, vpc_cidr=str(net.vpc_cidr), availability_zones=zones
            )
        return FleetNetwork(f"{name}-network", args, opts=pulumi.ResourceOptions(parent=self))

    @staticmethod
    def _off_hours(spec: FleetSpec, pool_name: str, pool: Pool) -> OffHours | None:
        if pool.off_hours is None:
            return None
        if spec.environment == "prod":
            # Production capacity is never switched off by a timetable; scale-in still applies.
            pulumi.log.warn(f"pools.{pool_name}.off_hours is ignored in prod")
            return None
        hours = pool.off_hours
        return OffHours(timezone=hours.timezone, stop_cron=hours.stop_cron, start_cron=hours.start_cron)
