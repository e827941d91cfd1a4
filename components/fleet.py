"""HybridGpuFleet: every concern of one fleet, composed from one FleetSpec.

The fleet only composes: it builds one site per cloud and region through the ``SITES`` dispatch
(:mod:`components.sites`) and gathers what each site returns (:class:`components.sites.SiteOutputs`)
into the fleet's outputs. Everything cloud-specific lives in the site of that cloud
(:mod:`components.sites.aws` for AWS).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from components.sites import SiteArgs, SiteError, SiteOutputs, SitePlan, site_factory, site_name
from components.tags import STACK_TAG, current_stack

if TYPE_CHECKING:
    from components.spec import FleetSpec


class FleetError(Exception):
    """The spec asks for something this version of the fleet cannot build."""


class HybridGpuFleet(pulumi.ComponentResource):
    """The fleet's sites: on AWS the key, checkpoint bucket, audit trail and logs, budget, and for its
    pools the private network and one GpuPool per pool (each with its own instance role); one
    RegionalSite per other AWS region, and two-way checkpoint replication when
    ``storage.checkpoints.replicate_to`` is set (see :class:`components.sites.aws.AwsSite`).

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
    budget_name: pulumi.Output[str] | None
    replica_bucket_name: pulumi.Output[str] | None
    regional_key_arns: pulumi.Output[dict[str, str]]
    keys_pending_import: bool
    sites: dict[str, SiteOutputs]

    def __init__(
        self,
        name: str,
        spec: FleetSpec,
        opts: pulumi.ResourceOptions | None = None,
        *,
        byok_material_base64: pulumi.Input[str] | None = None,
    ) -> None:
        super().__init__("gpufleet:fleet:HybridGpuFleet", name, None, opts)
        region = pulumi.Config("aws").get("region")
        if not region:
            raise FleetError("set aws:region in the stack's config: the fleet needs a home region")
        material = spec.storage.checkpoints.material
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
        self.keys_pending_import = material == "pending"
        tags = {**spec.cost_tags, STACK_TAG: current_stack()}
        plans = [SitePlan(cloud="aws", region=region, home=True, pools=tuple(spec.pools))]
        self.sites = {}
        for plan in plans:
            args = SiteArgs(
                fleet=name,
                spec=spec,
                plan=plan,
                tags=tags,
                stack=current_stack(),
                byok_material_base64=byok_material_base64,
            )
            try:
                site = site_factory(plan.cloud)(
                    site_name(name, plan), args, pulumi.ResourceOptions(parent=self)
                )
            except SiteError as error:
                raise FleetError(str(error)) from None
            self.sites[plan.key] = site.outputs
            for other in getattr(site, "regions", {}).values():
                self.sites.setdefault(f"{other.cloud}:{other.region}", other)
        self._outputs(spec, plans[0])

    def _outputs(self, spec: FleetSpec, home: SitePlan) -> None:
        home_site = self.sites[home.key]
        replica = spec.storage.checkpoints.replicate_to
        replica_site = self.sites.get(f"{home.cloud}:{replica}") if replica else None
        groups: dict[str, pulumi.Output[str]] = {}
        queues: dict[str, pulumi.Output[str]] = {}
        roles: dict[str, pulumi.Output[str]] = {}
        for pool_name in spec.pools:
            for site in self.sites.values():
                pool = site.pools.get(pool_name)
                if pool is None:
                    continue
                groups[pool_name] = pool.groups[0]
                queues[pool_name] = pool.queue
                if pool.role is not None:
                    roles[pool_name] = pool.role
        self.key_arn = home_site.key_id
        self.bucket_name = home_site.bucket_name
        self.budget_name = home_site.budget_name
        self.replica_bucket_name = replica_site.bucket_name if replica_site is not None else None
        self.pool_asg_names = _dict(groups)
        self.pool_queue_names = _dict(queues)
        self.pool_role_arns = _dict(roles)
        self.regional_key_arns = pulumi.Output.all(
            **{site.region: site.key_id for site in self.sites.values() if site.cloud == home.cloud}
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


def _dict(values: dict[str, pulumi.Output[str]]) -> pulumi.Output[dict[str, str]]:
    return pulumi.Output.all(**values) if values else pulumi.Output.from_input({})
