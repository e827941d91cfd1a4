"""HybridGpuFleet: every concern of one fleet, composed from one FleetSpec.

The stack's ``aws:region`` is the fleet's home: its key, checkpoint bucket, trail, budget and the
pools that name no other region live there. Each other region the fleet reaches (a pool's ``region``,
``storage.checkpoints.replicate_to``) gets one :class:`RegionalSite`: that region's key, its copy of
the checkpoints, and, where pools run, its own private network and encrypted logs (each pool builds
its own instance role from what the region's site says it may read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pulumi
import pulumi_aws as aws

from components.account.aws import (
    BASELINE_TAG,
    AccountSettings,
    AccountSettingsArgs,
    autoscaling_service_linked_role,
    baseline_key_alias,
    session_log_group_arn,
)
from components.audit.aws import FleetAudit, FleetAuditArgs
from components.cost.aws import FleetBudget, FleetBudgetArgs
from components.identity.aws import InstanceIdentityArgs
from components.keys.aws import FleetKey, FleetKeyArgs
from components.network.aws import FleetNetwork, FleetNetworkArgs, interface_endpoint_services
from components.network.zones import zones_for_pools
from components.pools.aws import GpuPool, GpuPoolArgs, OffHours
from components.pools.queue import ExistingQueue, NewQueue, QueueSource
from components.pools.scaling import ScalingRules
from components.pools.workload import ContainerWorkload, ScriptWorkload, Workload
from components.storage.aws import (
    AWS_REGION_RE,
    CheckpointBucket,
    CheckpointBucketArgs,
    CheckpointReplication,
    CheckpointReplicationArgs,
    ReplicatedBucket,
)
from components.tags import STACK_TAG, current_stack, with_tags

if TYPE_CHECKING:
    from components.spec import FleetSpec, Pool, RegionNetwork

SUPPORTED_CLOUDS = ("aws",)


class FleetError(Exception):
    """The spec asks for something this version of the fleet cannot build."""


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
        return ExistingQueue(name=queue.name, arn=queue.arn, kms_key_arn=queue.kms_key_arn)
    return NewQueue(visibility_timeout_s=queue.visibility_timeout_s, max_receives=queue.max_receives)


def _workload(pool: Pool) -> Workload | None:
    workload = pool.workload
    if workload is None:
        return None
    if workload.container is not None:
        container = workload.container
        return ContainerWorkload(image=container.image, command=container.command or (), env=container.env)
    if workload.user_data is None:  # PoolWorkload holds exactly one
        raise AssertionError("workload without user_data or container")
    return ScriptWorkload(user_data=workload.user_data)


def _workload_problems(spec: FleetSpec, pools: dict[str, str]) -> list[str]:
    """An ECR image in another region than its pool: the pool's ECR endpoints serve their own region."""
    problems = []
    for pool_name, pool_region in sorted(pools.items()):
        workload = _workload(spec.pools[pool_name])
        if not isinstance(workload, ContainerWorkload) or workload.ecr is None or spec.network.subnet_ids:
            continue
        if spec.network.egress == "endpoints" and workload.ecr.region != pool_region:
            problems.append(
                f"pools.{pool_name}.workload.container.image: is in ECR in {workload.ecr.region} but the "
                f"pool runs in {pool_region}, whose ECR endpoints reach only {pool_region}'s registry: "
                f"replicate the repository to {pool_region} (ECR replication) or set network.egress: nat"
            )
    return problems


@dataclass(frozen=True)
class Placement:
    """What a pool needs from the region it runs in."""

    network: FleetNetwork
    identity: InstanceIdentityArgs  # each pool builds its own role from these
    audit: FleetAudit
    key: FleetKey


@dataclass(frozen=True, kw_only=True)
class AccountPlan:
    """What the fleet makes of the account's once-only resources (``account`` in the spec).

    ``in_stack``: this fleet owns the Session Manager preferences and the account settings of the
    regions it reaches. ``key_principals``: the resources creating principals that key policies name
    (the Auto Scaling service-linked role, when this stack creates it)."""

    in_stack: bool
    key_principals: Sequence[pulumi.Resource] = ()
    singleton_tags: dict[str, str] | None = None


@dataclass(frozen=True)
class Home:
    """What every other region's site takes from the home region."""

    fleet: str
    spec: FleetSpec
    account_id: pulumi.Input[str]
    partition: pulumi.Input[str]
    key: FleetKey
    storage: CheckpointBucket | None
    region: str
    account: AccountPlan


