"""The site plan: which sites (cloud and region) a fleet has, and what each must build, worked out from
the spec and the stack's provider regions before anything is built.

A pool runs at (its cloud, its ``region`` or that cloud's provider region: ``aws:region``,
``alicloud:region``, ``tencentcloud:region``). Each cloud with pools has a home site, at its provider
region (or, without one, the region of its first pool); AWS needs ``aws:region``, whose site holds the
fleet's trail, budget and account plan. ``storage.checkpoints.replicate_to`` adds an AWS site for the
replica; ``storage.checkpoints.replica_regions`` names, for Alibaba Cloud and Tencent Cloud, the second
region their sites replicate their checkpoint buckets into (built by each site, not a site of its own).
Networks: ``network.vpc_cidr`` (and ``subnet_ids``) is the AWS home's; every other site with pools takes
its range from ``network.regions``, keyed ``cloud:region`` (a bare region means AWS).

Every problem is reported at once, each naming the spec field or config key to change: a spec whose
plan is made builds.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog.regions import REGIONS, region_problem
from gpufleet.components.clouds import (
    ACCOUNT_CLOUD,
    CHINA_CLOUDS,
    CLOUD_NAMES,
    CLOUDS,
    REGION_CONFIG_KEYS,
    Cloud,
    cloud_parts,
    part_values,
    profile,
)
from gpufleet.components.network.onprem import EgressRule
from gpufleet.components.spec.site_links import link_problems, with_link
from gpufleet.components.spec.specs import FleetSpec
from gpufleet.components.spec.values import CONFIG_KEY, SpecError

_CLOUD_LIST = ", ".join(CLOUDS)
# Each cloud's spec facts (``spec/<cloud>.py``): its region names' shape, its own network checks.
PARTS = cloud_parts("gpufleet.components.spec")
# The fleet's home cloud: its provider region holds the key, checkpoint bucket, trail and budget, its
# home network is ``network.vpc_cidr``, and a bare region in ``network.regions`` is one of its regions.
_HOME = ACCOUNT_CLOUD
_HOME_NAME = profile(_HOME).name
_HOME_KEY = profile(_HOME).region_key
# The cloud whose pools a burst order gates on the exporter's signal.
_SIGNAL_CLOUD = next(cloud for cloud, gated in part_values(PARTS, "BURST_SIGNAL").items() if gated)
_SIGNAL_NAME = profile(_SIGNAL_CLOUD).name


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
    # Joined nodes (``onprem.scheduler``): the on-prem ranges their kubelets admit (TCP 10250), those of
    # ``scheduler.control_plane_cidrs`` the site's link routes.
    kubelet_sources: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``cloud:region``, the site's name in the spec, in errors and in `gpufleet plan`."""
        return f"{self.cloud}:{self.region}"


@dataclass(frozen=True)
class _Entry:
    """One ``network.regions`` entry: the key as written and the site it names."""

    key: str
    cloud: Cloud
    region: str
    vpc_cidr: str
    availability_zones: int


def provider_region_problems(provider_regions: Mapping[str, str | None]) -> list[tuple[str, str]]:
    """Each provider region that is not one of its cloud's regions, by its config key."""
    found = []
    for cloud in CLOUDS:
        region = provider_regions.get(cloud)
        problem = region_problem(cloud, region) if isinstance(region, str) else None
        if problem is not None:
            found.append((REGION_CONFIG_KEYS[cloud], problem))
    return found


def _region_problem(cloud: Cloud, region: str) -> str | None:
    """Why ``region`` is not one of ``cloud``'s: for AWS a name of another shape is said so first."""
    part = PARTS.get(cloud)
    pattern = getattr(part, "REGION_NAME_RE", None)
    if part is not None and pattern is not None and not pattern.match(region):
        return f"{limits.quote(region)} is not {part.REGION_NAME}"
    return region_problem(cloud, region)


def _where(cloud: Cloud, region: str) -> str:
    """How ``network.regions`` names a site: the bare region for AWS, ``cloud:region`` otherwise."""
    return region if cloud == _HOME else f"{cloud}:{region}"


