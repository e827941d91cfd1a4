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
from typing import TYPE_CHECKING, Protocol

import pulumi

from gpufleet.components.clouds import Cloud
from gpufleet.components.spec.sites import SitePlan as SitePlan  # noqa: PLC0414 (re-export)

if TYPE_CHECKING:
    from gpufleet.components.pools.burst import Gate
    from gpufleet.components.pools.join import PoolJoin
    from gpufleet.components.spec import FleetSpec


class SiteError(Exception):
    """The spec asks a site for something its cloud cannot build; the message names the spec field."""


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
    # The pools whose nodes join the on-prem cluster (gpufleet.components.pools.join.plan_joins), by pool
    # name; empty without ``onprem.scheduler``. cluster-autoscaler alone sizes their groups.
    joins: Mapping[str, PoolJoin] = field(default_factory=dict)


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
    :class:`gpufleet.components.baseline.aws_signal.BaselineSignal`; Alibaba: an
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
