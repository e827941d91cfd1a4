"""Every link the components build, run as a program through the offline engine: GF-NET-001 passes
on each and fails on one weakened setting per cloud; GF-NET-002 (range overlap), GF-NET-003 (no
internet route for GPU subnets) and GF-COST-001 (cost tags) stay clean; `gpufleet cost` prices the
VPN hours and notes that a dedicated line's ports bill on the existing connection."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.cost import estimate_stack
from gpufleet.engine import run_program
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.network.vpn_strong_crypto import POLICY as GF_NET_001
from gpufleet.policies.registry import default_registry
from tests.engine.projects import write_project
from tests.policies.support import resource_outcome

PROGRAM = """
import json
import pulumi
import pulumi_aws as aws
import pulumi_alicloud as alicloud
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.links import LinkArgs, link_factory
from gpufleet.components.sites.base import SiteOutputs
from gpufleet.components.spec.links import Link

config = pulumi.Config("test")
cloud = config.require("cloud")
link = Link.model_validate(json.loads(config.require("link")))
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
CIDR = "10.41.0.0/16"
if cloud == "aws":
    vpc = aws.ec2.Vpc("vpc", cidr_block=CIDR, tags=TAGS)
    table = aws.ec2.RouteTable("private", vpc_id=vpc.id, tags=TAGS)
    subnet = aws.ec2.Subnet("private-0", vpc_id=vpc.id, cidr_block="10.41.0.0/20", tags=TAGS)
    aws.ec2.RouteTableAssociation("private-0", subnet_id=subnet.id, route_table_id=table.id)
    aws.ec2.Instance("gpu", ami="ami-0dlami000000000", instance_type="g5.xlarge", subnet_id=subnet.id,
                     tags=TAGS)
    region, currency = "us-east-1", "USD"
elif cloud == "alicloud":
    vpc = alicloud.vpc.Network("vpc", cidr_block=CIDR, vpc_name="vpc", tags=TAGS)
    table = alicloud.vpc.RouteTable("private", vpc_id=vpc.id, route_table_name="private", tags=TAGS)
    subnet = alicloud.vpc.Switch("private-0", vpc_id=vpc.id, cidr_block="10.41.0.0/20",
                                 zone_id="cn-hangzhou-h", tags=TAGS)
    alicloud.vpc.RouteTableAttachment("private-0", vswitch_id=subnet.id, route_table_id=table.id)
    alicloud.ecs.Instance("gpu", instance_type="ecs.gn7i-c8g1.2xlarge", vswitch_id=subnet.id,
                          image_id="ubuntu_22_04_x64", tags=TAGS)
    region, currency = "cn-hangzhou", "CNY"
else:
    vpc = tencentcloud.vpc.Instance("vpc", name="vpc", cidr_block=CIDR, tags=TAGS)
    table = tencentcloud.route.Table("private", name="private", vpc_id=vpc.id, tags=TAGS)
    subnet = tencentcloud.subnet.Instance("private-0", name="private-0", vpc_id=vpc.id,
                                          cidr_block="10.41.0.0/20", availability_zone="ap-guangzhou-3",
                                          route_table_id=table.id, tags=TAGS)
    tencentcloud.instance.Instance("gpu", instance_type="GN7.2XLARGE32", subnet_id=subnet.id,
                                   image_id="img-gpu", availability_zone="ap-guangzhou-3", tags=TAGS)
    region, currency = "ap-guangzhou", "CNY"
