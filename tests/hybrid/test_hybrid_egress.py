"""The hybrid stack's way to on-prem under the engine: each site's security group opens the on-prem
endpoints (ports, protocol, ranges) and nothing else, each link routes the node and data ranges and
nothing else, GF-NET-004 judges it clean, and a rule re-opening every port or 0.0.0.0/0 trips it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from gpufleet.components.network.tencentcloud import platform_egress
from gpufleet.graph import Resource, ResourceGraph
from tests.hybrid.conftest import FLEET, ONPREM_NODES, judge
from tests.mutation.edits import add, apply
from tests.project_policy import judged

DATA = "192.168.32.0/24"
ROUTED = [ONPREM_NODES, DATA]
ALI_SG = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
AWS_SG = "aws:ec2/securityGroup:SecurityGroup"
TC_RULES = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
ALI_NET = f"{FLEET}-cn-hangzhou-network"
API_SERVER = "192.168.16.10/32"  # onprem.scheduler.api_server's address; also the control plane
# (endpoint, port, range) of the hybrid stack's onprem.reachable, and the API server its nodes join.
ENDPOINTS = [
    ("ingress", 443, ONPREM_NODES),
    ("storage", 443, DATA),
    ("storage", 2049, DATA),
    ("kube-apiserver", 6443, API_SERVER),
]
KUBELET = "kubelet from the on-prem API server over the private link"


def _slug(cidr: str) -> str:
    return cidr.replace(".", "-").replace("/", "-")


def _one(graph: ResourceGraph, type_token: str, name: str) -> Resource:
    found = [r for r in graph.of_type(type_token) if r.name == name]
    assert len(found) == 1, (type_token, name, [r.name for r in graph.of_type(type_token)])
    return found[0]


def test_aws_opens_one_rule_per_endpoint_port_and_protocol_to_exactly_its_ranges(
    hybrid: ResourceGraph,
) -> None:
    group = _one(hybrid, AWS_SG, f"{FLEET}-network-instances-sg").inputs
    # The joined nodes' kubelet, from the control plane only.
    assert group["ingress"] == [
        {
            "protocol": "tcp",
            "fromPort": 10250,
            "toPort": 10250,
            "cidrBlocks": [API_SERVER],
            "description": KUBELET,
        }
    ]
    assert group["description"] == (
        "GPU instances: the kubelet from the on-prem control plane only; HTTPS egress and on-prem "
        "endpoints over the private link"
    )
    assert group["egress"] == [
        {
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "cidrBlocks": ["10.43.0.0/16"],
            "description": "HTTPS to VPC endpoints",
        },
        {
            "protocol": "tcp",
            "fromPort": 443,
            "toPort": 443,
            "prefixListIds": [f"{FLEET}-network-s3-prefix-list-id"],
            "description": "HTTPS to S3 through the gateway endpoint",
        },
        *[
            {
                "protocol": "tcp",
                "fromPort": port,
                "toPort": port,
                "cidrBlocks": [cidr],
                "description": f"on-prem {name} tcp {port} over the private link",
            }
            for name, port, cidr in ENDPOINTS
        ],
    ]


def test_alibaba_accepts_the_endpoints_first_and_drops_the_rest_of_on_prem(hybrid: ResourceGraph) -> None:
    group_id = _one(hybrid, "alicloud:ecs/securityGroup:SecurityGroup", f"{ALI_NET}-sg").id
    rules = {r.name: r.inputs for r in hybrid.of_type(ALI_SG)}
    common = {"type": "egress", "nicType": "intranet", "securityGroupId": group_id}
    assert rules == {
        **{
            f"{ALI_NET}-onprem-{name}-tcp-{port}-{_slug(cidr)}": {
                **common,
                "ipProtocol": "tcp",
                "portRange": f"{port}/{port}",
                "cidrIp": cidr,
                "policy": "accept",
                "priority": 1,
                "description": f"on-prem {name} tcp {port} over the private link",
            }
            for name, port, cidr in ENDPOINTS
        },
        **{
            f"{ALI_NET}-onprem-drop-{_slug(cidr)}": {
                **common,
                "ipProtocol": "all",
                "portRange": "-1/-1",
                "cidrIp": cidr,
                "policy": "drop",
                "priority": 100,
                "description": "on-prem: nothing but the endpoints above",
            }
            for cidr in ROUTED
        },
        f"{ALI_NET}-kubelet-{_slug(API_SERVER)}": {
            **common,
            "type": "ingress",
            "ipProtocol": "tcp",
            "portRange": "10250/10250",
            "cidrIp": API_SERVER,
            "policy": "accept",
            "priority": 1,
            "description": KUBELET,
        },
    }


def test_tencent_lists_the_endpoints_then_drops_on_prem_before_https_anywhere(hybrid: ResourceGraph) -> None:
    (rule_set,) = hybrid.of_type(TC_RULES)
    assert rule_set.inputs["egresses"] == [
        *[
            {
                "action": "ACCEPT",
                "cidrBlock": cidr,
                "protocol": "TCP",
                "port": str(port),
                "description": f"on-prem {name} tcp {port} over the private link",
            }
            for name, port, cidr in ENDPOINTS
        ],
        *[
            {
                "action": "DROP",
                "cidrBlock": cidr,
                "protocol": "ALL",
                "port": "ALL",
                "description": "on-prem: nothing but the endpoints above",
            }
            for cidr in ROUTED
        ],
        # DNS, metadata and the monitoring agent (exact values: tests/components/test_site_tencentcloud.py)
        *[
            {"action": "ACCEPT", "cidrBlock": cidr, "protocol": protocol, "port": port, "description": what}
            for cidr, protocol, port, what in platform_egress()
        ],
        {
            "action": "ACCEPT",
            "cidrBlock": "10.52.0.0/16",
            "protocol": "ALL",
            "port": "ALL",
            "description": "inside the VPC",
        },
        {
            "action": "ACCEPT",
            "cidrBlock": "0.0.0.0/0",
            "protocol": "TCP",
            "port": "443",
            "description": "HTTPS",
        },
    ]
    # On-prem opens nothing on a burst node but its kubelet, from the control plane.
    assert [r for r in rule_set.inputs["ingresses"] if r["cidrBlock"] != "10.52.0.0/16"] == [
        {
            "action": "ACCEPT",
            "cidrBlock": API_SERVER,
            "protocol": "TCP",
            "port": "10250",
            "description": KUBELET,
        }
    ]


def test_each_link_routes_the_node_and_data_ranges_and_nothing_else(hybrid: ResourceGraph) -> None:
    def routes(type_token: str, field: str) -> dict[str, str]:
        return {r.name: r.inputs[field] for r in hybrid.of_type(type_token)}

    link = {cloud: f"{FLEET}-{cloud}-{region}-link" for cloud, region in (
        ("aws", "us-east-1"), ("alicloud", "cn-hangzhou"), ("tencentcloud", "ap-guangzhou"))}  # fmt: skip
    # AWS routes over BGP: one route per table and range to the VPN gateway, no propagation.
    assert routes("aws:ec2/route:Route", "destinationCidrBlock") == {
        f"{link['aws']}-rt0-{_slug(c)}": c for c in ROUTED
    }
    assert {r.inputs.get("gatewayId") for r in hybrid.of_type("aws:ec2/route:Route")} == {
        _one(hybrid, "aws:ec2/vpnGateway:VpnGateway", f"{link['aws']}-vgw").id
    }
    assert hybrid.of_type("aws:ec2/vpnGatewayRoutePropagation:VpnGatewayRoutePropagation") == []
    assert routes("alicloud:vpc/routeEntry:RouteEntry", "destinationCidrblock") == {
        f"{link['alicloud']}-rt0-{_slug(c)}": c for c in ROUTED
    }
    assert {r.inputs["nexthopType"] for r in hybrid.of_type("alicloud:vpc/routeEntry:RouteEntry")} == {
        "VpnGateway"
    }
    (ali_vpn,) = hybrid.of_type("alicloud:vpn/connection:Connection")
    assert (ali_vpn.inputs["localSubnets"], ali_vpn.inputs["remoteSubnets"]) == (["10.50.0.0/16"], ROUTED)
    assert routes("tencentcloud:Route/tableEntry:TableEntry", "destinationCidrBlock") == {
        f"{link['tencentcloud']}-rt0-{_slug(c)}": c for c in ROUTED
    }
    assert routes("tencentcloud:Vpn/gatewayRoute:GatewayRoute", "destinationCidrBlock") == {
        f"{link['tencentcloud']}-vpn-{_slug(c)}": c for c in ROUTED
    }
    (tc_vpn,) = hybrid.of_type("tencentcloud:Vpn/connection:Connection")
    assert tc_vpn.inputs["securityGroupPolicies"] == [
        {"localCidrBlock": "10.52.0.0/16", "remoteCidrBlocks": ROUTED}
    ]


def test_gf_net_004_judges_the_stack_and_finds_nothing(hybrid: ResourceGraph) -> None:
    result = judge(hybrid)
    assert [(v.rule_id, v.message) for v in judged(result.violations)] == []
    assert "GF-NET-004" not in {n["rule_id"] for n in result.not_applicable}


def _aws_group(graph: ResourceGraph) -> Resource:
    return _one(graph, AWS_SG, f"{FLEET}-network-instances-sg")


def aws_all_tcp_ports(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = _aws_group(graph)
    group.inputs["egress"][2].update({"fromPort": 0, "toPort": 65535})
    return graph, group.name


def aws_all_to_anywhere(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = _aws_group(graph)
    group.inputs["egress"].append({"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]})
    return graph, group.name


def aws_egress_rule_resource(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    group = _aws_group(graph)
    rule = add(
        graph,
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
        "onprem-everything",
        {
            "securityGroupId": group.id,
            "ipProtocol": "-1",
            "cidrIpv4": DATA,
            "tags": dict(group.inputs["tags"]),
        },
        references={"securityGroupId": [group]},
    )
    return graph, rule.name


def ali_all_ports(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    rule = _one(graph, ALI_SG, f"{ALI_NET}-onprem-storage-tcp-2049-{_slug(DATA)}")
    rule.inputs["portRange"] = "1/65535"
    return graph, rule.name


def ali_all_to_anywhere(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    rule = _one(graph, ALI_SG, f"{ALI_NET}-onprem-ingress-tcp-443-{_slug(ONPREM_NODES)}")
    rule.inputs.update({"ipProtocol": "all", "portRange": "-1/-1", "cidrIp": "0.0.0.0/0"})
    return graph, rule.name


def tencent_all_ports(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    (rule_set,) = graph.of_type(TC_RULES)
    rule_set.inputs["egresses"][0]["port"] = "ALL"
    return graph, rule_set.name


def tencent_all_before_the_drops(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    (rule_set,) = graph.of_type(TC_RULES)
    wide = {"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}
    rule_set.inputs["egresses"].insert(0, wide)
    return graph, rule_set.name


MUTATIONS: dict[str, Callable[[ResourceGraph], tuple[ResourceGraph, str]]] = {
    "AWS re-opens every TCP port to the on-prem nodes": aws_all_tcp_ports,
    "AWS opens all protocols to 0.0.0.0/0": aws_all_to_anywhere,
    "AWS egress rule resource for all protocols to the data range": aws_egress_rule_resource,
    "Alibaba opens every port to the data range": ali_all_ports,
    "Alibaba opens all protocols to 0.0.0.0/0 above the drops": ali_all_to_anywhere,
    "Tencent opens every port to the on-prem nodes": tencent_all_ports,
    "Tencent accepts everything before the on-prem drops": tencent_all_before_the_drops,
}


@pytest.mark.parametrize("what", list(MUTATIONS))
def test_re_opening_on_prem_trips_gf_net_004_naming_the_resource(hybrid: ResourceGraph, what: str) -> None:
    before = copy.deepcopy(hybrid.to_json())
    graph, name = apply(hybrid, MUTATIONS[what])
    result = judge(graph)
    found = [(v.rule_id, v.urn.rsplit("::", 1)[-1], v.message) for v in judged(result.violations)]
    assert {rule for rule, _, _ in found} == {"GF-NET-004"}, found
    assert all(
        resource == name and f"'{name}' allows egress on " in message for _, resource, message in found
    )
    assert hybrid.to_json() == before


def test_the_exact_finding_for_every_tcp_port_to_the_nodes(hybrid: ResourceGraph) -> None:
    graph, name = apply(hybrid, aws_all_tcp_ports)
    assert [v.message for v in judged(judge(graph).violations)] == [
        f"Security group '{name}' allows egress on all TCP ports to {ONPREM_NODES} (egress rule 3), which "
        f"reaches on-prem {ONPREM_NODES}; open only the on-prem endpoints' ports (tcp or udp, at most 4096 "
        "ports a rule) to their ranges"
    ]


def _tencent_after_the_drops(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    (rule_set,) = graph.of_type(TC_RULES)
    entry: dict[str, Any] = {"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}
    rule_set.inputs["egresses"].append(entry)
    return graph, rule_set.name


def test_everything_after_the_on_prem_drops_does_not_reach_on_prem(hybrid: ResourceGraph) -> None:
    # Tencent applies entries in order: behind the drops, accepting everything no longer reaches on-prem.
    graph, _ = apply(hybrid, _tencent_after_the_drops)
    assert "GF-NET-004" not in {v.rule_id for v in judge(graph).violations}