def _entries(spec: FleetSpec, problems: list[tuple[str, str]]) -> dict[tuple[Cloud, str], _Entry]:
    entries: dict[tuple[Cloud, str], _Entry] = {}
    for key, network in spec.network.regions.items():
        path = f"network.regions.{limits.clip(key, 80)}"
        prefix, sep, rest = key.partition(":")
        cloud_name, region = (prefix, rest) if sep else (_HOME, key)
        cloud = next((c for c in CLOUDS if c == cloud_name), None)
        if cloud is None:
            problems.append(
                (
                    path,
                    f"unknown cloud {limits.quote(cloud_name)}: key entries by cloud:region with cloud "
                    f"one of {_CLOUD_LIST} (a bare region is an {_HOME_NAME} region)",
                )
            )
            continue
        problem = _region_problem(cloud, region)
        if problem is not None:
            problems.append((path, problem))
            continue
        if (cloud, region) in entries:
            problems.append((path, f"names the same site as network.regions.{entries[cloud, region].key}"))
            continue
        entries[cloud, region] = _Entry(key, cloud, region, str(network.vpc_cidr), network.availability_zones)
    return entries


def site_plans(
    spec: FleetSpec, provider_regions: Mapping[str, str | None], *, source: str = "stack config"
) -> list[SitePlan]:
    """The fleet's sites, each cloud's home first, clouds in the order their first pool appears.

    ``provider_regions``: cloud -> the stack's provider region (any may be missing). Raises SpecError
    listing every problem, paths under ``gpufleet:fleet`` or the provider config key to set."""
    problems = provider_region_problems(provider_regions)
    bad_providers = {key for key, _ in problems}
    regions = {
        cloud: region
        for cloud in CLOUDS
        if isinstance(region := provider_regions.get(cloud), str)
        and region
        and REGION_CONFIG_KEYS[cloud] not in bad_providers
    }
    entry_problems: list[tuple[str, str]] = []
    entries = _entries(spec, entry_problems)
    homes, unplaced, at = _place_pools(spec, regions, bad_providers, entries, problems)
    replica = _checked_replica(spec, regions, homes, problems)
    problems += _replica_region_problems(spec, regions, homes, at, unplaced)
    problems += entry_problems
    problems += _unused_entry_problems(
        spec, regions=regions, entries=entries, homes=homes, at=at, unplaced=unplaced
    )
    problems += _home_network_problems(spec, entries, homes, at)
    if problems:
        raise SpecError([(_full(path), message) for path, message in problems], source)
    plans = _plans(spec, homes, at, entries, replica)
    found = link_problems(spec, plans) + _signal_problems(spec, plans)
    if found:
        raise SpecError([(_full(path), message) for path, message in found], source)
    return [with_link(spec, plan) for plan in plans]


def _place_pools(
    spec: FleetSpec,
    regions: Mapping[Cloud, str],
    bad_providers: set[str],
    entries: Mapping[tuple[Cloud, str], _Entry],
    problems: list[tuple[str, str]],
) -> tuple[dict[Cloud, str], set[Cloud], dict[tuple[Cloud, str], list[str]]]:
    """Each pool's site: (each cloud's home region, the clouds with a pool whose region is unknown,
    the pools at each cloud:region). Problems are appended to ``problems``."""
    homes: dict[Cloud, str] = {}
    unplaced: set[Cloud] = set()  # clouds with a pool whose region is unknown: their entries may be used
    at: dict[tuple[Cloud, str], list[str]] = {}
    for name, pool in spec.pools.items():
        cloud: Cloud = pool.cloud
        path = f"pools.{name}.region"
        key = REGION_CONFIG_KEYS[cloud]
        region = pool.region or regions.get(cloud)
        if region is None:
            unplaced.add(cloud)
            if key not in bad_providers:
                problems.append(
                    (
                        path,
                        f"is not set and the stack has no {key}: set {key} in the stack's "
                        "config, or give the pool a region",
                    )
                )
            continue
        problem = _region_problem(cloud, region)
        if problem is not None:
            problems.append((path, problem))
            continue
        if cloud == _HOME and _HOME not in regions:
            _no_home(key, bad_providers, problems)
            continue
        home = homes.setdefault(cloud, regions.get(cloud, region))
        if region != home and (cloud, region) not in entries:
            said = f"the stack's {key} {home}" if cloud in regions else f"{cloud}'s home region {home}"
            problems.append(
                (
                    path,
                    f"{region} differs from {said} and needs its own network: add network.regions."
                    f"{_where(cloud, region)}.vpc_cidr, a range that overlaps none of the fleet's others",
                )
            )
            continue
        at.setdefault((cloud, region), []).append(name)
    return homes, unplaced, at