site = SiteOutputs(
    cloud=cloud, region=region, currency=currency, key_id=pulumi.Output.from_input("key"),
    vpc_id=vpc.id, vpc_cidr=CIDR, route_table_ids=pulumi.Output.all(table.id), route_table_count=1,
)
link_factory(cloud)("link", LinkArgs(site=site, link=link, onprem_ranges=["10.60.0.0/16"], tags=TAGS))
"""

VPN = {"kind": "vpn", "gateway_ip": "203.0.113.10", "psk_config": "linkPsk"}
BGP_VPN = {**VPN, "bgp_asn": 65010, "bgp_tunnel_cidr": "169.254.30.0/30"}
DEDICATED = {
    "kind": "dedicated",
    "vlan": 120,
    "cloud_address": "169.254.20.1/30",
    "onprem_address": "169.254.20.2/30",
    "bgp_asn": 65010,
}
CONNECTIONS = {"aws": "dxcon-ffabc123", "alicloud": "pc-bp1ciz7ekd2grn1as", "tencentcloud": "dc-kax48sg7"}
CASES = {
    ("aws", "vpn"): VPN,
    ("aws", "bgp-vpn"): {**VPN, "bgp_asn": 65010},
    ("alicloud", "vpn"): VPN,
    ("alicloud", "bgp-vpn"): BGP_VPN,
    ("tencentcloud", "vpn"): VPN,
    ("tencentcloud", "bgp-vpn"): BGP_VPN,
    **{(cloud, "dedicated"): {**DEDICATED, "connection_id": id_} for cloud, id_ in CONNECTIONS.items()},
}
VPN_TOKENS = {
    "aws": "aws:ec2/vpnConnection:VpnConnection",
    "alicloud": "alicloud:vpn/connection:Connection",
    "tencentcloud": "tencentcloud:Vpn/connection:Connection",
}
# The network rules, and the cost-tag rule on every taggable link resource.
LINK_RULES = ("GF-NET-001", "GF-NET-002", "GF-NET-003", "GF-COST-001")


@functools.cache
def _graph(cloud: str, kind: str, root: Path) -> ResourceGraph:
    project = write_project(root / f"{cloud}-{kind}", PROGRAM)
    config = {
        "test:cloud": cloud,
        "test:link": json.dumps(CASES[(cloud, kind)]),
        "gpufleet:linkPsk": "psk-from-config-1234",
        "aws:region": "us-east-1",
        "alicloud:region": "cn-hangzhou",
        "tencentcloud:region": "ap-guangzhou",
    }
    return run_program(project, "dev", config_overrides=config)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("links")


@pytest.mark.parametrize(("cloud", "kind"), sorted(CASES))
def test_network_and_cost_tag_rules_are_clean_on_every_link(root: Path, cloud: str, kind: str) -> None:
    graph = _graph(cloud, kind, root)
    registry = default_registry()
    result = evaluate_stack(graph, [registry.get(rule) for rule in LINK_RULES], engine_rule=False)
    assert [(v.rule_id, v.message) for v in result.violations] == []
    skipped = {n["rule_id"] for n in result.not_applicable}
    # GF-NET-003 judged the GPU instance; GF-NET-002 the VPC against the routed on-prem range.
    assert "GF-NET-003" not in skipped
    assert "GF-NET-002" not in skipped
    if kind != "dedicated":
        assert "GF-NET-001" not in skipped
        assert [r.name for r in graph.of_type(VPN_TOKENS[cloud])] == ["link-" + _vpn_suffix(cloud)]


def _vpn_suffix(cloud: str) -> str:
    return "vpn" if cloud == "aws" else "ipsec"


def _weakened(inputs: dict[str, Any], cloud: str) -> dict[str, Any]:
    """One weakened setting per cloud: what a careless edit of the component would do."""
    weak: dict[str, Any] = json.loads(json.dumps(inputs))
    if cloud == "aws":
        weak["tunnel2IkeVersions"] = ["ikev1", "ikev2"]
    elif cloud == "alicloud":
        del weak["ikeConfig"], weak["ipsecConfig"]  # left at the API defaults
    else:
        weak["ikeDhGroupName"] = "GROUP2"
    return weak


WEAK_MESSAGES = {
    "aws": "VPN connection 'link-vpn' tunnel2 accepts weak IPsec settings: tunnel2IkeVersions allows ikev1; ",
    "alicloud": "VPN connection 'link-ipsec' accepts weak IPsec settings: ikeVersion unset (default ikev1); ",
    "tencentcloud": "VPN connection 'link-ipsec' accepts weak IPsec settings: ikeDhGroupName is GROUP2; ",
}


@pytest.mark.parametrize("cloud", sorted(CONNECTIONS))
def test_gf_net_001_fails_on_a_weakened_link(root: Path, cloud: str) -> None:
    graph = _graph(cloud, "vpn", root)
    (vpn,) = graph.of_type(VPN_TOKENS[cloud])
    props = _plain(vpn.inputs)
    assert resource_outcome(GF_NET_001, vpn.type, props, name=vpn.name) == []
    messages = resource_outcome(GF_NET_001, vpn.type, _weakened(props, cloud), name=vpn.name)
    assert len(messages) == 1
    assert messages[0].startswith(WEAK_MESSAGES[cloud])


def _plain(value: Any) -> Any:
    """Inputs with secrets unwrapped, as CrossGuard hands them to a policy."""
    from gpufleet.mocks import unwrap_secrets

    return unwrap_secrets(value)


@pytest.mark.parametrize("cloud", sorted(CONNECTIONS))
def test_cost_prices_the_vpn_hours(root: Path, cloud: str) -> None:
    report = estimate_stack(_graph(cloud, "vpn", root))
    lines = [(line.kind, line.name, line.cloud) for line in report.other if line.kind == "vpn"]
    gateway = {"aws": "link-vpn", "alicloud": "link-vpngw", "tencentcloud": "link-vpngw"}[cloud]
    assert lines == [("vpn", gateway, cloud)]


@pytest.mark.parametrize("cloud", sorted(CONNECTIONS))
def test_cost_notes_that_a_dedicated_line_bills_on_its_connection(root: Path, cloud: str) -> None:
    report = estimate_stack(_graph(cloud, "dedicated", root))
    assert [line for line in report.other if line.kind == "vpn"] == []
    assert any(
        CONNECTIONS[cloud] in note and "port" in note and "not priced" in note for note in report.notes
    ), report.notes
