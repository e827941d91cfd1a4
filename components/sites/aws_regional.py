"""The AWS site's regions: what the home region hands the others, and :class:`RegionalSite`, the
fleet's presence in one more AWS region (its key, the checkpoint replica, and where pools run, their
network, logs and the grants their roles get).

``RegionalSite`` keeps the type token ``gpufleet:fleet:RegionalSite``; it is a child of its region's
:class:`gpufleet.components.sites.aws.AwsSite`, aliased to its former place under the fleet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pulumi
import pulumi_aws as aws

from gpufleet.components.account.aws import (
    AccountSettings,
    AccountSettingsArgs,
    baseline_key_alias,
    session_log_group_arn,
)
from gpufleet.components.audit.aws import FleetAudit, FleetAuditArgs
from gpufleet.components.identity.aws import InstanceIdentityArgs
from gpufleet.components.keys.aws import FleetKey, FleetKeyArgs
from gpufleet.components.network.aws import FleetNetwork, FleetNetworkArgs
from gpufleet.components.network.aws_zones import zones_for_pools
from gpufleet.components.network.onprem import EgressRule
from gpufleet.components.pools.aws_userdata import agent_namespace
from gpufleet.components.storage.aws import AWS_REGION_RE, CheckpointBucket, CheckpointBucketArgs
from gpufleet.components.tags import STACK_TAG, current_stack

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec, RegionNetwork


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
    # What this region's instances may open on-prem over its private link.
    onprem_egress: Sequence[EgressRule] = ()

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
                    onprem_egress=args.onprem_egress,
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
                metric_namespace=agent_namespace(current_stack()),
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
