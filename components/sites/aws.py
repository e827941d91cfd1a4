"""AwsSite: the fleet on AWS, one site component per AWS region of the site plan.

The home site (``aws:region``) builds the fleet's AWS presence: the key, checkpoint bucket, trail,
budget and account plan of the home region, its pools, and the burst order's AWS signal. Every other
AWS site of the plan (a pool's ``region``, ``storage.checkpoints.replicate_to``) builds its region's
:class:`RegionalSite` and pools from what the home hands it; the replica region's site also builds
the two-way checkpoint replication between the two buckets.

Children keep their names; deployed stacks built them under the fleet, so each carries an alias to
it (see :class:`AwsSite`): their URNs move under the site without a replace.
"""

from __future__ import annotations

import ipaddress
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
from gpufleet.components.network.aws_zones import zones_for_pools
from gpufleet.components.network.onprem import EgressRule
from gpufleet.components.pools.aws import GpuPool, GpuPoolArgs
from gpufleet.components.pools.aws_join import ENDPOINT_SERVICE as JOIN_ENDPOINT_SERVICE
from gpufleet.components.pools.aws_userdata import agent_namespace
from gpufleet.components.sites.aws_pools import pool_off_hours, pool_queue, pool_scaling
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
from gpufleet.components.sites.base import (
    PoolOutputs,
    SiteArgs,
    SiteError,
    SiteFactory,
    SiteOutputs,
    SitePlan,
)
from gpufleet.components.sites.workloads import pool_workload
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


