"""`onprem.data_cidrs` and `onprem.reachable`: the spec errors (each naming the field and what is
allowed), the defaults, what each link routes and what each site's security group opens."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpufleet.cli import app
from gpufleet.components.network.onprem import EgressRule
from gpufleet.components.spec import SpecError, parse_fleet, site_plans
from tests.cli.helpers import copy_project
from tests.hybrid.conftest import ONPREM_NODES, ROOT

REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}
DATA = "192.168.32.0/24"
SOURCE = "stacks/Pulumi.hybrid.yaml"
P = f"{SOURCE}: gpufleet:fleet.onprem"
# Burst nodes join the cluster (onprem.scheduler): the fleet adds its API server to the spec's endpoints.
API_SERVER = EgressRule(
    endpoint="kube-apiserver", protocol="tcp", from_port=6443, to_port=6443, cidrs=("192.168.16.10/32",)
)
HYBRID_RULES = (
    EgressRule(endpoint="ingress", protocol="tcp", from_port=443, to_port=443, cidrs=(ONPREM_NODES,)),
    EgressRule(endpoint="storage", protocol="tcp", from_port=443, to_port=443, cidrs=(DATA,)),
    EgressRule(endpoint="storage", protocol="tcp", from_port=2049, to_port=2049, cidrs=(DATA,)),
    API_SERVER,
)


def _fleet() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    fleet: dict[str, Any] = copy.deepcopy(config["gpufleet:fleet"])
    return fleet


def _errors(fleet: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as raised:
        site_plans(parse_fleet(fleet, source=SOURCE), dict(REGIONS), source=SOURCE)
    return str(raised.value).splitlines()


def _plans(fleet: dict[str, Any]) -> dict[str, tuple[tuple[str, ...], tuple[EgressRule, ...]]]:
    """The sites with a network (the AWS bucket's replica-only site has none, so no link and no egress)."""
    plans = site_plans(parse_fleet(fleet), dict(REGIONS))
    return {p.key: (p.onprem_ranges, p.onprem_egress) for p in plans if p.vpc_cidr is not None}


def test_the_replica_only_site_gets_no_route_and_no_egress() -> None:
    plans = {p.key: p for p in site_plans(parse_fleet(_fleet()), dict(REGIONS))}
    replica = plans["aws:us-west-2"]
    assert (replica.vpc_cidr, replica.onprem_ranges, replica.onprem_egress) == (None, (), ())


def test_the_hybrid_stack_routes_nodes_and_data_and_opens_its_endpoints_only() -> None:
    plans = _plans(_fleet())
    assert plans == dict.fromkeys(plans, ((ONPREM_NODES, DATA), HYBRID_RULES))
    assert list(plans) == ["aws:us-east-1", "alicloud:cn-hangzhou", "tencentcloud:ap-guangzhou"]


def test_without_reachable_the_defaults_are_https_on_the_nodes_and_https_and_nfs_on_the_data() -> None:
    fleet = _fleet()
    del fleet["onprem"]["reachable"]
    assert set(_plans(fleet).values()) == {
        (
            (ONPREM_NODES, DATA),
            (
                EgressRule(
                    endpoint="baseline", protocol="tcp", from_port=443, to_port=443, cidrs=(ONPREM_NODES,)
                ),
                EgressRule(endpoint="data", protocol="tcp", from_port=443, to_port=443, cidrs=(DATA,)),
                EgressRule(endpoint="data", protocol="tcp", from_port=2049, to_port=2049, cidrs=(DATA,)),
                API_SERVER,
            ),
        )
    }
    del fleet["onprem"]["data_cidrs"]
    assert set(_plans(fleet).values()) == {
        (
            (ONPREM_NODES,),
            (
                EgressRule(
                    endpoint="baseline", protocol="tcp", from_port=443, to_port=443, cidrs=(ONPREM_NODES,)
                ),
                API_SERVER,
            ),
        )
    }


def test_pods_and_services_are_routed_only_when_an_endpoint_lies_there() -> None:
    fleet = _fleet()
    fleet["onprem"]["reachable"] = [
        {"name": "metrics", "cidrs": ["10.96.0.10/32"], "ports": [9090, "30000-32767"], "protocol": "tcp"},
        {"name": "dns", "cidrs": ["10.96.0.53/32"], "ports": [53], "protocol": "udp"},
    ]
    routes, rules = _plans(fleet)["aws:us-east-1"]
    # The service range holds the endpoints; the pod range holds none and stays off the links.
    assert routes == (ONPREM_NODES, "10.96.0.0/16", DATA)
    assert rules == (
        EgressRule(
            endpoint="metrics", protocol="tcp", from_port=9090, to_port=9090, cidrs=("10.96.0.10/32",)
        ),
        EgressRule(
            endpoint="metrics", protocol="tcp", from_port=30000, to_port=32767, cidrs=("10.96.0.10/32",)
        ),
        EgressRule(endpoint="dns", protocol="udp", from_port=53, to_port=53, cidrs=("10.96.0.53/32",)),
        API_SERVER,
    )


def test_a_link_with_its_own_ranges_opens_only_the_endpoint_parts_it_routes() -> None:
    fleet = _fleet()
    fleet["links"]["alicloud:cn-hangzhou"]["onprem_ranges"] = ["192.168.32.0/26"]
    routes, rules = _plans(fleet)["alicloud:cn-hangzhou"]
    assert routes == ("192.168.32.0/26",)
    assert rules == (
        EgressRule(
            endpoint="storage", protocol="tcp", from_port=443, to_port=443, cidrs=("192.168.32.0/26",)
        ),
        EgressRule(
            endpoint="storage", protocol="tcp", from_port=2049, to_port=2049, cidrs=("192.168.32.0/26",)
        ),
    )


def test_a_link_routing_none_of_the_endpoints_is_refused() -> None:
    fleet = _fleet()
    fleet["links"]["tencentcloud:ap-guangzhou"]["onprem_ranges"] = ["172.20.0.0/16"]
    assert _errors(fleet) == [
        f"{SOURCE}: gpufleet:fleet.links.tencentcloud:ap-guangzhou.onprem_ranges: routes none of the "
        f"on-prem endpoints burst nodes may reach (ingress {ONPREM_NODES}, storage {DATA}, kube-apiserver "
        "192.168.16.10/32): route one of "
        "their ranges, or leave onprem_ranges out"
    ]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"reachable": [{"name": "nas", "cidrs": ["172.20.0.0/24"], "ports": [2049]}]},
         f"{P}: reachable[0].cidrs[0]: 172.20.0.0/24 is not inside an on-prem range (nodes {ONPREM_NODES}; "
         f"pods 10.244.0.0/16; services 10.96.0.0/16; data {DATA}): burst nodes reach on-prem ranges only; "
         "add the range to data_cidrs if it holds data"),
        ({"reachable": [{"name": "nas", "cidrs": ["192.168.0.0/16"], "ports": [2049]}]},
         f"{P}: reachable[0].cidrs[0]: 192.168.0.0/16 is not inside an on-prem range (nodes {ONPREM_NODES}; "
         f"pods 10.244.0.0/16; services 10.96.0.0/16; data {DATA}): burst nodes reach on-prem ranges only; "
         "add the range to data_cidrs if it holds data"),
        ({"reachable": [{"name": "all", "cidrs": ["nodes"], "ports": ["1-65535"]}]},
         f"{P}.reachable[0].ports[0]: must be a port (1-65535) like 443 or a range like 30000-32767 spanning "
         "at most 4096 ports, got '1-65535': egress to on-prem names its ports, never all of them"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [0]}]},
         f"{P}.reachable[0].ports[0]: must be a port (1-65535) like 443 or a range like 30000-32767 spanning "
         "at most 4096 ports, got 0: egress to on-prem names its ports, never all of them"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": ["443-80"]}]},
         f"{P}.reachable[0].ports[0]: must be a port (1-65535) like 443 or a range like 30000-32767 spanning "
         "at most 4096 ports, got '443-80': egress to on-prem names its ports, never all of them"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": ["all"]}]},
         f"{P}.reachable[0].ports[0]: must be a port (1-65535) like 443 or a range like 30000-32767 spanning "
         "at most 4096 ports, got 'all': egress to on-prem names its ports, never all of them"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [443], "protocol": "all"}]},
         f"{P}.reachable[0].protocol: must be one of tcp, udp, got 'all'"),
        ({"reachable": [{"name": "x", "cidrs": ["everything"], "ports": [443]}]},
         f"{P}.reachable[0].cidrs[0]: must be an IPv4 network like 192.168.16.0/24 or one of nodes, pods, "
         "services, data (that whole on-prem field), got 'everything'"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [443]},
                        {"name": "x", "cidrs": ["data"], "ports": [2049]}]},
         f"{P}: reachable[1].name: x is named twice: give each endpoint its own name"),
        ({"reachable": [{"name": "Bad_Name", "cidrs": ["nodes"], "ports": [443]}]},
         f"{P}.reachable[0].name: must be lower-case letters, digits and '-' (at most 32, starting and "
         "ending with a letter or digit), got 'Bad_Name'"),
        ({"data_cidrs": [], "reachable": [{"name": "x", "cidrs": ["data"], "ports": [443]}]},
         f"{P}: reachable[0].cidrs[0]: names data, but onprem.data_cidrs is empty"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [443, 443]}]},
         f"{P}: reachable[0].ports: lists a port twice"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [True]}]},
         f"{P}.reachable[0].ports[0]: must be a whole-number port like 443 or a range like 30000-32767, "
         "got true"),
        ({"reachable": [{"name": "x", "cidrs": ["nodes"], "ports": [443.0]}]},
         f"{P}.reachable[0].ports[0]: must be a whole-number port like 443 or a range like 30000-32767, "
         "got 443.0"),
        ({"reachable": []}, f"{P}.reachable: must have at least 1 entry, got none"),
        ({"data_cidrs": ["10.0.0.0/7"]},
         f"{P}.data_cidrs: must name ranges of /8 or smaller, got 10.0.0.0/7: links route these ranges only"),
        ({"data_cidrs": ["192.168.20.0/24"]},
         f"{P}: data_cidrs[0]: 192.168.20.0/24 (onprem data) overlaps 192.168.16.0/20 (onprem nodes); every "
         "on-prem and site range must be disjoint, since the links route between them"),
    ],
)  # fmt: skip
def test_errors_name_the_field_and_what_is_allowed(change: dict[str, Any], expected: str) -> None:
    fleet = _fleet()
    fleet["onprem"].update(change)
    assert _errors(fleet) == [expected]


