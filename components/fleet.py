"""HybridGpuFleet: every concern of one fleet, composed from one FleetSpec."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi
import pulumi_aws as aws

from components.audit.aws import FleetAudit, FleetAuditArgs
from components.cost.aws import FleetBudget, FleetBudgetArgs
from components.identity.aws import InstanceIdentity, InstanceIdentityArgs
from components.keys.aws import FleetKey, FleetKeyArgs
from components.network.aws import FleetNetwork, FleetNetworkArgs
from components.pools.aws import GpuPool, GpuPoolArgs, OffHours
from components.pools.scaling import ScalingRules
from components.storage.aws import CheckpointBucket, CheckpointBucketArgs

if TYPE_CHECKING:
    from components.spec import FleetSpec, Pool

SUPPORTED_CLOUDS = ("aws",)


class FleetError(Exception):
    """The spec asks for something this version of the fleet cannot build."""


def _zone(names: list[str], index: int, region: str) -> str:
    # The offline engine may answer with fewer zones than asked for; a real account never does.
    return names[index] if index < len(names) else f"{region}{'abcdef'[index]}"


def _zone_at(names: pulumi.Output[list[str]], index: int, region: str) -> pulumi.Output[str]:
    return names.apply(lambda resolved: _zone(resolved, index, region))


class HybridGpuFleet(pulumi.ComponentResource):
    """The fleet's key, checkpoint bucket, audit trail and logs, budget, and for its AWS pools the
    private network, the instance identity and one GpuPool per pool.

    Everything lands in the stack's ``aws:region``; a pool naming another region is refused rather
    than half-built (its network, key and log groups would all have to follow it)."""

    bucket_name: pulumi.Output[str]
    key_arn: pulumi.Output[str]
    pool_asg_names: pulumi.Output[dict[str, str]]
    role_arn: pulumi.Output[str] | None
    budget_name: pulumi.Output[str]

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
        tags = dict(spec.cost_tags)
        checkpoints = spec.storage.checkpoints
        if checkpoints.replicate_to:
            raise FleetError(
                f"storage.checkpoints.replicate_to={checkpoints.replicate_to!r}: checkpoint replication "
                "is not supported yet; remove it or replicate outside this stack"
            )

        key = FleetKey(
            f"{name}-key",
            FleetKeyArgs(
                encryption=checkpoints.encryption,
                account_id=account_id,
                region=region,
                partition=partition,
                tags=tags,
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
                project=spec.cost_tags["project"],
                account_id=account_id,
                kms_key_arn=key.key_arn,
                tags=tags,
            ),
            opts=child,
        )

        asg_names: dict[str, pulumi.Output[str]] = {}
        self.role_arn = None
        if aws_pools:
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
            for pool_name, pool in aws_pools.items():
                off_hours = self._off_hours(spec, pool_name, pool)
                rules = pool.scaling
                group = GpuPool(
                    f"{name}-pool-{pool_name}",
                    GpuPoolArgs(
                        pool=pool_name,
                        instance_types=list(pool.instance_types),
                        min_size=pool.size.min,
                        max_size=pool.size.max,
                        spot_percent=pool.spot_percent,
                        on_demand_base=pool.on_demand_base,
                        scaling=ScalingRules(
                            gpu_util_out=rules.gpu_util_out,
                            out_for_s=rules.out_for_s,
                            queue_out=rules.queue_out,
                            gpu_util_in=rules.gpu_util_in,
                            in_for_s=rules.in_for_s,
                            cooldown_s=rules.cooldown_s,
                        ),
                        off_hours=off_hours,
                        disk_gib=pool.disk_gib,
                        subnet_ids=network.subnet_ids,
                        security_group_id=network.security_group_id,
                        instance_profile_arn=identity.instance_profile_arn,
                        agent_log_group_name=audit.agent_log_group_name,
                        kms_key_arn=key.key_arn,
                        tags=tags,
                        region=region,
                    ),
                    opts=child,
                )
                asg_names[pool_name] = group.asg_name

        self.bucket_name = storage.bucket_name
        self.key_arn = key.key_arn
        self.budget_name = budget.budget_name
        self.pool_asg_names = pulumi.Output.all(**asg_names) if asg_names else pulumi.Output.from_input({})
        self.register_outputs(
            {
                "bucket_name": self.bucket_name,
                "key_arn": self.key_arn,
                "pool_asg_names": self.pool_asg_names,
                "role_arn": self.role_arn,
                "budget_name": self.budget_name,
            }
        )

    @staticmethod
    def _aws_pools(spec: FleetSpec, region: str) -> dict[str, Pool]:
        problems: list[str] = []
        pools: dict[str, Pool] = {}
        for pool_name, pool in spec.pools.items():
            if pool.cloud not in SUPPORTED_CLOUDS:
                problems.append(f"pools.{pool_name}: pools on {pool.cloud} are not supported yet")
                continue
            pool_region = spec.pool_region(pool_name, region)
            if pool_region != region:
                problems.append(
                    f"pools.{pool_name}.region: {pool_region} differs from the stack's aws:region {region}; "
                    "AWS pools outside the stack's region are not supported yet"
                )
                continue
            pools[pool_name] = pool
        if problems:
            raise FleetError("\n".join(problems))
        return pools

    def _network(self, name: str, spec: FleetSpec, region: str, tags: dict[str, str]) -> FleetNetwork:
        net = spec.network
        if net.subnet_ids:
            args = FleetNetworkArgs(region=region, tags=tags, subnet_ids=list(net.subnet_ids))
        else:
            names = aws.get_availability_zones_output(
                state="available", region=region, opts=pulumi.InvokeOutputOptions(parent=self)
            ).names
            zones = [_zone_at(names, index, region) for index in range(net.availability_zones)]
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