class AwsSite(pulumi.ComponentResource):
    """``gpufleet:sites:AwsSite``: the fleet's presence in one AWS region, a component like the other
    clouds' sites.

    The home site (``aws:region``) builds the key, budget, account plan, checkpoint bucket, trail,
    network and pools of its region, and the burst order's AWS signal (:attr:`burst_publisher`). Every
    other AWS site builds its region's :class:`RegionalSite` (a replica of the home key, the checkpoint
    replica where ``storage.checkpoints.replicate_to`` names it, the network, logs and grants where
    pools run) and its pools from what the home hands it (:class:`Home`); the site of the replica region
    also builds the two-way checkpoint replication, since it joins its bucket to the home's.

    ``account.baseline`` in-stack also builds the account's once-only resources of every region the
    fleet reaches (:class:`gpufleet.components.account.aws.AccountSettings`, the Session Manager preferences,
    the Auto Scaling service-linked role unless it exists); separate leaves them to the account's
    baseline stack.

    Deployed stacks built these children under the fleet, before the site was a component: each
    child the site builds itself carries an alias to the fleet (``pulumi.Alias(parent=<fleet>)``), and
    their own children follow their parent's alias, so a ``pulumi up`` moves every resource under its
    site without replacing one (tests/components/test_site_aws_aliases.py proves it against the URNs
    deployed stacks hold)."""

    outputs: SiteOutputs
    # What every other AWS site of the fleet takes from the home (``None`` on the other sites, and on a
    # home while BYOK material is pending for the parts that need the bucket).
    home: Home | None
    # The burst order's AWS signal (a BaselineSignal; ``None`` unless ``burst`` gates an AWS pool and
    # the spec gives ``onprem.signal``): the publisher role the on-prem exporter signs in as.
    burst_publisher: pulumi.ComponentResource | None

    def __init__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:sites:AwsSite", name, None, opts)
        if args.plan.cloud != "aws":
            raise SiteError(f"{args.plan.key}: AwsSite builds aws sites only")
        fleet = opts.parent if opts is not None else None
        # Children the site builds itself were the fleet's before the site was a component.
        moved = [pulumi.Alias(parent=fleet)] if fleet is not None else None
        self._child = pulumi.ResourceOptions(parent=self, aliases=moved)
        self.home = None
        self.burst_publisher = None
        if args.plan.home:
            self.outputs = self._build(args)
            self.burst_publisher = self._signal(args)
        elif isinstance(args.home, AwsSite) and args.home.home is not None:
            self.outputs = self._build_peer(args, args.home.home)
        else:
            raise SiteError(f"{args.plan.key}: a second AWS region is built after the AWS home, from it")
        self.register_outputs({"key_arn": self.outputs.key_id, "bucket_name": self.outputs.bucket_name})

    # ------------------------------------------------------------------------------------------ home

    def _build(self, args: SiteArgs) -> SiteOutputs:
        name, spec, tags, region = args.fleet, args.spec, dict(args.tags), args.plan.region
        byok_material_base64 = args.byok_material_base64
        child = self._child
        checkpoints = spec.storage.checkpoints
        material = checkpoints.material
        invoke = pulumi.InvokeOutputOptions(parent=self)
        caller = aws.get_caller_identity_output(opts=invoke)
        partition = aws.get_partition_output(opts=invoke).partition
        account_id = caller.account_id
        other_regions = sorted(peer.region for peer in args.peers)
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
        if material == "pending":
            # Nothing may use a key before its material is in: the first deploy builds the keys (and
            # the budget) only; the other sites build their key replicas from this.
            self.home = Home(name, spec, account_id, partition, key, None, region, account)
            return _outputs(args.plan, key, None, None, {}, budget_name=budget.budget_name)

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
        self.home = Home(name, spec, account_id, partition, key, storage, region, account)

        placement: Placement | None = None
        if args.plan.pools:
            network = self._network(
                name,
                spec,
                args.plan,
                tags=tags,
                bucket_arn=storage.bucket_arn,
                partition=partition,
                joined=any(pool in args.joins for pool in args.plan.pools),
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
                metric_namespace=agent_namespace(current_stack()),
                log_group_arns=[_agent_logs(audit), session_logs],
                tags=tags,
                data_prefix=spec.storage.data_prefix,
                checkpoint_prefix=spec.storage.checkpoint_prefix,
                partition=partition,
            )
            placement = Placement(network, identity, audit, key)
        pools = self._pools(args, placement)
        return _outputs(args.plan, key, storage, placement, pools, budget_name=budget.budget_name)

    # ----------------------------------------------------------------------------- other regions

    def _build_peer(self, args: SiteArgs, home: Home) -> SiteOutputs:
        """Another AWS region: its :class:`RegionalSite` (keys only while BYOK material is pending),
        its pools, and, in the replica region, the checkpoint replication with the home bucket."""
        plan, spec = args.plan, home.spec
        joined = [pool for pool in plan.pools if pool in args.joins]
        if joined:
            raise SiteError(
                f"pools.{joined[0]}: pools that join the on-prem cluster run in the AWS home region "
                f"({home.region}) in this version: a second region's network has no Secrets Manager "
                "endpoint for the join secret"
            )
        replica_region = spec.storage.checkpoints.replicate_to
        if home.storage is None:
            site = self._site(home, plan.region, keys_only=True)
            return _outputs(plan, site.key, None, None, {})
        site = self._site(
            home,
            plan.region,
            byok_material_base64=args.byok_material_base64,
            replicate_here=plan.region == replica_region,
            network=_region_network(plan),
            pool_types=_pool_types(spec, dict.fromkeys(plan.pools, plan.region), plan.region),
            onprem_egress=plan.onprem_egress,
        )
        if plan.region == replica_region:
            if site.storage is None:  # RegionalSiteArgs(replicate_here=True) always builds it
                raise AssertionError(replica_region)
            CheckpointReplication(
                f"{home.fleet}-replication",
                CheckpointReplicationArgs(
                    primary=ReplicatedBucket(
                        bucket=home.storage, kms_key_arn=home.key.key_arn, region=home.region
                    ),
                    replica=ReplicatedBucket(
                        bucket=site.storage, kms_key_arn=site.key.key_arn, region=replica_region
                    ),
                    tags=dict(args.tags),
                    account_id=home.account_id,
                ),
                opts=self._child,
            )
        pools = self._pools(args, site.placement)
        return _outputs(plan, site.key, site.storage, site.placement, pools)

    # ------------------------------------------------------------------------------------------ parts

    def _pools(self, args: SiteArgs, where: Placement | None) -> dict[str, PoolOutputs]:
        """The plan's pools, in spec order, in the region's network with its grants."""
        name, spec, region = args.fleet, args.spec, args.plan.region
        pools: dict[str, PoolOutputs] = {}
        for pool_name in args.plan.pools:
            if where is None:  # the site plan gives every region with pools a network
                raise AssertionError(f"{args.plan.key}: pools without a network")
            pool = spec.pools[pool_name]
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
                    tags=dict(args.tags),
                    region=region,
                    gate=_enforced(args.burst_gates.get(pool_name)),
                    join=args.joins.get(pool_name),
                ),
                opts=self._child,
            )
            pools[pool_name] = PoolOutputs(
                groups=[group.asg_name], queue=group.queue_name, role=group.role_arn
            )
        return pools

    def _signal(self, args: SiteArgs) -> pulumi.ComponentResource | None:
        """The AWS publisher of ``gpufleet/Baseline`` ``FreeGpusAhead`` (a role, its Roles Anywhere
        profile and trust anchor), when the burst order gates an AWS pool (metric-math alarms) and the
        spec gives the on-prem exporter (``onprem.signal``; the site plan has checked it is given then).
        The exporter itself runs on the on-prem cluster and is the fleet's."""
        spec = args.spec
        gated = any(gate.enforcement == "metric-math" for gate in args.burst_gates.values())
        if not gated or spec.onprem is None or spec.onprem.signal is None:
            return None
        from gpufleet.components.baseline.aws_signal import BaselineSignal, BaselineSignalArgs
        from gpufleet.components.spec.onprem import full_config_key

        config = spec.onprem.signal
        ca_certificate: pulumi.Output[str] | None = None
        if config.ca_certificate:
            namespace, _, config_name = full_config_key(config.ca_certificate).partition(":")
            ca_certificate = pulumi.Config(namespace).require_secret(config_name)
        # Children: <fleet>-signal-role, -signal-publish, -signal-profile (and -signal-anchor).
        return BaselineSignal(
            args.fleet,
            BaselineSignalArgs(
                tags=dict(args.tags),
                client_cn=config.client_cn,
                trust_anchor_arn=config.trust_anchor_arn,
                ca_certificate=ca_certificate,
            ),
            self._child,
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
        bucket_arn: pulumi.Input[str],
        partition: pulumi.Input[str],
        joined: bool = False,
    ) -> FleetNetwork:
        """The home region's network: the plan's existing subnets, or a new VPC of the plan's range (the
        spec's site plan refuses a way out built into existing subnets)."""
        region, egress = plan.region, spec.network.egress
        # Joined pools read their join secret through a Secrets Manager endpoint (pools/aws_join.py).
        extra = (JOIN_ENDPOINT_SERVICE,) if joined else ()
        if plan.subnet_ids:
            args = FleetNetworkArgs(region=region, tags=tags, subnet_ids=list(plan.subnet_ids))
        else:
            zones = zones_for_pools(
                self,
                region,
                plan.availability_zones,
                _pool_types(spec, dict.fromkeys(plan.pools, region), region),
                endpoint_services=(*interface_endpoint_services(egress), *extra),
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
                extra_endpoint_services=extra,
                kubelet_sources=plan.kubelet_sources,
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


# What :data:`gpufleet.components.sites.SITES` builds this cloud's sites with.
SITE: SiteFactory = AwsSite
