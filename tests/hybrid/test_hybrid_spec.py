"""The site plan's link checks: a link names a site of the fleet that has a VPC of its own, `links`
needs `onprem`, link ranges stay off every site's VPC; and each site learns the ranges its link carries."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpufleet.cli import app
from gpufleet.components.spec import SpecError, parse_fleet, site_plans
from tests.cli.helpers import copy_project
from tests.hybrid.conftest import ONPREM_NODES, ROOT

ONPREM_DATA = "192.168.32.0/24"
REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}
SITES_WITH_NETWORK = "aws:us-east-1, alicloud:cn-hangzhou, tencentcloud:ap-guangzhou"


def _fleet() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    fleet: dict[str, Any] = copy.deepcopy(config["gpufleet:fleet"])
    return fleet


def _problems(fleet: dict[str, Any], regions: dict[str, str | None] | None = None) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as caught:
        site_plans(parse_fleet(fleet), regions if regions is not None else dict(REGIONS))
    return caught.value.errors


def test_each_linked_site_carries_the_onprem_node_and_data_ranges() -> None:
    plans = site_plans(parse_fleet(_fleet()), dict(REGIONS))
    assert [(p.key, p.vpc_cidr, p.onprem_ranges) for p in plans] == [
        ("aws:us-east-1", "10.43.0.0/16", (ONPREM_NODES, ONPREM_DATA)),
        ("aws:us-west-2", None, ()),  # the AWS bucket's replica: no network, no link
        ("alicloud:cn-hangzhou", "10.50.0.0/16", (ONPREM_NODES, ONPREM_DATA)),
        ("tencentcloud:ap-guangzhou", "10.52.0.0/16", (ONPREM_NODES, ONPREM_DATA)),
    ]


def test_a_link_with_its_own_ranges_carries_those_and_a_site_without_a_link_none() -> None:
    fleet = _fleet()
    fleet["links"]["alicloud:cn-hangzhou"]["onprem_ranges"] = ["192.168.16.0/20", "172.20.0.0/16"]
    del fleet["links"]["tencentcloud:ap-guangzhou"]
    plans = {p.key: p.onprem_ranges for p in site_plans(parse_fleet(fleet), dict(REGIONS))}
    assert plans == {
        "aws:us-east-1": (ONPREM_NODES, ONPREM_DATA),
        "aws:us-west-2": (),
        "alicloud:cn-hangzhou": ("192.168.16.0/20", "172.20.0.0/16"),
        "tencentcloud:ap-guangzhou": (),
    }


def test_a_link_to_a_site_the_fleet_does_not_have_names_the_key_and_the_sites() -> None:
    fleet = _fleet()
    fleet["links"]["aws:eu-west-1"] = dict(fleet["links"]["aws:us-east-1"])
    assert _problems(fleet) == [
        (
            "gpufleet:fleet.links.aws:eu-west-1",
            "names no site of the fleet: aws:eu-west-1 runs no pool; the fleet's sites with a network of "
            f"their own are {SITES_WITH_NETWORK} (each cloud:region where a pool runs)",
        )
    ]


def test_links_without_onprem_are_refused() -> None:
    fleet = _fleet()
    del fleet["onprem"]
    for pool in fleet["pools"].values():  # no longer joined: each says what reads its queue
        pool["workload"] = {"image_reads_queue": True}
    assert _problems(fleet) == [
        (
            "gpufleet:fleet.links",
            "joins the on-prem network to the sites (aws:us-east-1, alicloud:cn-hangzhou, "
            "tencentcloud:ap-guangzhou), but the spec has no onprem section: add onprem (its cluster, "
            "node, pod and service ranges) or remove links",
        ),
        (
            "gpufleet:fleet.burst.publishers.alicloud",
            "needs the on-prem exporter, which is built with the AWS burst signal (onprem.signal); without "
            "it nothing publishes GatedBacklog and the Alibaba pools would burst on their fallback alarm "
            "alone: add it, or remove publishers.alicloud",
        ),
        (
            "gpufleet:fleet.onprem",
            "is missing: burst gates the AWS pools (burst-aws) on gpufleet/Baseline FreeGpusAhead, which "
            "only the on-prem exporter publishes; add onprem with its signal with trust_anchor_arn or "
            "ca_certificate, client_certificate, client_key and image (see docs/burst-order.md), or remove "
            "burst",
        ),
    ]


def test_a_link_to_a_site_in_existing_subnets_is_refused() -> None:
    fleet = _fleet()
    fleet["network"] = {**fleet["network"], "subnet_ids": ["subnet-0123456789abcdef0"]}
    del fleet["network"]["vpc_cidr"]
    assert _problems(fleet) == [
        (
            "gpufleet:fleet.links.aws:us-east-1",
            "aws:us-east-1 runs in existing subnets (network.subnet_ids), whose VPC and route tables the "
            "fleet does not own: a link reaches a VPC the fleet creates (alicloud:cn-hangzhou, "
            "tencentcloud:ap-guangzhou)",
        )
    ]


def test_a_link_range_inside_a_site_vpc_is_refused_naming_both() -> None:
    fleet = _fleet()
    fleet["links"]["tencentcloud:ap-guangzhou"]["onprem_ranges"] = ["10.43.8.0/21"]
    assert _problems(fleet) == [
        (
            "gpufleet:fleet.links.tencentcloud:ap-guangzhou.onprem_ranges[0]",
            "10.43.8.0/21 overlaps aws:us-east-1's VPC range 10.43.0.0/16: a link routes on-prem ranges "
            "only, and a route to a cloud range would take that site's traffic",
        )
    ]


def test_check_exits_2_naming_the_file_and_the_link(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", stacks={})
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())
    document["config"]["gpufleet:fleet"]["links"]["alicloud:cn-shanghai"] = {
        "kind": "vpn",
        "gateway_ip": "198.51.100.20",
        "psk_config": "aliLinkPsk",
    }
    (project / "stacks" / "Pulumi.bad.yaml").write_text(yaml.safe_dump(document))
    result = CliRunner().invoke(app, ["check", str(project), "-s", "bad"], prog_name="gpufleet")
    assert result.exit_code == 2, result.output
    assert "stacks/Pulumi.bad.yaml" in result.stderr
    assert "gpufleet:fleet.links.alicloud:cn-shanghai: names no site of the fleet" in result.stderr
    assert "Traceback" not in result.output
