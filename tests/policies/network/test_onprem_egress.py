"""GF-NET-004 on every rule shape it judges: all protocols, all ports or more than 4096 ports towards
an on-prem range are findings; named ports, ranges off on-prem and traffic already dropped are not."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.network.onprem_egress import POLICY
from tests.policies.support import NotApplicable, res, run_stack

VPN_ROUTE = "aws:ec2/vpnConnectionRoute:VpnConnectionRoute"
AWS_SG = "aws:ec2/securityGroup:SecurityGroup"
AWS_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
ALI_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
TC_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_LITE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"
TC_RULE = "tencentcloud:Security/groupRule:GroupRule"
LAB = "192.168.16.0/20"
ANYWHERE = {"anywhere": True}
FIX = "; open only the on-prem endpoints' ports (tcp or udp, at most 4096 ports a rule) to their ranges"


def _lab() -> Any:
    return res(VPN_ROUTE, "lab", {"destinationCidrBlock": LAB, "vpnConnectionId": "vpn-1"})


def _messages(*resources: Any, config: dict[str, Any] | None = None) -> list[str]:
    return [message for message, _ in run_stack(POLICY, [_lab(), *resources], config)]


def _aws_group(*egress: dict[str, Any]) -> Any:
    return res(AWS_SG, "nodes", {"egress": list(egress)})


def _ali(name: str, **props: Any) -> Any:
    base = {"type": "egress", "securityGroupId": "sg-1", "policy": "accept", "nicType": "intranet"}
    return res(ALI_RULE, name, {**base, **props})


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ({"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": [LAB]}, "all protocols"),
        ({"protocol": "tcp", "fromPort": 0, "toPort": 65535, "cidrBlocks": [LAB]}, "all TCP ports"),
        ({"protocol": "udp", "fromPort": 1, "toPort": 4097, "cidrBlocks": [LAB]}, "UDP ports 1-4097"),
        ({"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}, "all protocols"),
    ],
)
def test_aws_inline_egress_that_opens_too_much_towards_on_prem_is_a_finding(
    entry: dict[str, Any], what: str
) -> None:
    assert _messages(_aws_group(entry), config=ANYWHERE) == [
        f"Security group 'nodes' allows egress on {what} to {entry['cidrBlocks'][0]} (egress rule 1), "
        f"which reaches on-prem {LAB}{FIX}"
    ]


@pytest.mark.parametrize(
    "entry",
    [
        {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": [LAB]},
        {"protocol": "tcp", "fromPort": 30000, "toPort": 32767, "cidrBlocks": [LAB]},  # NodePorts
        {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]},
        {"protocol": "icmp", "fromPort": -1, "toPort": -1, "cidrBlocks": [LAB]},
        {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["10.40.0.0/16"]},  # not on-prem
        {"protocol": "-1", "fromPort": 0, "toPort": 0, "securityGroups": ["sg-0123"]},
    ],
)
def test_named_ports_and_destinations_off_on_prem_pass(entry: dict[str, Any]) -> None:
    assert _messages(_aws_group(entry)) == []


def test_aws_rule_resources_are_judged() -> None:
    rule = res(AWS_RULE, "r", {"type": "egress", "protocol": "all", "cidrBlocks": ["192.168.20.0/24"]})
    ingress = res(AWS_RULE, "i", {"type": "ingress", "protocol": "all", "cidrBlocks": [LAB]})
    egress = res(AWS_EGRESS, "e", {"ipProtocol": "tcp", "fromPort": 1, "toPort": 65535, "cidrIpv4": LAB})
    assert _messages(rule, ingress, egress) == [
        f"Security group rule 'r' allows egress on all protocols to 192.168.20.0/24, which reaches on-prem "
        f"192.168.20.0/24{FIX}",
        f"Security group egress rule 'e' allows egress on TCP ports 1-65535 to {LAB}, which reaches on-prem "
        f"{LAB}{FIX}",
    ]


def test_alibaba_accept_passes_only_under_a_drop_of_the_same_group_at_a_higher_priority() -> None:
    wide = _ali("wide", ipProtocol="all", portRange="-1/-1", cidrIp="0.0.0.0/0", priority=50)
    drop = _ali("drop", ipProtocol="all", portRange="-1/-1", cidrIp=LAB, policy="drop", priority=10)
    assert _messages(wide, drop, config=ANYWHERE) == []
    late_drop = _ali("drop", ipProtocol="all", portRange="-1/-1", cidrIp=LAB, policy="drop", priority=60)
    other_group = _ali(
        "drop2",
        ipProtocol="all",
        portRange="-1/-1",
        cidrIp=LAB,
        policy="drop",
        priority=1,
        securityGroupId="sg-2",
    )
    expected = (
        "ECS security group rule 'wide' allows egress on all protocols to 0.0.0.0/0, which reaches "
        f"on-prem {LAB}{FIX}"
    )
    assert _messages(wide, late_drop, config=ANYWHERE) == [expected]
    assert _messages(wide, other_group, config=ANYWHERE) == [expected]
    # By default a destination wider than /8 is the internet egress question, not judged here.
    assert _messages(wide, late_drop) == []
    assert _messages(_ali("ok", ipProtocol="tcp", portRange="2049/2049", cidrIp=LAB)) == []
    assert _messages(_ali("all", ipProtocol="tcp", portRange="1/65535", cidrIp=LAB)) == [
        f"ECS security group rule 'all' allows egress on TCP ports 1-65535 to {LAB}, which reaches on-prem "
        f"{LAB}{FIX}"
    ]


def test_tencent_entries_apply_in_order() -> None:
    accept_all = {"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}
    drop_lab = {"action": "DROP", "cidrBlock": LAB, "protocol": "ALL", "port": "ALL"}
    assert _messages(res(TC_SET, "after", {"egresses": [drop_lab, accept_all]}), config=ANYWHERE) == []
    assert _messages(res(TC_SET, "before", {"egresses": [accept_all, drop_lab]}), config=ANYWHERE) == [
        "Security group rule set 'before' allows egress on all protocols to 0.0.0.0/0 (egress rule 1), "
        f"which reaches on-prem {LAB}{FIX}"
    ]
    ports = {"action": "ACCEPT", "cidrBlock": LAB, "protocol": "TCP", "port": "443,2049"}
    assert _messages(res(TC_SET, "ports", {"egresses": [ports]})) == []
    lite = res(TC_LITE, "lite", {"egresses": [f"ACCEPT#{LAB}#ALL#TCP", f"ACCEPT#{LAB}#443#TCP"]})
    rule = res(TC_RULE, "one", {"type": "egress", "policy": "ACCEPT", "cidrIp": LAB, "ipProtocol": "UDP"})
    assert _messages(lite, rule) == [
        f"Security group lite rule 'lite' allows egress on all TCP ports to {LAB} (egress rule 1), which "
        f"reaches on-prem {LAB}{FIX}",
        f"Security group rule 'one' allows egress on all UDP ports to {LAB}, which reaches on-prem "
        f"{LAB}{FIX}",
    ]


def test_without_on_prem_ranges_the_rule_does_not_apply_and_config_supplies_them() -> None:
    group = _aws_group({"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["10.60.0.0/16"]})
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [group])
    found = run_stack(POLICY, [group], {"onprem_cidrs": ["10.60.0.0/16"]})
    assert [m for m, _ in found] == [
        "Security group 'nodes' allows egress on all protocols to 10.60.0.0/16 (egress rule 1), which "
        f"reaches on-prem 10.60.0.0/16{FIX}"
    ]


def test_by_default_all_egress_to_anywhere_is_left_to_the_internet_egress_rules() -> None:
    entry = {"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}
    assert _messages(_aws_group(entry)) == []
    assert _messages(_aws_group({**entry, "cidrBlocks": ["192.168.0.0/8"]})) == [
        f"Security group 'nodes' allows egress on all protocols to 192.168.0.0/8 (egress rule 1), which "
        f"reaches on-prem {LAB}{FIX}"
    ]
