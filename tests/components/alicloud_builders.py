"""A hand-built Alibaba Cloud site: the spec, its site plan and the site, under the recording mocks."""

from __future__ import annotations

import copy
from typing import Any

from gpufleet.components.sites.alicloud import AlicloudSite
from gpufleet.components.sites.base import SiteArgs, SitePlan
from gpufleet.components.spec import FleetSpec, parse_fleet

REGION = "cn-hangzhou"
FLEET = "gpufleet-cn-dev"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
SITE_TAGS = {**TAGS, "gpufleet:stack": "gpufleet/cn-dev"}
A10 = "ecs.gn7i-c8g1.2xlarge"
T4 = "ecs.gn6i-c4g1.xlarge"

SPEC: dict[str, Any] = {
    "environment": "dev",
    "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
    "budget": {"monthly": 20000, "currency": "CNY"},
    "network": {"vpc_cidr": "10.60.0.0/16", "availability_zones": 2},
    "pools": {
        "a10": {
            "cloud": "alicloud",
            "region": REGION,
            "instance_types": [A10, T4],
            "workload": {"image_reads_queue": True},
            "size": {"min": 0, "max": 4},
            "spot_percent": 100,
            "off_hours": {"timezone": "Asia/Shanghai", "scale_to_zero": "20:00-08:00"},
        }
    },
}


def spec_of(**changes: Any) -> FleetSpec:
    """The spec with top-level sections replaced (``pools`` merges into pool ``a10``)."""
    raw = copy.deepcopy(SPEC)
    pool = changes.pop("pool", None)
    raw.update(changes)
    if pool is not None:
        raw["pools"]["a10"].update(pool)
    return parse_fleet(raw)


def plan_of(**changes: Any) -> SitePlan:
    values: dict[str, Any] = {
        "cloud": "alicloud",
        "region": REGION,
        "home": True,
        "pools": ("a10",),
        "vpc_cidr": "10.60.0.0/16",
        "availability_zones": 2,
    }
    values.update(changes)
    return SitePlan(**values)


def site_args(spec: FleetSpec | None = None, plan: SitePlan | None = None) -> SiteArgs:
    return SiteArgs(
        fleet=FLEET,
        spec=spec or spec_of(),
        plan=plan or plan_of(),
        tags=SITE_TAGS,
        stack="gpufleet/cn-dev",
    )


def build_site(spec: FleetSpec | None = None, plan: SitePlan | None = None) -> AlicloudSite:
    return AlicloudSite(f"{FLEET}-alicloud-{REGION}", site_args(spec, plan))
