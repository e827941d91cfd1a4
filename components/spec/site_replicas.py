"""The checkpoint replicas' regions in the site plan (:func:`gpufleet.components.spec.sites.site_plans`):
``storage.checkpoints.replicate_to`` (the AWS bucket's second region) and ``replica_regions`` (the
Alibaba and Tencent buckets'), and how a region name is judged for a cloud."""

from __future__ import annotations

import re
from collections.abc import Mapping

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog.regions import REGIONS, region_problem
from gpufleet.components.clouds import CHINA_CLOUDS, CLOUD_NAMES, REGION_CONFIG_KEYS, Cloud
from gpufleet.components.spec.specs import FleetSpec

_AWS_REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")


def region_site_problem(cloud: Cloud, region: str) -> str | None:
    """Why ``region`` is not one of ``cloud``'s: for AWS a name of another shape is said so first."""
    if cloud == "aws" and not _AWS_REGION_RE.match(region):
        return f"{limits.quote(region)} is not an AWS region name like us-west-2"
    return region_problem(cloud, region)


def checkpoint_replica(
    spec: FleetSpec,
    regions: Mapping[Cloud, str],
    homes: Mapping[Cloud, str],
    problems: list[tuple[str, str]],
) -> str | None:
    """``storage.checkpoints.replicate_to`` when it can be built (a second AWS region of a fleet with AWS
    pools); ``None`` otherwise, with the reason added to ``problems``."""
    replica = spec.storage.checkpoints.replicate_to
    replica_path = "storage.checkpoints.replicate_to"
    if replica is not None:
        replica_problem = region_site_problem("aws", replica)
        if replica_problem is not None:
            problems.append((replica_path, replica_problem))
            replica = None
        elif replica == regions.get("aws"):
            problems.append(
                (
                    replica_path,
                    f"{replica} is the stack's own aws:region; the replica must be in a second "
                    "region to survive a regional outage",
                )
            )
            replica = None
        elif "aws" not in homes:
            if not any(p.cloud == "aws" for p in spec.pools.values()):
                problems.append(
                    (replica_path, "replicates the AWS checkpoint bucket, but no pool runs on AWS: remove it")
                )
            replica = None
    return replica


def replica_region_problems(
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
