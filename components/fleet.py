"""HybridGpuFleet: every concern of one fleet, composed from one FleetSpec.

The fleet only composes: it builds one site per cloud and region through the ``SITES`` dispatch
(:mod:`components.sites`), the on-prem baseline when the spec has ``onprem``
(:class:`gpufleet.components.baseline.kubernetes.OnPremBaseline`), and one private link per ``links`` entry
through the ``LINKS`` dispatch (:mod:`components.links`), fed by what each site returns
(:class:`components.sites.SiteOutputs`). Everything cloud-specific lives in the site and the link of that
cloud.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pulumi

from gpufleet.components import sites as dispatch
from gpufleet.components.clouds import PROFILES, cloud_parts, profile
from gpufleet.components.links import LinkArgs, link_factory
from gpufleet.components.pools.burst import Gate, spec_gates
from gpufleet.components.pools.join import PoolJoin, plan_joins
from gpufleet.components.sites import (
    CLOUDS,
    Cloud,
    Site,
    SiteArgs,
    SiteError,
    SiteFactory,
    SiteOutputs,
    SitePlan,
    site_factory,
    site_name,
)
from gpufleet.components.spec import CONFIG_KEY, SpecError, site_plans
from gpufleet.components.tags import STACK_TAG, current_stack

if TYPE_CHECKING:
    from gpufleet.components.baseline.kubernetes import OnPremBaseline
    from gpufleet.components.spec import FleetSpec

# What the fleet does for each cloud beyond its sites and links (components/fleet_parts/<cloud>.py).
PARTS = cloud_parts("gpufleet.components.fleet_parts")

_T = TypeVar("_T")


class FleetError(Exception):
    """The spec asks for something this version of the fleet cannot build."""


class HybridGpuFleet(pulumi.ComponentResource):
    """One site per cloud and region of the spec's site plan (:func:`components.spec.site_plans`), each
    built through the ``SITES`` dispatch under this component, each cloud's home first and handed the
    cloud's other sites (``SiteArgs.peers``); every other site is handed its home (``SiteArgs.home``).
    A site builds its cloud's key, checkpoint bucket, identity, network, pools, audit trail and budget
    (on AWS: :class:`components.sites.aws.AwsSite`, whose other regions replicate the home's
    key and checkpoints), and, where its cloud has one, the burst order's publisher
    (``Site.burst_publisher``), which the on-prem exporter signs in as.

    The outputs gather what the sites return: ``sites`` by ``cloud:region``, and per pool its scaling
    groups, queue and role. ``key_arn`` (a key id outside AWS) and ``bucket_name`` are the fleet's first
    site's, ``budget_name`` the first site's that has one (Alibaba has none); ``pending_key_ids`` every
    site's key (AWS's by region, the others' by ``cloud:region``). The AWS names deployed stacks
    export (``pool_asg_names``, ``regional_key_arns`` ...) stay.
    With BYOK material ``pending`` only the keys are built (see docs/first-deploy.md); with ``config``
    the material comes in ``byok_material_base64`` (a secret)."""

    bucket_name: pulumi.Output[str] | None
    key_arn: pulumi.Output[str]
    pool_asg_names: pulumi.Output[dict[str, str]]
    pool_queue_names: pulumi.Output[dict[str, str]]
    pool_role_arns: pulumi.Output[dict[str, str]]
    budget_name: pulumi.Output[str] | None
    replica_bucket_name: pulumi.Output[str] | None
    regional_key_arns: pulumi.Output[dict[str, str]]
    keys_pending_import: bool
    # Cloud-neutral: every site by ``cloud:region``; each pool's scaling groups, queue and role.
    sites: dict[str, SiteOutputs]
    pool_groups: pulumi.Output[dict[str, list[str]]]
    pool_queues: pulumi.Output[dict[str, str]]
    pool_roles: pulumi.Output[dict[str, str]]
    site_key_ids: pulumi.Output[dict[str, str]]
    pending_key_ids: pulumi.Output[dict[str, str]]
    # Hybrid: the on-prem baseline (an OnPremBaseline; ``None`` without ``onprem``) and the links by site,
    # ``cloud:region``. ``baseline_gpu_count`` (0 without a baseline) and each site's ``pools`` are what
    # the burst order compiles against. Typed loosely here so pulumi-kubernetes loads only with onprem.
    baseline: pulumi.ComponentResource | None
    baseline_gpu_count: int
    links: dict[str, pulumi.Resource]
    # The burst order's signal on AWS (``None`` unless ``burst`` gates an AWS pool): the publisher role,
    # its Roles Anywhere profile and trust anchor, and the exporter on the on-prem cluster (a
    # BaselineSignal, typed loosely so pulumi-aws loads only where it is needed).
    signal: pulumi.ComponentResource | None
    # Kueue, the cluster-autoscalers and KEDA on the on-prem cluster (``None`` without onprem.scheduler).
    scheduling: pulumi.ComponentResource | None
    signal_arns: pulumi.Output[dict[str, str]] | None

    def __init__(
        self,
        name: str,
        spec: FleetSpec,
        opts: pulumi.ResourceOptions | None = None,
        *,
        byok_material_base64: pulumi.Input[str] | None = None,
    ) -> None:
        super().__init__("gpufleet:fleet:HybridGpuFleet", name, None, opts)
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
        try:
            plans = site_plans(spec, stack_provider_regions())
        except SpecError as error:
            raise FleetError(
                "\n".join(
                    f"{path.removeprefix(CONFIG_KEY + '.')}: {message}" for path, message in error.errors
                )
            ) from None
        try:
            gates = spec_gates(spec, stack_provider_regions())
        except SpecError as error:
            raise FleetError(
                "\n".join(
                    f"{path.removeprefix(CONFIG_KEY + '.')}: {message}" for path, message in error.errors
                )
            ) from None
        factories = _factories(plans)
        try:
            joins = plan_joins(spec, stack_provider_regions(), name)
        except ValueError as error:
            raise FleetError(str(error)) from None
        self.keys_pending_import = material == "pending"
        tags = {**spec.cost_tags, STACK_TAG: current_stack()}
        self.sites = {}
        homes: dict[str, Site] = {}
        for plan in plans:
            args = SiteArgs(
                fleet=name,
                spec=spec,
                plan=plan,
                tags=tags,
                stack=current_stack(),
                byok_material_base64=byok_material_base64,
                peers=tuple(p for p in plans if p.cloud == plan.cloud and not p.home) if plan.home else (),
                home=homes.get(plan.cloud),
                burst_gates=gates,
                joins=joins,
            )
            try:
                site = factories[plan.cloud](site_name(name, plan), args, pulumi.ResourceOptions(parent=self))
            except SiteError as error:
                raise FleetError(str(error)) from None
            if plan.home:
                homes[plan.cloud] = site
            self.sites[plan.key] = site.outputs
        baseline = self._baseline(name, spec, tags)
        self.baseline = baseline
        self.baseline_gpu_count = baseline.gpu_count if baseline is not None else 0
        signal = self._signal(name, spec, gates, baseline, tags, homes=homes)
        self.signal = signal
        self.signal_arns = None
        if signal is not None:
            self.signal_arns = pulumi.Output.all(
                role=signal.role_arn, profile=signal.profile_arn, trust_anchor=signal.trust_anchor_arn
            )
        self.scheduling = self._scheduling(name, spec, baseline, tags, joins=joins, homes=homes)
        self.links = self._links(name, spec, plans, tags)
        self._outputs(spec, plans)

    def _baseline(self, name: str, spec: FleetSpec, tags: Mapping[str, str]) -> OnPremBaseline | None:
        """The on-prem cluster's GPU baseline, when the spec has ``onprem`` (pulumi-kubernetes is imported
        only then)."""
        if spec.onprem is None:
            return None
        from gpufleet.components.baseline.kubernetes import OnPremBaseline, OnPremBaselineArgs

        burst_gpus = 0
        if spec.onprem.scheduler is not None:
            from gpufleet.components.baseline.kueue import plan_flavors

            try:
                burst_gpus = sum(f.gpus for f in plan_flavors(spec, stack_provider_regions())[1:])
            except ValueError as error:
                raise FleetError(str(error)) from None
        return OnPremBaseline(
            f"{name}-onprem",
            OnPremBaselineArgs(fleet=name, onprem=spec.onprem, tags=tags, burst_gpus=burst_gpus),
            pulumi.ResourceOptions(parent=self),
        )

    def _signal(
        self,
        name: str,
        spec: FleetSpec,
        gates: Mapping[str, Gate],
        baseline: OnPremBaseline | None,
        tags: Mapping[str, str],
        *,
        homes: Mapping[str, Site],
    ) -> Any:
        """The exporter of ``gpufleet/Baseline`` ``FreeGpusAhead`` on the on-prem cluster, signing in as
        the home site's publisher of the cloud whose part builds it (``signal``: AWS, when the burst
        order gates an AWS pool and the spec gives ``onprem.signal``). It also publishes for each cloud
        whose part has ``exporter_publishing`` (Alibaba, with ``burst.publishers.alicloud``), as that
        cloud's home site's ``burst_publisher``."""

        def publishing() -> dict[str, Any]:
            return {
                cloud: part.exporter_publishing(name, spec, gates, homes.get(cloud))
                for cloud, part in PARTS.items()
                if hasattr(part, "exporter_publishing")
            }

        for cloud, part in PARTS.items():
            if not hasattr(part, "signal"):
                continue
            found = part.signal(
                self,
                name,
                spec=spec,
                gates=gates,
                baseline=baseline,
                tags=tags,
                home=homes.get(cloud),
                publishing=publishing,
            )
            if found is not None:
                return found
        return None

    def _scheduling(
        self,
        name: str,
        spec: FleetSpec,
        baseline: OnPremBaseline | None,
        tags: Mapping[str, str],
        *,
        joins: Mapping[str, PoolJoin],
        homes: Mapping[str, Site],
    ) -> pulumi.ComponentResource | None:
        """Kueue, one cluster-autoscaler per cloud site and KEDA on DCGM, on the on-prem cluster, when the
        spec has ``onprem.scheduler`` (components/baseline/scheduling.py); a cloud's autoscaler gets the
        credentials its fleet part builds (``autoscaler_access``: AWS's signs in through Roles
        Anywhere)."""
        if baseline is None or spec.onprem is None or spec.onprem.scheduler is None:
            return None
        for cloud, part in PARTS.items():
            if any(join.cloud == cloud for join in joins.values()):
                for warning in getattr(part, "join_warnings", list)():
                    pulumi.log.warn(warning)
        for pool, join in joins.items():
            if spec.pools[pool].image is None:
                # The default images carry the driver but no kubeadm: the join script stops at its check.
                named = PARTS[profile(join.cloud).key].IMAGE_FIELDS
                pulumi.log.warn(
                    f"pools.{pool}: its nodes join the on-prem cluster but boot the cloud's default image, "
                    "which has no kubeadm or kubelet: they stop at the join script's first check; give the "
                    f"pool an image that has them (pools.{pool}.{named}, docs/hybrid.md)"
                )
        from gpufleet.components.baseline.autoscaler import plan_autoscalers
        from gpufleet.components.baseline.exporter import cost_labels
        from gpufleet.components.baseline.kueue import plan_flavors
        from gpufleet.components.baseline.scheduling import BurstScheduling, BurstSchedulingArgs

        regions = stack_provider_regions()
        try:
            flavors = plan_flavors(spec, regions)
        except ValueError as error:
            raise FleetError(str(error)) from None
        groups = {
            pool: list(outputs.groups) for site in self.sites.values() for pool, outputs in site.pools.items()
        }
        return BurstScheduling(
            f"{name}-scheduling",
            BurstSchedulingArgs(
                fleet=name,
                scheduler=spec.onprem.scheduler,
                namespaces=list(spec.onprem.namespaces),
                flavors=flavors,
                autoscalers=plan_autoscalers(spec, regions),
                labels=cost_labels(name, tags),
                groups=groups,
                access=self._access(name, spec, joins, homes, tags),
            ),
            pulumi.ResourceOptions(parent=self, providers=[baseline.provider]),
        )

    def _access(
        self,
        name: str,
        spec: FleetSpec,
        joins: Mapping[str, PoolJoin],
        homes: Mapping[str, Site],
        tags: Mapping[str, str],
    ) -> dict[str, object]:
        """Each cloud's autoscaler credentials beyond the scheduler's, from its fleet part's
        ``autoscaler_access`` (None: the cloud needs none here)."""
        found: dict[str, object] = {}
        for cloud, part in PARTS.items():
            if hasattr(part, "autoscaler_access"):
                access = part.autoscaler_access(
                    self, name, spec=spec, joins=joins, home=homes.get(cloud), tags=tags
                )
                if access is not None:
                    found[cloud] = access
        return found

    def _links(
        self, name: str, spec: FleetSpec, plans: Sequence[SitePlan], tags: Mapping[str, str]
    ) -> dict[str, pulumi.Resource]:
        """One private link per ``links`` entry, into its site (the site plan has checked that each names
        a site with a network of its own and carries the on-prem ranges: ``SitePlan.onprem_ranges``)."""
        built: dict[str, pulumi.Resource] = {}
        if self.keys_pending_import:
            # The first deploy of BYOK material builds the keys only: no network yet for a link to reach.
            return built
        for plan in plans:
            link = spec.links.get(plan.key)
            if link is None:
                continue
            try:
                args = LinkArgs(
                    site=self.sites[plan.key], link=link, onprem_ranges=plan.onprem_ranges, tags=tags
                )
            except ValueError as error:
                raise FleetError(f"links.{plan.key}: {error}") from None
            factory = link_factory(plan.cloud)
            built[plan.key] = cast(
                "pulumi.Resource",
                factory(f"{site_name(name, plan)}-link", args, pulumi.ResourceOptions(parent=self)),
            )
        return built

    def _outputs(self, spec: FleetSpec, plans: Sequence[SitePlan]) -> None:
        first = self.sites[plans[0].key]  # the home of the fleet's first cloud
        replica = spec.storage.checkpoints.replicate_to
        # The clouds whose sites fill the names stacks exported before the fleet had sites (AWS's).
        legacy = {cloud for cloud, part in PARTS.items() if getattr(part, "LEGACY_OUTPUTS", False)}
        replicas = [self.sites.get(f"{cloud}:{replica}") for cloud in legacy] if replica else []
        replica_site = next((site for site in replicas if site is not None), None)
        groups: dict[str, pulumi.Output[list[str]]] = {}
        queues: dict[str, pulumi.Output[str]] = {}
        roles: dict[str, pulumi.Output[str]] = {}
        asg_names: dict[str, pulumi.Output[str]] = {}
        for pool_name in spec.pools:
            for site in self.sites.values():
                pool = site.pools.get(pool_name)
                if pool is None:
                    continue
                groups[pool_name] = pulumi.Output.all(*pool.groups)
                queues[pool_name] = pool.queue
                if pool.role is not None:
                    roles[pool_name] = pool.role
                if site.cloud in legacy:
                    asg_names[pool_name] = pool.groups[0]
        self.key_arn = first.key_id
        self.bucket_name = first.bucket_name
        # Alibaba has no budget resource: a fleet whose first cloud is Alibaba names another cloud's.
        self.budget_name = next(
            (s.budget_name for s in self.sites.values() if s.budget_name is not None), None
        )
        self.replica_bucket_name = replica_site.bucket_name if replica_site is not None else None
        self.pool_groups = _dict(groups)
        self.pool_queues = _dict(queues)
        self.pool_roles = _dict(roles)
        self.site_key_ids = _dict({key: site.key_id for key, site in self.sites.items()})
        # The names AWS stacks have exported since before sites: kept so deployed stacks' outputs stay.
        self.pool_asg_names = _dict(asg_names)
        self.pool_queue_names = self.pool_queues
        self.pool_role_arns = self.pool_roles
        self.regional_key_arns = _dict(
            {site.region: site.key_id for site in self.sites.values() if site.cloud in legacy}
        )
        # Every site's key for BYOK's first phase: AWS's by region as before, the others by cloud:region.
        self.pending_key_ids = _dict(
            {site.region if site.cloud in legacy else key: site.key_id for key, site in self.sites.items()}
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
                "pool_groups": self.pool_groups,
                "pool_queues": self.pool_queues,
                "pool_roles": self.pool_roles,
                "site_key_ids": self.site_key_ids,
                "pending_key_ids": self.pending_key_ids,
                "signal_arns": self.signal_arns,
            }
        )


def stack_provider_regions() -> dict[str, str | None]:
    """Each cloud's provider region as its SDK finds it: the stack's config (``aws:region`` ...), else the
    SDK's environment variable."""
    regions: dict[str, str | None] = {}
    for cloud in CLOUDS:
        found = pulumi.Config(cloud).get("region")
        for variable in PROFILES[cloud].region_envs:
            found = found or os.environ.get(variable) or None
        regions[cloud] = found
    return regions


def _factories(plans: Sequence[SitePlan]) -> dict[Cloud, SiteFactory]:
    """Each planned cloud's site class, before anything is built: a cloud whose site module this build
    does not ship names the pools that asked for it."""
    factories: dict[Cloud, SiteFactory] = {}
    problems: list[str] = []
    for cloud in dict.fromkeys(plan.cloud for plan in plans):
        try:
            factories[cloud] = site_factory(cloud)
        except ModuleNotFoundError as error:
            if error.name is None or not dispatch.SITES[cloud].startswith(error.name + ":"):
                raise
            pools = [pool for plan in plans if plan.cloud == cloud for pool in plan.pools]
            problems += [f"pools.{pool}: pools on {cloud} are not supported yet" for pool in pools]
    if problems:
        raise FleetError("\n".join(problems))
    return factories


def _dict(values: Mapping[str, pulumi.Output[_T]]) -> pulumi.Output[dict[str, _T]]:
    return pulumi.Output.all(**values) if values else pulumi.Output.from_input({})
