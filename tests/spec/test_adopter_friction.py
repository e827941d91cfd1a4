"""What an adopter meets first: every spec error in one run, and networks that need not be named."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import yaml

from gpufleet.components.spec import parse_fleet, site_plans
from tests.cli.helpers import DEV_STACK, copy_project, invoke, replace_once

SOURCE = "stacks/Pulumi.x.yaml"
ROOT = Path(__file__).resolve().parents[2]


def test_five_independent_errors_are_reported_in_one_run(tmp_path: Path) -> None:
    """An unknown instance type must not wait behind four other errors to be seen."""
    text = DEV_STACK
    for old, new in (
        ("g4dn.xlarge, g5.xlarge", "g4dn.xlarge, g5.xlargeee"),
        ("spot_percent: 100", "spot_percent: 140"),
        ("disk_gib: 200", "disk_gib: 5"),
        ("monthly: 3000,", "monthly: -3,"),
        ("availability_zones: 2,", "availability_zones: 2, egres: none,"),
    ):
        text = replace_once(text, old, new)
    project = copy_project(tmp_path / "p", {"dev": text})
    run = invoke("check", str(project), "-s", "dev", "--format", "text", "--no-checkov")
    assert run.exit_code == 2
    lines = [line.strip() for line in run.stderr.splitlines()]
    assert lines[0] == "error: stacks/Pulumi.dev.yaml: invalid gpufleet:fleet (5 problems):"
    where = "stacks/Pulumi.dev.yaml: gpufleet:fleet"
    assert sorted(lines[1:6]) == sorted(
        [
            f"{where}.budget.monthly: must be > 0, got -3",
            f"{where}.network: unknown field 'egres'; did you mean 'egress'? allowed: vpc_cidr, subnet_ids, "
            "availability_zones, "
            "regions, egress",
            f"{where}.pools.experiments.spot_percent: must be <= 100, got 140",
            f"{where}.pools.experiments.disk_gib: must be >= 20, got 5",
            f"{where}.pools.experiments.instance_types[1]: unknown aws instance type 'g5.xlargeee'; "
            "did you mean g5.xlarge, g5g.xlarge, g5.8xlarge?",
        ]
    )


def _hybrid_without_cloud_networks() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    fleet = config["gpufleet:fleet"]
    # Only the AWS home's range is named; the Alibaba and Tencent sites name none.
    fleet["network"].pop("regions")
    # On-prem ranges inside 10.0.0.0/8, where the defaults are carved from.
    fleet["onprem"]["node_cidrs"] = ["10.0.0.0/16"]
    fleet["onprem"]["pod_cidrs"] = ["10.1.0.0/16", "10.244.0.0/16"]
    fleet["onprem"]["service_cidrs"] = ["10.2.0.0/16"]
    fleet["onprem"]["data_cidrs"] = ["10.3.0.0/24"]
    # The scheduler's API server sits in the node range the links route.
    fleet["onprem"]["scheduler"]["api_server"] = "10.0.0.10:6443"
    fleet["onprem"]["scheduler"].pop("control_plane_cidrs", None)
    fleet["links"] = {}
    fleet.get("burst", {}).pop("order", None)
    return {key: config[key] for key in ("aws:region", "alicloud:region", "tencentcloud:region")} | {
        "fleet": fleet
    }


def test_sites_without_a_network_get_default_ranges_disjoint_from_each_other_and_on_prem() -> None:
    config = _hybrid_without_cloud_networks()
    spec = parse_fleet(config["fleet"], source=SOURCE)
    regions = {"aws": config["aws:region"], "alicloud": config["alicloud:region"]}
    regions["tencentcloud"] = config["tencentcloud:region"]
    plans = site_plans(spec, regions, source=SOURCE)
    ranges = {p.key: ipaddress.IPv4Network(p.vpc_cidr) for p in plans if p.vpc_cidr is not None}
    assert ranges == {
        "aws:us-east-1": ipaddress.IPv4Network("10.43.0.0/16"),
        "alicloud:cn-hangzhou": ipaddress.IPv4Network("10.4.0.0/16"),
        "tencentcloud:ap-guangzhou": ipaddress.IPv4Network("10.5.0.0/16"),
    }
    assert spec.onprem is not None
    taken = [owned.network for owned in spec.onprem.owned_ranges()] + list(ranges.values())
    assert not any(a.overlaps(b) for i, a in enumerate(taken) for b in taken[i + 1 :])