def _session_access(
    plan: AccountPlan,
    parent: pulumi.Resource,
    *,
    audit: FleetAudit,
    key: FleetKey,
    region: str,
    account_id: pulumi.Input[str],
    partition: pulumi.Input[str],
) -> tuple[pulumi.Input[str], pulumi.Input[str]]:
    """The session log group and session key of ``region``: the fleet's own in-stack, else the
    account baseline's, found by their fixed names."""
    if plan.in_stack and audit.session_log_group_arn is not None:
        return audit.session_log_group_arn, key.key_arn
    baseline_key = aws.kms.get_alias_output(
        name=baseline_key_alias(region), region=region, opts=pulumi.InvokeOutputOptions(parent=parent)
    ).target_key_arn
    return session_log_group_arn(partition, region, account_id), baseline_key


def _agent_logs(audit: FleetAudit) -> pulumi.Output[str]:
    if audit.agent_log_group_arn is None:  # fleets always build it (FleetAuditArgs.agent_logs)
        raise AssertionError("the fleet's audit has no agent log group")
    return audit.agent_log_group_arn


def _pool_types(spec: FleetSpec, pools: dict[str, str], region: str) -> list[list[str]]:
    return [list(spec.pools[name].instance_types) for name, where in sorted(pools.items()) if where == region]


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
    home_region: str
    replicate_here: bool = False
    network: RegionNetwork | None = None
    pool_types: Sequence[Sequence[str]] = ()
    key_material_base64: pulumi.Input[str] | None = None
    material_imported: bool = False
    account: AccountPlan = AccountPlan(in_stack=True)
    keys_only: bool = False

    def __post_init__(self) -> None:
        problems = []
        if not AWS_REGION_RE.match(self.region):
            problems.append(f"region: {self.region!r} is not an AWS region name like us-west-2")
        if self.network is not None and not self.pool_types:
            problems.append("pool_types: a site with a network runs pools; give their instance types")
        if not self.keys_only and not self.replicate_here and self.network is None:
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
    already), and the grants its pools' own roles get (:attr:`Placement.identity`): the bucket in
    this region when there is one."""

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
        self.placement = None
        if args.keys_only:
            self.register_outputs({"key_arn": self.key.key_arn})
            return
        if args.account.in_stack:
            AccountSettings(
                f"{name}-account",
                AccountSettingsArgs(
                    region=args.region,
                    ebs_kms_key_arn=None if self.key.byok else self.key.key_arn,
                ),
                opts=child,
            )
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
        if args.network is not None:
            # Pools read the copy in their own region when there is one (no cross-region transfer);
            # otherwise the home bucket, which only the home key decrypts.
            bucket_arn, bucket_key_arn, bucket_region = (
                (self.storage.bucket_arn, self.key.key_arn, args.region)
                if self.storage is not None
                else (args.home_bucket_arn, args.home_key_arn, args.home_region)
            )
            network = FleetNetwork(
                f"{name}-network",
                FleetNetworkArgs(
                    region=args.region,
                    tags=tags,
                    vpc_cidr=str(args.network.vpc_cidr),
                    availability_zones=zones_for_pools(
                        self, args.region, args.network.availability_zones, args.pool_types
                    ),
                    egress=spec.network.egress,
                    bucket_arns=[bucket_arn],
                    partition=args.partition,
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
                    session_manager=args.account.in_stack,
                    singleton_tags=args.account.singleton_tags or {},
                ),
                opts=child,
            )
            session_logs, session_key = _session_access(
                args.account,
                self,
                audit=audit,
                key=self.key,
                region=args.region,
                account_id=args.account_id,
                partition=args.partition,
            )
            identity = InstanceIdentityArgs(
                bucket_arn=bucket_arn,
                bucket_region=bucket_region,
                kms_key_arns=[bucket_key_arn],
                session_kms_key_arns=[session_key],
                log_group_arns=[_agent_logs(audit), session_logs],
                tags=tags,
                data_prefix=spec.storage.data_prefix,
                checkpoint_prefix=spec.storage.checkpoint_prefix,
                partition=args.partition,
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
                log_group_prefix=f"/gpufleet/{args.fleet}/",
                principals_created_by=args.account.key_principals,
                key_material_base64=args.key_material_base64 if encryption == "byok" else None,
                material_imported=encryption == "byok" and args.material_imported,
            ),
            opts=opts,
        )


class HybridGpuFleet(pulumi.ComponentResource):
    """The fleet's key, checkpoint bucket, audit trail and logs, budget, and for its AWS pools the
    private network and one GpuPool per pool (each with its own instance role); one RegionalSite per
    other region, and two-way checkpoint replication when ``storage.checkpoints.replicate_to`` is set.

    ``account.baseline`` in-stack also builds the account's once-only resources of every region the
    fleet reaches (:class:`components.account.aws.AccountSettings`, the Session Manager preferences,
    the Auto Scaling service-linked role unless it exists); separate leaves them to the account's
    baseline stack. With BYOK material ``pending`` only the keys are built (see docs/first-deploy.md);
    with ``config`` the material comes in ``byok_material_base64`` (a secret)."""

    bucket_name: pulumi.Output[str] | None
    key_arn: pulumi.Output[str]
    pool_asg_names: pulumi.Output[dict[str, str]]
    pool_queue_names: pulumi.Output[dict[str, str]]
    pool_role_arns: pulumi.Output[dict[str, str]]
    budget_name: pulumi.Output[str]
    replica_bucket_name: pulumi.Output[str] | None
    regional_key_arns: pulumi.Output[dict[str, str]]
    keys_pending_import: bool

    def __init__(
        self,
        name: str,
        spec: FleetSpec,
        opts: pulumi.ResourceOptions | None = None,
        *,
        byok_material_base64: pulumi.Input[str] | None = None,
    ) -> None:
        super().__init__("gpufleet:fleet:HybridGpuFleet", name, None, opts)
        region = aws.config.region
        if not region:
            raise FleetError("set aws:region in the stack's config: the fleet needs a home region")
        aws_pools = self._aws_pools(spec, region)
        checkpoints = spec.storage.checkpoints
        material = checkpoints.material
        if material == "config" and byok_material_base64 is None:
            raise FleetError(
                "storage.checkpoints.byok_material: config needs the key material as a secret: "
                "pulumi config set --secret gpufleet:byokMaterial <base64 of the 256-bit key>"
            )
        if material != "config" and byok_material_base64 is not None:
            raise FleetError(
                "gpufleet:byokMaterial is set but storage.checkpoints.byok_material is not config: remove "
                "the secret or set byok_material: config"
            )
        child = pulumi.ResourceOptions(parent=self)
        caller = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self))
        partition = aws.get_partition_output(opts=pulumi.InvokeOutputOptions(parent=self)).partition
        account_id = caller.account_id
        tags = {**spec.cost_tags, STACK_TAG: current_stack()}
        replica_region = checkpoints.replicate_to
        pool_regions = {r for r in aws_pools.values() if r != region}
        other_regions = sorted(pool_regions | ({replica_region} if replica_region else set()))
        account = self._account_plan(name, spec, tags)
        self.keys_pending_import = material == "pending"

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
                log_group_prefix=f"/gpufleet/{name}/",
                principals_created_by=account.key_principals,
                key_material_base64=byok_material_base64,
                material_imported=checkpoints.encryption == "byok" and material == "imported",
            ),
            opts=child,
        )
        # The budget watches spend from the first deploy on. Its alert topic names the key without
        # using it until an alert is published, so it is created while BYOK material is pending
        # (alerts published before the import fail; see docs/first-deploy.md).
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
        sites: dict[str, RegionalSite] = {}
        self.key_arn = key.key_arn
        self.budget_name = budget.budget_name
        self.replica_bucket_name = None
        if self.keys_pending_import:
            # Nothing may use a key before its material is in: the first deploy builds the keys (and
            # the budget) only.
            keys = Home(name, spec, account_id, partition, key, None, region, account)
            for site_region in other_regions:
                sites[site_region] = self._site(keys, site_region, keys_only=True)
            self.bucket_name = None
            self.pool_asg_names = pulumi.Output.from_input({})
            self.pool_queue_names = pulumi.Output.from_input({})
            self.pool_role_arns = pulumi.Output.from_input({})
            self._finish(region, key, sites)
            return

        if account.in_stack:
            AccountSettings(
                f"{name}-account",
                AccountSettingsArgs(
                    region=region,
                    ebs_kms_key_arn=None if key.byok else key.key_arn,
                    account_wide=True,
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
                session_manager=account.in_stack,
                singleton_tags=account.singleton_tags or {},
            ),
            opts=child,
        )

        placements: dict[str, Placement] = {}
        if region in aws_pools.values():
            network = self._network(
                name,
                spec,
                region=region,
                tags=tags,
                pools=aws_pools,
                bucket_arn=storage.bucket_arn,
                partition=partition,
            )
            session_logs, session_key = _session_access(
                account,
                self,
                audit=audit,
                key=key,
                region=region,
                account_id=account_id,
                partition=partition,
            )
            identity = InstanceIdentityArgs(
                bucket_arn=storage.bucket_arn,
                bucket_region=region,
                kms_key_arns=[key.key_arn],
                session_kms_key_arns=[session_key],
                log_group_arns=[_agent_logs(audit), session_logs],
                tags=tags,
                data_prefix=spec.storage.data_prefix,
                checkpoint_prefix=spec.storage.checkpoint_prefix,
                partition=partition,
            )
            placements[region] = Placement(network, identity, audit, key)

        home = Home(name, spec, account_id, partition, key, storage, region, account)
        for site_region in other_regions:
            sites[site_region] = self._site(
                home,
                site_region,
                byok_material_base64=byok_material_base64,
                replicate_here=site_region == replica_region,
                network=spec.network.regions.get(site_region) if site_region in pool_regions else None,
                pool_types=_pool_types(spec, aws_pools, site_region),
            )
            placement = sites[site_region].placement
            if placement is not None:
                placements[site_region] = placement

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
                    account_id=account_id,
                ),
                opts=child,
            )
            self.replica_bucket_name = replica.storage.bucket_name

        asg_names: dict[str, pulumi.Output[str]] = {}
        queue_names: dict[str, pulumi.Output[str]] = {}
        role_arns: dict[str, pulumi.Output[str]] = {}
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
                    image_id=pool.image.image_id if pool.image is not None else None,
                    subnet_ids=where.network.subnet_ids,
                    security_group_id=where.network.security_group_id,
                    identity=where.identity,
                    workload=_workload(pool),
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
            if group.role_arn is not None:
                role_arns[pool_name] = group.role_arn

        self.bucket_name = storage.bucket_name
        self.pool_asg_names = pulumi.Output.all(**asg_names) if asg_names else pulumi.Output.from_input({})
        self.pool_queue_names = (
            pulumi.Output.all(**queue_names) if queue_names else pulumi.Output.from_input({})
        )
        self.pool_role_arns = pulumi.Output.all(**role_arns) if role_arns else pulumi.Output.from_input({})
        self._finish(region, key, sites)

    def _finish(self, region: str, key: FleetKey, sites: dict[str, RegionalSite]) -> None:
        self.regional_key_arns = pulumi.Output.all(
            **{region: key.key_arn, **{r: site.key.key_arn for r, site in sites.items()}}
        )
        self.register_outputs(
            {
                "bucket_name": self.bucket_name,
                "key_arn": self.key_arn,
                "pool_asg_names": self.pool_asg_names,
                "pool_queue_names": self.pool_queue_names,
                "pool_role_arns": self.pool_role_arns,
                "budget_name": self.budget_name,
                "replica_bucket_name": self.replica_bucket_name,
                "regional_key_arns": self.regional_key_arns,
            }
        )

    def _account_plan(self, name: str, spec: FleetSpec, tags: dict[str, str]) -> AccountPlan:
        if spec.account.baseline == "separate":
            return AccountPlan(in_stack=False)
        singleton_tags = with_tags(tags, **{BASELINE_TAG: name})
        principals: list[pulumi.Resource] = []
        if spec.account.creates_service_linked_roles:
            principals.append(
                autoscaling_service_linked_role(name, singleton_tags, pulumi.ResourceOptions(parent=self))
            )
        return AccountPlan(in_stack=True, key_principals=principals, singleton_tags=singleton_tags)

    def _site(
        self,
        home: Home,
        site_region: str,
        *,
        keys_only: bool = False,
        byok_material_base64: pulumi.Input[str] | None = None,
        replicate_here: bool = False,
        network: RegionNetwork | None = None,
        pool_types: Sequence[Sequence[str]] = (),
    ) -> RegionalSite:
        return RegionalSite(
            f"{home.fleet}-{site_region}",
            RegionalSiteArgs(
                fleet=home.fleet,
                region=site_region,
                spec=home.spec,
                account_id=home.account_id,
                partition=home.partition,
                home_key_arn=home.key.key_arn,
                home_bucket_arn=home.storage.bucket_arn if home.storage is not None else "",
                home_region=home.region,
                replicate_here=replicate_here,
                network=network,
                pool_types=pool_types,
                key_material_base64=byok_material_base64,
                material_imported=home.spec.storage.checkpoints.material == "imported",
                account=home.account,
                keys_only=keys_only,
            ),
            opts=pulumi.ResourceOptions(parent=self),
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
        problems.extend(_workload_problems(spec, pools))
        if problems:
            raise FleetError("\n".join(problems))
        return pools

    def _network(
        self,
        name: str,
        spec: FleetSpec,
        *,
        region: str,
        tags: dict[str, str],
        pools: dict[str, str],
        bucket_arn: pulumi.Input[str],
        partition: pulumi.Input[str],
    ) -> FleetNetwork:
        net = spec.network
        if net.subnet_ids:
            if net.egress != "none":
                raise FleetError(
                    f"network.egress: {net.egress} builds endpoints or a NAT gateway in a network the fleet "
                    "creates; with network.subnet_ids the existing network brings its own way out: use none"
                )
            args = FleetNetworkArgs(region=region, tags=tags, subnet_ids=list(net.subnet_ids))
        else:
            zones = zones_for_pools(
                self,
                region,
                net.availability_zones,
                _pool_types(spec, pools, region),
                endpoint_services=interface_endpoint_services(net.egress),
            )
            args = FleetNetworkArgs(
                region=region,
                tags=tags,
                vpc_cidr=str(net.vpc_cidr),
                availability_zones=zones,
                egress=net.egress,
                bucket_arns=[bucket_arn],
                partition=partition,
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