def _no_home(key: str, bad_providers: set[str], problems: list[tuple[str, str]]) -> None:
    """An AWS pool with a region of its own but no stack aws:region: the home needs one (said once)."""
    if key not in bad_providers and not any(p == key for p, _ in problems):
        problems.append(
            (
                key,
                f"is not set: the fleet's {_HOME_NAME} home (its key, checkpoint bucket, trail "
                f"and budget) is the stack's {_HOME_KEY}; set it in the stack's config",
            )
        )


def _checked_replica(
    spec: FleetSpec, regions: Mapping[Cloud, str], homes: Mapping[Cloud, str], problems: list[tuple[str, str]]
) -> str | None:
    """``storage.checkpoints.replicate_to`` when it is usable, else None (with the problem appended)."""
    replica = spec.storage.checkpoints.replicate_to
    replica_path = "storage.checkpoints.replicate_to"
    if replica is None:
        return None
    replica_problem = _region_problem(_HOME, replica)
    if replica_problem is not None:
        problems.append((replica_path, replica_problem))
        return None
    if replica == regions.get(_HOME):
        problems.append(
            (
                replica_path,
                f"{replica} is the stack's own {_HOME_KEY}; the replica must be in a second "
                "region to survive a regional outage",
            )
        )
        return None
    if _HOME not in homes:
        if not any(p.cloud == _HOME for p in spec.pools.values()):
            said = (
                f"replicates the {_HOME_NAME} checkpoint bucket, but no pool runs on {_HOME_NAME}: remove it"
            )
            problems.append((replica_path, said))
        return None
    return replica


def _unused_entry_problems(
    spec: FleetSpec,
    *,
    regions: Mapping[Cloud, str],
    entries: Mapping[tuple[Cloud, str], _Entry],
    homes: Mapping[Cloud, str],
    at: Mapping[tuple[Cloud, str], list[str]],
    unplaced: set[Cloud],
) -> list[tuple[str, str]]:
    """``network.regions`` entries that name the AWS home or a site no pool runs in."""
    problems: list[tuple[str, str]] = []
    used = set(at) | set(homes.items())
    for (cloud, region), entry in entries.items():
        path = f"network.regions.{limits.clip(entry.key, 80)}"
        if cloud == _HOME and region == regions.get(_HOME):
            problems.append(
                (
                    path,
                    f"this is the stack's own {_HOME_KEY}, whose network is network.vpc_cidr; remove the "
                    "entry",
                )
            )
        elif (
            cloud not in unplaced
            and (cloud, region) not in used
            and not any(
                p.cloud == cloud and (p.region or regions.get(cloud)) == region for p in spec.pools.values()
            )
        ):
            problems.append(
                (
                    path,
                    f"no pool runs in {_where(cloud, region)}; remove the entry or add a pool with that "
                    "region",
                )
            )
    return problems


