"""AwsSite: the fleet on AWS, built from the site plan the fleet hands it.

The home site (``aws:region``) builds the fleet's AWS presence: the key, checkpoint bucket, trail,
budget and account plan of the home region and its pools, one :class:`RegionalSite` per other AWS region
the fleet reaches (a pool's ``region``, ``storage.checkpoints.replicate_to``), and the two-way
checkpoint replication between them. Replication and key replicas join the AWS regions to each other,
so the other AWS sites of the plan are views of what the home site built in their region.

An ``AwsSite`` is a builder, not a component: its children keep the fleet as their parent, so the URNs
of deployed stacks stay what they were before sites existed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pulumi
import pulumi_aws as aws

from gpufleet.components.account.aws import (
    BASELINE_TAG,
    AccountSettings,
    AccountSettingsArgs,
    autoscaling_service_linked_role,
)
from gpufleet.components.audit.aws import FleetAudit, FleetAuditArgs
from gpufleet.components.cost.aws import FleetBudget, FleetBudgetArgs
from gpufleet.components.identity.aws import InstanceIdentityArgs
from gpufleet.components.keys.aws import FleetKey, FleetKeyArgs
from gpufleet.components.network.aws import FleetNetwork, FleetNetworkArgs, interface_endpoint_services
from gpufleet.components.network.onprem import EgressRule
from gpufleet.components.network.zones import zones_for_pools
from gpufleet.components.pools.aws import GpuPool, GpuPoolArgs
from gpufleet.components.pools.userdata import agent_namespace
from gpufleet.components.sites.aws_pools import pool_off_hours, pool_queue, pool_scaling, pool_workload
from gpufleet.components.sites.aws_regional import (
    AccountPlan,
    Home,
    Placement,
    RegionalSite,
    RegionalSiteArgs,
    _agent_logs,
    _pool_types,
    _session_access,
)
from gpufleet.components.sites.base import PoolOutputs, SiteArgs, SiteError, SiteOutputs, SitePlan
from gpufleet.components.spec import RegionNetwork
from gpufleet.components.storage.aws import (
    CheckpointBucket,
    CheckpointBucketArgs,
    CheckpointReplication,
    CheckpointReplicationArgs,
    ReplicatedBucket,
)
from gpufleet.components.tags import current_stack, with_tags

if TYPE_CHECKING:
    from gpufleet.components.pools.burst import Gate
    from gpufleet.components.spec import FleetSpec


class AwsSite:
    """The fleet's AWS presence (home site) or one of its other AWS regions (a view of the home's).

    ``account.baseline`` in-stack also builds the account's once-only resources of every region the
    fleet reaches (:class:`gpufleet.components.account.aws.AccountSettings`, the Session Manager preferences,
    the Auto Scaling service-linked role unless it exists); separate leaves them to the account's
    baseline stack."""

    outputs: SiteOutputs
    # Every AWS region the home site built, by region (the home's own included).
    regions: dict[str, SiteOutputs]

    def __init__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions) -> None:
        del name  # children keep the fleet's names and parent (see the module docstring)
        parent = opts.parent
        if parent is None:
            raise AssertionError("an AWS site is built under its fleet")
        self._parent = parent
        self._child = pulumi.ResourceOptions(parent=parent)
        self.regions = {}
        self._plans: dict[str, SitePlan] = {}
        if args.plan.home:
            self._build(args)
        elif isinstance(args.home, AwsSite):
            self.regions = args.home.regions
        else:
            raise SiteError(f"{args.plan.key}: a second AWS region is built after the AWS home, from it")
        self.outputs = self.regions[args.plan.region]

    # ------------------------------------------------------------------------------------------ home

    def _build(self, args: SiteArgs) -> None:
        name, spec, tags, region = args.fleet, args.spec, dict(args.tags), args.plan.region
        byok_material_base64 = args.byok_material_base64
        child = self._child
        self._plans = {plan.region: plan for plan in (args.plan, *args.peers)}
        located = {pool: plan.region for plan in (args.plan, *args.peers) for pool in plan.pools}
        aws_pools = {pool: located[pool] for pool in spec.pools if pool in located}
        checkpoints = spec.storage.checkpoints
        material = checkpoints.material
        invoke = pulumi.InvokeOutputOptions(parent=self._parent)
        caller = aws.get_caller_identity_output(opts=invoke)
        partition = aws.get_partition_output(opts=invoke).partition
        account_id = caller.account_id
        replica_region = checkpoints.replicate_to
        peers = {peer.region: peer for peer in args.peers}
        other_regions = sorted(peers)
        account = self._account_plan(name, spec, tags)

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
                alert_emails=list(spec.budget.alert_emails),
                stack=current_stack(),
                activate_stack_tag=spec.budget.activate_stack_tag,
                account_id=account_id,
                kms_key_arn=key.key_arn,
                tags=tags,
            ),
            opts=child,
        )
        sites: dict[str, RegionalSite] = {}
        if material == "pending":
            # Nothing may use a key before its material is in: the first deploy builds the keys (and
            # the budget) only.
            keys = Home(name, spec, account_id, partition, key, None, region, account)
            for site_region in other_regions:
                sites[site_region] = self._site(keys, site_region, keys_only=True)
            self._finish(region, key, storage=None, budget=budget, placement=None, sites=sites, pools={})
            return

        if account.in_stack:
            AccountSettings(
                f"{name}-account",
                AccountSettingsArgs(
                    region=region,
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
                # A multi-region trail is account-wide: with a separate baseline the baseline stack
                # owns it, and another per fleet would be a paid copy of the same events (and count
                # against CloudTrail's five trails per region).
                trail=spec.audit.trail and account.in_stack,
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
                args.plan,
                tags=tags,
                pools=aws_pools,
                bucket_arn=storage.bucket_arn,
                partition=partition,
            )
            session_logs, session_key = _session_access(
                account,
                self._parent,
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
                metric_namespace=agent_namespace(current_stack()),
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
                network=_region_network(peers[site_region]),
                pool_types=_pool_types(spec, aws_pools, site_region),
                onprem_egress=peers[site_region].onprem_egress,
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

        pools: dict[str, tuple[str, PoolOutputs]] = {}
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
                    scaling=pool_scaling(pool),
                    off_hours=pool_off_hours(spec, pool_name, pool),
                    disk_gib=pool.disk_gib,
                    image_id=pool.image.image_id if pool.image is not None else None,
                    subnet_ids=where.network.subnet_ids,
                    security_group_id=where.network.security_group_id,
                    identity=where.identity,
                    workload=pool_workload(pool),
                    stack=current_stack(),
                    queue=pool_queue(pool),
                    agent_log_group_name=where.audit.agent_log_group_name,
                    kms_key_arn=where.key.key_arn,
                    tags=tags,
                    region=pool_region,
                    gate=_enforced(args.burst_gates.get(pool_name)),
                ),
                opts=child,
            )
            outputs = PoolOutputs(groups=[group.asg_name], queue=group.queue_name, role=group.role_arn)
            pools[pool_name] = (pool_region, outputs)
        self._finish(
            region,
            key,
            storage=storage,
            budget=budget,
            placement=placements.get(region),
            sites=sites,
            pools=pools,
        )

    def _finish(
        self,
        region: str,
        key: FleetKey,
        *,
        storage: CheckpointBucket | None,
        budget: FleetBudget,
        placement: Placement | None,
        sites: Mapping[str, RegionalSite],
        pools: Mapping[str, tuple[str, PoolOutputs]],
    ) -> None:
        def here(where: str) -> dict[str, PoolOutputs]:
            return {name: outputs for name, (pool_region, outputs) in pools.items() if pool_region == where}

        self.regions[region] = _outputs(
            self._plans[region], key, storage, placement, here(region), budget_name=budget.budget_name
        )
        for site_region, site in sites.items():
            self.regions[site_region] = _outputs(
                self._plans[site_region], site.key, site.storage, site.placement, here(site_region)
            )

    def _account_plan(self, name: str, spec: FleetSpec, tags: dict[str, str]) -> AccountPlan:
        if spec.account.baseline == "separate":
            return AccountPlan(in_stack=False)
        singleton_tags = with_tags(tags, **{BASELINE_TAG: name})
        principals: list[pulumi.Resource] = []
        if spec.account.creates_service_linked_roles:
            principals.append(autoscaling_service_linked_role(name, singleton_tags, self._child))
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
        pool_types: list[list[str]] | None = None,
        onprem_egress: tuple[EgressRule, ...] = (),
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
                pool_types=pool_types or [],
                key_material_base64=byok_material_base64,
                material_imported=home.spec.storage.checkpoints.material == "imported",
                account=home.account,
                keys_only=keys_only,
                onprem_egress=onprem_egress,
            ),
            opts=self._child,
        )

    def _network(
        self,
        name: str,
        spec: FleetSpec,
        plan: SitePlan,
        *,
        tags: dict[str, str],
        pools: dict[str, str],
        bucket_arn: pulumi.Input[str],
        partition: pulumi.Input[str],
    ) -> FleetNetwork:
        """The home region's network: the plan's existing subnets, or a new VPC of the plan's range (the
        spec's site plan refuses a way out built into existing subnets)."""
        region, egress = plan.region, spec.network.egress
        if plan.subnet_ids:
            args = FleetNetworkArgs(region=region, tags=tags, subnet_ids=list(plan.subnet_ids))
        else:
            zones = zones_for_pools(
                self._parent,
                region,
                plan.availability_zones,
                _pool_types(spec, pools, region),
                endpoint_services=interface_endpoint_services(egress),
            )
            args = FleetNetworkArgs(
                region=region,
                tags=tags,
                vpc_cidr=str(plan.vpc_cidr),
                availability_zones=zones,
                egress=egress,
                bucket_arns=[bucket_arn],
                partition=partition,
                onprem_egress=plan.onprem_egress,
            )
        return FleetNetwork(f"{name}-network", args, opts=self._child)


