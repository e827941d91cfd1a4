"""Running the Tencent Cloud site under the recording mocks, with a hand-built spec and site plan.

Tencent invokes get the offline engine's answers (:data:`gpufleet.invokes.INVOKES`), so the tests
also see what `gpufleet plan` sees; everything else is :class:`tests.components.conftest.RecordingMocks`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast

import pulumi

from gpufleet.components.sites.base import SiteArgs, SitePlan
from gpufleet.components.sites.tencentcloud import TencentSite
from gpufleet.components.spec import FleetSpec
from gpufleet.invokes import INVOKES
from tests.components.conftest import RecordingMocks, Runner

REGION = "ap-guangzhou"
FLEET = "gf-dev"
SITE = f"{FLEET}-tencentcloud-{REGION}"
STACK = "gpufleet/tc-test"
TAGS = {
    "project": "vision",
    "team": "ml-platform",
    "cost-center": "cc-042",
    "env": "dev",
    "gpufleet:stack": STACK,
}

SPEC: dict[str, Any] = {
    "environment": "dev",
    "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
    "budget": {"monthly": 1000, "currency": "USD", "alert_percent": 80},
    "storage": {"checkpoints": {"encryption": "sse-kms", "ia_after_days": 7, "expire_after_days": 30}},
    "audit": {"trail": True, "log_retention_days": 180},
    "network": {"vpc_cidr": "10.50.0.0/16", "availability_zones": 2, "egress": "none"},
    "pools": {
        "t4": {
            "cloud": "tencentcloud",
            "region": REGION,
            "instance_types": ["GN7.2XLARGE32"],
            "workload": {"image_reads_queue": True},
            "size": {"min": 0, "max": 4},
            "spot_percent": 100,
            "off_hours": {"timezone": "Asia/Shanghai", "scale_to_zero": "20:00-08:00", "weekends": True},
        }
    },
}


class TencentMocks(RecordingMocks):
    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        handler = INVOKES.get(args.token)
        if args.token.startswith("tencentcloud:") and handler is not None:
            self.calls.append((args.token, dict(args.args)))
            return handler(cast("Any", None), dict(args.args), REGION), []
        return super().call(args)


def spec(**changes: Any) -> FleetSpec:
    """The test spec with top-level sections replaced (``pools={...}``) or merged (``pool_t4={...}``)."""
    data = copy.deepcopy(SPEC)
    for key, value in changes.items():
        if key.startswith("pool_"):
            data["pools"][key[5:]].update(value)
        elif key.startswith("checkpoints"):
            data["storage"]["checkpoints"].update(value)
        else:
            data[key] = value
    return FleetSpec.model_validate(data)


def plan(**changes: Any) -> SitePlan:
    values: dict[str, Any] = {
        "cloud": "tencentcloud",
        "region": REGION,
        "home": True,
        "pools": ("t4",),
        "vpc_cidr": "10.50.0.0/16",
        "availability_zones": 2,
    }
    values.update(changes)
    return SitePlan(**values)


def site_args(
    fleet_spec: FleetSpec | None = None, site_plan: SitePlan | None = None, **extra: Any
) -> SiteArgs:
    return SiteArgs(
        fleet=FLEET,
        spec=fleet_spec or spec(),
        plan=site_plan or plan(),
        tags=TAGS,
        stack=STACK,
        **extra,
    )


def build_site(run_pulumi: Runner, args: SiteArgs) -> tuple[TencentMocks, TencentSite]:
    """Build the site under fresh Tencent mocks (inside ``run_pulumi``'s loop and drain)."""
    mocks = TencentMocks()
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="tc-test", preview=False)
    built: dict[str, TencentSite] = {}

    def build() -> None:
        built["site"] = TencentSite(SITE, args, pulumi.ResourceOptions())

    run_pulumi(build)
    return mocks, built["site"]


def inputs(mocks: RecordingMocks, typ: str, name: str) -> Mapping[str, Any]:
    return mocks.one(typ, name).inputs