def _home_network_problems(
    spec: FleetSpec,
    entries: dict[tuple[Cloud, str], _Entry],
    homes: Mapping[Cloud, str],
    at: Mapping[tuple[Cloud, str], list[str]],
) -> list[tuple[str, str]]:
    """The homes' networks: each other cloud's home gets a default range (added to ``entries``) or a
    problem; the AWS home's network is checked, and refused when no pool runs on AWS."""
    problems: list[tuple[str, str]] = []
    defaults = _default_home_entries(spec, at, homes, entries)
    if defaults is None:
        problems += [
            (
                f"network.regions.{cloud}:{region}.vpc_cidr",
                f"is missing and 10.0.0.0/8 has no free /16 left for {cloud}:{region}; add it, a range "
                "that overlaps none of the fleet's others",
            )
            for (cloud, region) in at
            if cloud != _HOME and region == homes.get(cloud) and (cloud, region) not in entries
        ]
    else:
        entries.update(defaults)
    for cloud, checks in part_values(PARTS, "network_problems").items():
        problems += checks(spec, at, homes.get(cloud))
    if _HOME not in homes and not any(p.cloud == _HOME for p in spec.pools.values()):
        given = sorted({"vpc_cidr", "subnet_ids", "availability_zones"} & spec.network.model_fields_set)
        problems += [
            (
                f"network.{field}",
                f"is the {_HOME_NAME} home's network, but no pool runs on {_HOME_NAME}: remove it (each "
                "other site's network is its network.regions entry, keyed cloud:region)",
            )
            for field in given
        ]
    return problems


def _replica_region_problems(
    spec: FleetSpec,
    regions: Mapping[Cloud, str],
    homes: Mapping[Cloud, str],
    at: Mapping[tuple[Cloud, str], list[str]],
    unplaced: set[Cloud],
) -> list[tuple[str, str]]:
    """``storage.checkpoints.replica_regions``: each a region of its cloud, on a cloud with pools, and
    not a region where that cloud has a site (the replica must survive the loss of every source's
    region). The allowed regions are listed."""
    found: list[tuple[str, str]] = []
    replicas = spec.storage.checkpoints.replica_regions
    for cloud in CHINA_CLOUDS:
        region = getattr(replicas, cloud)
        if region is None:
            continue
        path = f"storage.checkpoints.replica_regions.{cloud}"
        name = CLOUD_NAMES[cloud]
        problem = region_problem(cloud, region)
        if problem is not None:
            found.append((path, problem))
            continue
        if not any(p.cloud == cloud for p in spec.pools.values()):
            found.append(
                (path, f"replicates the {name} checkpoint buckets, but no pool runs on {name}: remove it")
            )
            continue
        if cloud in unplaced and cloud not in homes:
            continue  # the pools' regions are reported; the replica is judged once they are known
        sites = sorted({r for c, r in at if c == cloud} | ({homes[cloud]} if cloud in homes else set()))
        if region not in sites:
            continue
        others = ", ".join(r for r in REGIONS[cloud] if r not in sites)
        if region == regions.get(cloud) or (cloud not in regions and region == homes.get(cloud)):
            said = f"the stack's {REGION_CONFIG_KEYS[cloud]}" if cloud in regions else f"{name}'s home region"
            where = f"{region} is {said}"
        else:
            where = f"{region} is where pools {', '.join(at[cloud, region])} run, with a bucket of its own"
        found.append(
            (
                path,
                f"{where}; the replica must be in a region with no {name} site to survive a regional "
                f"outage: use one of {others}",
            )
        )
    return found


DEFAULT_SUPERNET = ipaddress.IPv4Network("10.0.0.0/8")


def _default_home_entries(
    spec: FleetSpec,
    at: Mapping[tuple[Cloud, str], list[str]],
    homes: Mapping[Cloud, str],
    entries: Mapping[tuple[Cloud, str], _Entry],
) -> dict[tuple[Cloud, str], _Entry] | None:
    """A network for each Alibaba Cloud and Tencent Cloud home site with pools that ``network.regions``
    does not name (``network.vpc_cidr`` is the AWS home's): the first free /16 of 10.0.0.0/8, clear of
    the AWS home's range (when AWS has pools), every ``network.regions`` range and the on-prem ranges,
    two zones. An Alibaba-only or Tencent-only stack then needs no network section at all. None when
    10.0.0.0/8 has no room left."""
    from gpufleet.components.spec.addresses import AddressError, carve

    wanted = [
        (cloud, region)
        for (cloud, region) in at
        if cloud != _HOME and region == homes.get(cloud) and (cloud, region) not in entries
    ]
    if not wanted:
        return {}
    taken = [ipaddress.IPv4Network(entry.vpc_cidr) for entry in entries.values()]
    if any(p.cloud == _HOME for p in spec.pools.values()) and not spec.network.subnet_ids:
        taken.append(spec.network.vpc_cidr)
    if spec.onprem is not None:
        taken += [owned.network for owned in spec.onprem.owned_ranges()]
    names = [f"{cloud}:{region}" for cloud, region in wanted]
    try:
        ranges = carve(DEFAULT_SUPERNET, names, taken=taken)
    except AddressError:
        return None
    return {
        (cloud, region): _Entry(name, cloud, region, str(ranges[name]), 2)
        for (cloud, region), name in zip(wanted, names, strict=True)
    }