def test_a_data_range_inside_a_site_vpc_names_both_owners() -> None:
    fleet = _fleet()
    fleet["onprem"]["data_cidrs"] = ["10.50.4.0/24"]
    assert _errors(fleet) == [
        f"{SOURCE}: gpufleet:fleet: network.regions.alicloud:cn-hangzhou.vpc_cidr: 10.50.0.0/16 "
        "(alicloud:cn-hangzhou) overlaps 10.50.4.0/24 (onprem data); every on-prem and site range must be "
        "disjoint, since the links route between them"
    ]


def test_too_many_rules_for_a_security_group_are_refused() -> None:
    fleet = _fleet()
    fleet["onprem"]["reachable"] = [
        {"name": f"e{i}", "cidrs": [f"192.168.32.{i}/32"], "ports": list(range(1000, 1010))} for i in range(5)
    ]
    # 5 x 10, and the API server's one.
    assert _errors(fleet) == [
        f"{P}: reachable: opens 51 (port, range) pairs, more than the 48 a site's security group is given: "
        "name fewer ports or wider ranges"
    ]


def test_check_exits_2_on_an_all_ports_endpoint_naming_file_and_field(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", stacks={})
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())
    document["config"]["gpufleet:fleet"]["onprem"]["reachable"][0]["ports"] = ["0-65535"]
    (project / "stacks" / "Pulumi.bad.yaml").write_text(yaml.safe_dump(document))
    result = CliRunner().invoke(app, ["check", str(project), "-s", "bad"], prog_name="gpufleet")
    assert result.exit_code == 2, result.output
    assert "stacks/Pulumi.bad.yaml" in result.stderr
    assert "gpufleet:fleet.onprem.reachable[0].ports[0]: must be a port (1-65535)" in result.stderr
    assert "Traceback" not in result.output


def test_the_defaults_count_against_the_security_group_too() -> None:
    fleet = _fleet()
    del fleet["onprem"]["reachable"]
    fleet["onprem"]["data_cidrs"] = [f"192.168.{64 + i}.0/24" for i in range(24)]
    # baseline: 1 node range x 1 port; data: 24 ranges x 2 ports; the API server: 1.
    assert _errors(fleet) == [
        f"{P}: reachable: opens 50 (port, range) pairs, more than the 48 a site's security group is given: "
        "name fewer ports or wider ranges"
    ]
    fleet["onprem"]["data_cidrs"] = fleet["onprem"]["data_cidrs"][:23]
    assert len(_plans(fleet)["aws:us-east-1"][1]) == 4