def _outputs(
    plan: SitePlan,
    key: FleetKey,
    storage: CheckpointBucket | None,
    placement: Placement | None,
    pools: dict[str, PoolOutputs],
    *,
    budget_name: pulumi.Output[str] | None = None,
) -> SiteOutputs:
    """One AWS region as the fleet sees it. ``key_id`` is the key's ARN (what AWS policies name)."""
    network = placement.network if placement is not None else None
    return SiteOutputs(
        cloud="aws",
        region=plan.region,
        currency="USD",
        key_id=key.key_arn,
        bucket_name=storage.bucket_name if storage is not None else None,
        vpc_id=network.vpc_id if network is not None else None,
        vpc_cidr=plan.vpc_cidr if network is not None else None,
        route_table_ids=network.route_table_ids if network is not None else None,
        route_table_count=network.route_table_count if network is not None else None,
        pools=pools,
        budget_name=budget_name,
    )


def _region_network(plan: SitePlan) -> RegionNetwork | None:
    """The network of a second region where pools run (the spec's ``network.regions`` entry)."""
    if not plan.pools or plan.vpc_cidr is None:
        return None
    return RegionNetwork(
        vpc_cidr=ipaddress.IPv4Network(plan.vpc_cidr), availability_zones=plan.availability_zones
    )


def _enforced(gate: Gate | None) -> Gate | None:
    """The burst order's gate where AWS enforces it (metric-math alarms); None scales as before."""
    return gate if gate is not None and gate.enforcement == "metric-math" else None
