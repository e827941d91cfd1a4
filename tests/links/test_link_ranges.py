"""Each kind of link routes exactly the on-prem node and data ranges (the defaults of a link that names
no ranges), and nothing else: AWS static VPN routes, the Alibaba CEN route map of a dedicated line, the
Tencent dedicated tunnel's static prefixes and its CCN routes, all from the one hybrid spec."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from tests.hybrid.conftest import FLEET, ONPREM_NODES, ROOT

DATA = "192.168.32.0/24"
ROUTED = [ONPREM_NODES, DATA]
LINK = {
    "aws": f"{FLEET}-aws-us-east-1-link",
    "alicloud": f"{FLEET}-alicloud-cn-hangzhou-link",
    "tencentcloud": f"{FLEET}-tencentcloud-ap-guangzhou-link",
}


def _slug(cidr: str) -> str:
    return cidr.replace(".", "-").replace("/", "-")


@pytest.fixture(scope="module")
def other_links() -> ResourceGraph:
    """The hybrid stack with a static AWS VPN, an Alibaba dedicated line and a Tencent dedicated line on
    a CCN, each naming no ranges of its own."""
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    fleet: dict[str, Any] = copy.deepcopy(config["gpufleet:fleet"])
    del fleet["links"]["aws:us-east-1"]["bgp_asn"]
    fleet["links"]["alicloud:cn-hangzhou"] = {
        "kind": "dedicated",
        "connection_id": "pc-bp1ciz7ekd2grn1as9d9y",
        "vlan": 110,
        "cloud_address": "169.254.30.1/30",
        "onprem_address": "169.254.30.2/30",
        "bgp_asn": 65010,
    }
    fleet["links"]["tencentcloud:ap-guangzhou"] = {
        "kind": "dedicated",
        "connection_id": "dc-kax48sg7",
        "vlan": 301,
        "cloud_address": "169.254.40.1/30",
        "onprem_address": "169.254.40.2/30",
        "ccn_id": "ccn-gree226l",
    }
    return run_program(ROOT, "hybrid", config_overrides={"gpufleet:fleet": fleet})


def test_aws_static_vpn_routes_the_node_and_data_ranges_only(other_links: ResourceGraph) -> None:
    routes = {r.name: r.inputs["destinationCidrBlock"] for r in other_links.of_type(
        "aws:ec2/vpnConnectionRoute:VpnConnectionRoute")}  # fmt: skip
    assert routes == {f"{LINK['aws']}-vpn-{_slug(c)}": c for c in ROUTED}
    tables = {r.name: r.inputs["destinationCidrBlock"] for r in other_links.of_type("aws:ec2/route:Route")}
    assert tables == {f"{LINK['aws']}-rt0-{_slug(c)}": c for c in ROUTED}


def test_alibaba_dedicated_line_permits_the_node_and_data_ranges_and_denies_the_rest(
    other_links: ResourceGraph,
) -> None:
    maps = {r.name: r.inputs for r in other_links.of_type("alicloud:cen/routeMap:RouteMap")}
    assert sorted(maps) == [f"{LINK['alicloud']}-cen-onprem-in", f"{LINK['alicloud']}-cen-other-deny"]
    permit = maps[f"{LINK['alicloud']}-cen-onprem-in"]
    assert (permit["mapResult"], permit["priority"], permit["destinationCidrBlocks"]) == ("Permit", 1, ROUTED)
    deny = maps[f"{LINK['alicloud']}-cen-other-deny"]
    assert (deny["mapResult"], deny["priority"], deny.get("destinationCidrBlocks")) == ("Deny", 2, None)
    # No VPN route entries: the dedicated line reaches the VPC through CEN only.
    assert other_links.of_type("alicloud:vpc/routeEntry:RouteEntry") == []


def test_tencent_dedicated_line_filters_and_publishes_the_node_and_data_ranges(
    other_links: ResourceGraph,
) -> None:
    (tunnel,) = other_links.of_type("tencentcloud:Dcx/instance:Instance")
    assert tunnel.inputs["routeFilterPrefixes"] == ROUTED
    ccn = {
        r.name: r.inputs["cidrBlock"]
        for r in other_links.of_type("tencentcloud:Dc/gatewayCcnRoute:GatewayCcnRoute")
    }
    assert ccn == {f"{LINK['tencentcloud']}-ccn-{_slug(c)}": c for c in ROUTED}
