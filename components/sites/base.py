"""The site contract: one cloud's presence in one region of the fleet.

A fleet is one on-prem baseline plus one *site* per cloud and region its pools burst into, joined by
private links (DESIGN.md). :class:`gpufleet.components.fleet.HybridGpuFleet` only composes: it reads the site
plan from the spec (:func:`SitePlan` per cloud and region), builds each site through the ``SITES``
dispatch in :mod:`components.sites`, and hands what each site returns (:class:`SiteOutputs`) to the
links and the baseline. Everything cloud-specific lives in the site of that cloud.

Each non-AWS site owns an explicit provider for its cloud and region (per-resource ``region=`` does not
carry over: Alibaba ``oss.Bucket`` and ``ess.ScalingGroup`` and Tencent ``cos.Bucket`` take none) and
builds its own key, checkpoint bucket, identity, network, pools, audit trail and (where the cloud has
one) budget: a site is self-contained, so a stack may have no AWS at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

import pulumi

from gpufleet.components.network.onprem import EgressRule

if TYPE_CHECKING:
    from gpufleet.components.pools.burst import Gate
    from gpufleet.components.spec import FleetSpec

Cloud = Literal["aws", "alicloud", "tencentcloud"]
CLOUDS: tuple[Cloud, ...] = ("aws", "alicloud", "tencentcloud")

# The provider config key that names each cloud's home region in a stack file.
REGION_CONFIG_KEYS: Mapping[Cloud, str] = {
    "aws": "aws:region",
    "alicloud": "alicloud:region",
    "tencentcloud": "tencentcloud:region",
}


class SiteError(Exception):
    """The spec asks a site for something its cloud cannot build; the message names the spec field."""


@dataclass(frozen=True, kw_only=True)
class SitePlan:
    """What the spec asks of one site, worked out once from the spec before any site is built.

    ``home``: the first site of its cloud (for AWS: the ``aws:region`` site, which holds the fleet's
    trail, budget and account plan). ``pools``: the names of the spec's pools that run here, in spec
    order. ``vpc_cidr``: the site's VPC range (``None`` when the site runs in existing subnets or holds
    no pools). ``subnet_ids``: existing subnets (vSwitches on Alibaba) to run in instead of a new VPC.
    ``onprem_ranges``: the on-prem ranges the site's private link carries and routes (empty: the site
    has no link). ``onprem_egress``: what the site's GPU security group opens towards them, one rule per
    on-prem endpoint, port range and protocol (``onprem.reachable``), nothing wider.
    """

    cloud: Cloud
    region: str
    home: bool
    pools: tuple[str, ...] = ()
    vpc_cidr: str | None = None
    availability_zones: int = 2
    subnet_ids: tuple[str, ...] = ()
    onprem_ranges: tuple[str, ...] = ()
    onprem_egress: tuple[EgressRule, ...] = ()

    @property
    def key(self) -> str:
        """``cloud:region``, the site's name in the spec, in errors and in `gpufleet plan`."""
        return f"{self.cloud}:{self.region}"


@dataclass(frozen=True, kw_only=True)
class SiteArgs:
    """What a site is built from: the fleet's name (the prefix of every logical name), the whole spec
    (sites read their pools, storage, access, audit and budget settings from it), the site's plan and
    the tags every taggable resource carries (the spec's cost tags plus ``gpufleet:stack``)."""

    fleet: str
    spec: FleetSpec
    plan: SitePlan
    tags: Mapping[str, str]
    stack: str
    # With ``storage.checkpoints.byok_material: config``: the key material (base64, a secret config value).
    byok_material_base64: pulumi.Input[str] | None = None
    # The other sites of the same cloud, for its home site (AWS: the regions its key and checkpoints
    # replicate to), and, for every other site, the home site of its cloud, built before it.
    peers: Sequence[SitePlan] = ()
    home: Site | None = None
    # The burst order's gate per pool of the fleet (gpufleet.components.pools.burst.spec_gates), by pool name;
    # empty without ``burst``.
    # Sites whose cloud enforces it (``Gate.enforcement``) hold their pools' scale-out behind it.
    burst_gates: Mapping[str, Gate] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class PoolOutputs:
    """One pool as the rest of the fleet sees it. ``groups``: the scaling groups' names or ids (two on
    Tencent, whose AS has no spot/on-demand mix: the all-spot and the on-demand group). ``queue``: the
    work queue's name. ``role``: the ARN/name of the instances' role, when the pool has its own."""

    groups: Sequence[pulumi.Output[str]]
    queue: pulumi.Output[str]
    role: pulumi.Output[str] | None = None


@dataclass(frozen=True, kw_only=True)
class SiteOutputs:
    """What a site returns to the fleet, the links and the baseline (cloud-neutral names).

    ``vpc_id``/``vpc_cidr``/``route_table_ids``: what a link needs to reach the site's nodes (``None``
    and empty when the site has no network of its own). ``provider``: the explicit provider the site's
    resources use, for the link resources of the same cloud and region (``None``: the stack's default
    provider). ``currency``: what the cloud bills in.
    """

    cloud: Cloud
    region: str
    currency: str
    key_id: pulumi.Output[str]
    bucket_name: pulumi.Output[str] | None = None
    vpc_id: pulumi.Output[str] | None = None
    vpc_cidr: str | None = None
    route_table_ids: pulumi.Output[Sequence[str]] | None = None
    provider: pulumi.ProviderResource | None = None
    pools: Mapping[str, PoolOutputs] = field(default_factory=dict)
    # How many ids ``route_table_ids`` holds: a link adds one route per table and on-prem range, and
    # must know how many tables there are before their ids are known (required with route_table_ids).
    route_table_count: int | None = None
    # The site's budget, where its cloud has a budget resource and the site holds the fleet's budget.
    budget_name: pulumi.Output[str] | None = None


class Site(Protocol):
    """A built site: a ComponentResource with ``outputs`` and ``burst_publisher``.

    ``burst_publisher``: the identity the on-prem signal exporter publishes the burst order's gate of
    this cloud with, built by the cloud's home site when the spec asks for it (AWS: a
    :class:`gpufleet.components.baseline.signal.BaselineSignal`; Alibaba: an
    :class:`gpufleet.components.identity.alicloud_publisher.AlicloudBurstPublisher`); ``None`` on every
    other site and on clouds without a publisher."""

    outputs: SiteOutputs

    @property
    def burst_publisher(self) -> pulumi.ComponentResource | None: ...


class SiteFactory(Protocol):
    def __call__(self, name: str, args: SiteArgs, opts: pulumi.ResourceOptions) -> Site: ...


def site_name(fleet: str, plan: SitePlan) -> str:
    """The logical name of a site's component: ``<fleet>-<cloud>-<region>``."""
    return f"{fleet}-{plan.cloud}-{plan.region}"


if TYPE_CHECKING:
    from gpufleet.components.sites.alicloud import AlicloudSite
    from gpufleet.components.sites.aws import AwsSite
    from gpufleet.components.sites.tencentcloud import TencentSite

    def _every_site_keeps_the_contract(
        aws: AwsSite, alicloud: AlicloudSite, tencent: TencentSite
    ) -> list[Site]:
        """For mypy only: each cloud's site class is a :class:`Site`."""
        return [aws, alicloud, tencent]