def _signal_problems(spec: FleetSpec, plans: list[SitePlan]) -> list[tuple[str, str]]:
    """A burst order that gates AWS pools needs the exporter that publishes their signal; the Alibaba
    gate is published by that same exporter, so it needs it too."""
    if spec.burst is None:
        return []
    gated = [pool for plan in plans if plan.cloud == _SIGNAL_CLOUD for pool in plan.pools]
    found: list[tuple[str, str]] = []
    for cloud in CLOUDS:
        if getattr(spec.burst.publishers, cloud, None) is None or (
            gated and spec.onprem is not None and spec.onprem.signal is not None
        ):
            continue
        # Without the exporter nothing publishes GatedBacklog: the gated alarms would never fire and
        # the pools would burst on their fallback alarm alone, after fallback_after_s.
        need = (
            f"an {_SIGNAL_NAME} pool in the burst order and onprem.signal" if not gated else "onprem.signal"
        )
        found.append(
            (
                f"burst.publishers.{cloud}",
                f"needs the on-prem exporter, which is built with the {_SIGNAL_NAME} burst signal "
                f"({need}); without it nothing publishes GatedBacklog and the {PARTS[cloud].SHORT_NAME} "
                f"pools would burst on their fallback alarm alone: add it, or remove publishers.{cloud}",
            )
        )
    if not gated or (spec.onprem is not None and spec.onprem.signal is not None):
        return found
    what = (
        f"burst gates the {_SIGNAL_NAME} pools ({', '.join(gated)}) on gpufleet/Baseline FreeGpusAhead, "
        "which only the on-prem exporter publishes"
    )
    add = (
        "signal with trust_anchor_arn or ca_certificate, client_certificate, client_key and image (see "
        "docs/burst-order.md)"
    )
    if spec.onprem is None:
        return [*found, ("onprem", f"is missing: {what}; add onprem with its {add}, or remove burst")]
    return [*found, ("onprem.signal", f"is missing: {what}; add onprem.{add}, or remove burst")]


def _full(path: str) -> str:
    return path if path in REGION_CONFIG_KEYS.values() else f"{CONFIG_KEY}.{path}"


def _plans(
    spec: FleetSpec,
    homes: Mapping[Cloud, str],
    at: Mapping[tuple[Cloud, str], list[str]],
    entries: Mapping[tuple[Cloud, str], _Entry],
    replica: str | None,
) -> list[SitePlan]:
    order: list[Cloud] = []
    for pool in spec.pools.values():
        if pool.cloud in homes and pool.cloud not in order:
            order.append(pool.cloud)
    plans: list[SitePlan] = []
    for cloud in order:
        home = homes[cloud]
        regions = {region for c, region in at if c == cloud}
        if cloud == _HOME and replica is not None:
            regions.add(replica)
        for region in [home, *sorted(regions - {home})]:
            pools = tuple(at.get((cloud, region), ()))
            entry = entries.get((cloud, region))
            if cloud == _HOME and region == home:
                net = spec.network
                subnets = tuple(net.subnet_ids or ())
                vpc = None if subnets or not pools else str(net.vpc_cidr)
                zones = net.availability_zones
            else:
                subnets = ()
                vpc = entry.vpc_cidr if entry is not None and pools else None
                zones = entry.availability_zones if entry is not None else 2
            plans.append(
                SitePlan(
                    cloud=cloud,
                    region=region,
                    home=region == home,
                    pools=pools,
                    vpc_cidr=vpc,
                    availability_zones=zones,
                    subnet_ids=subnets,
                )
            )
    return plans
