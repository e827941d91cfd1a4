from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from gpufleet.policies.access.no_ssh_rdp_ingress import POLICY, RULE
from gpufleet.policies.rule import GfStackPolicy

from .helpers import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, check_stack, res

SG = "aws:ec2/securityGroup:SecurityGroup"
SG_DEFAULT = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
ALI_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
TC_RULE_SET = "tencentcloud:Security/groupRuleSet:GroupRuleSet"
TC_RULE = "tencentcloud:Security/groupRule:GroupRule"
TC_LITE = "tencentcloud:Security/groupLiteRule:GroupLiteRule"

TAIL = "; allow no SSH or RDP from anywhere: reach instances through a session manager"


def check(
    policy: GfStackPolicy,
    resource_type: str,
    props: Mapping[str, Any],
    name: str = "res",
    *,
    config: Mapping[str, Any] | None = None,
    proxy: bool = False,
) -> list[str]:
    """Judge one rule resource as a stack of one; every finding must be at that resource's URN."""
    resource = res(resource_type, name, props, proxy=proxy)
    found = check_stack(policy, [resource], config)
    assert {urn for _, urn in found} <= {resource.urn}, found
    return [message for message, _ in found]


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-001"
    assert POLICY.name == "no-ssh-rdp-ingress"
    assert RULE.defaults() == {"strict": False}
    assert RULE.checkov == ("CKV_AWS_24", "CKV_AWS_25")


# AWS inline security group
def _https(**over: object) -> dict[str, object]:
    rule: dict[str, object] = {"fromPort": 443, "toPort": 443, "protocol": "tcp", "cidrBlocks": ["0.0.0.0/0"]}
    rule.update(over)
    return rule


def test_aws_security_group_compliant() -> None:
    props = {
        "ingress": [_https(), {"fromPort": 22, "toPort": 22, "protocol": "tcp", "cidrBlocks": ["10.0.0.0/8"]}]
    }
    assert check(POLICY, SG, props, "gpu") == []


def test_aws_security_group_ssh_from_anywhere() -> None:
    props = {"ingress": [_https(), _https(fromPort=22.0, toPort=22.0)]}
    assert check(POLICY, SG, props, "gpu") == [
        f"Security group 'gpu' allows SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 2){TAIL}"
    ]


def test_aws_security_group_range_and_ipv6() -> None:
    props = {"ingress": [_https(fromPort=0, toPort=65535, cidrBlocks=[], ipv6CidrBlocks=["::/0"])]}
    assert check(POLICY, SG, props, "gpu") == [
        f"Security group 'gpu' allows SSH (TCP 22) and RDP (3389) ingress from ::/0 (ingress rule 1){TAIL}"
    ]


def test_aws_all_protocols_cover_ssh_and_rdp_and_default_group() -> None:
    props = {"ingress": [{"fromPort": 0, "toPort": 0, "protocol": "-1", "cidrBlocks": ["0.0.0.0/0"]}]}
    assert check(POLICY, SG_DEFAULT, props, "default") == [
        "Default security group 'default' allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0 "
        f"(ingress rule 1){TAIL}"
    ]


def test_aws_udp_3389_is_rdp_but_udp_22_is_not_ssh() -> None:
    props = {"ingress": [_https(fromPort=22, toPort=3389, protocol="udp")]}
    assert check(POLICY, SG, props, "gpu") == [
        f"Security group 'gpu' allows RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1){TAIL}"
    ]


def test_aws_security_group_source_group_passes_unless_strict() -> None:
    props = {"ingress": [{"fromPort": 22, "toPort": 22, "protocol": "tcp", "securityGroups": ["sg-bastion"]}]}
    assert check(POLICY, SG, props, "gpu") == []
    assert check(POLICY, SG, props, "gpu", config={"strict": True}) == [
        "Security group 'gpu' allows SSH (TCP 22) ingress from sg-bastion (ingress rule 1); allow no SSH or "
        "RDP from any source: reach instances through a session manager"
    ]


def test_aws_security_group_rule_ingress_and_egress() -> None:
    props = {
        "type": "ingress",
        "fromPort": 3389,
        "toPort": 3389,
        "protocol": "6",
        "cidrBlocks": ["0.0.0.0/0"],
    }
    assert check(POLICY, SG_RULE, props, "rdp") == [
        f"Security group rule 'rdp' allows RDP (3389) ingress from 0.0.0.0/0{TAIL}"
    ]
    assert check(POLICY, SG_RULE, {**props, "type": "egress"}, "rdp") == []


def test_aws_ingress_rule_resource() -> None:
    props = {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "-1"}
    assert check(POLICY, INGRESS_RULE, props, "all") == [
        f"Security group ingress rule 'all' allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0{TAIL}"
    ]
    assert (
        check(POLICY, INGRESS_RULE, {"cidrIpv6": "::/0", "ipProtocol": "tcp", "fromPort": 443, "toPort": 443})
        == []
    )


def test_aws_unknown_cidr_cannot_be_judged_and_proxy() -> None:
    props = {
        "type": "ingress",
        "fromPort": 22,
        "toPort": 22,
        "protocol": "tcp",
        "cidrBlocks": [UNKNOWN_STRING_VALUE],
    }
    expected = ["could not be judged at preview: the string value at .cidr can't be known during preview"]
    assert check(POLICY, SG_RULE, props, "ssh") == expected
    assert check(POLICY, SG_RULE, props, "ssh", proxy=True) == expected


def test_aws_unknown_port_cannot_be_judged() -> None:
    props = {"ingress": [_https(fromPort=UNKNOWN_NUMBER_VALUE)]}
    assert check(POLICY, SG, props, "gpu", proxy=True) == [
        "could not be judged at preview: the number value at .ingress.0.fromPort can't be known "
        "during preview"
    ]


def test_proxy_violation() -> None:
    props = {"ingress": [_https(fromPort=22, toPort=22)]}
    assert check(POLICY, SG, props, "gpu", proxy=True) == [
        f"Security group 'gpu' allows SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 1){TAIL}"
    ]


def test_other_types_are_ignored() -> None:
    assert check(POLICY, "aws:ec2/networkAcl:NetworkAcl", {"ingress": [_https(fromPort=22, toPort=22)]}) == []


# Alibaba Cloud
def _ali(**over: object) -> dict[str, object]:
    rule: dict[str, object] = {
        "type": "ingress",
        "ipProtocol": "tcp",
        "portRange": "443/443",
        "cidrIp": "0.0.0.0/0",
        "securityGroupId": "sg-1",
    }
    rule.update(over)
    return rule


def test_alicloud_compliant() -> None:
    assert check(POLICY, ALI_RULE, _ali(), "https") == []
    assert check(POLICY, ALI_RULE, _ali(portRange="22/22", cidrIp="192.168.0.0/16"), "ssh") == []


@pytest.mark.parametrize(
    ("over", "opened"),
    [
        ({"portRange": "22/22"}, "SSH (TCP 22)"),
        ({"portRange": "1/65535"}, "SSH (TCP 22) and RDP (3389)"),
        ({"ipProtocol": "all", "portRange": "-1/-1"}, "SSH (TCP 22) and RDP (3389)"),
    ],
)
def test_alicloud_violations(over: dict[str, object], opened: str) -> None:
    assert check(POLICY, ALI_RULE, _ali(**over), "r") == [
        f"ECS security group rule 'r' allows {opened} ingress from 0.0.0.0/0{TAIL}"
    ]


def test_alicloud_drop_and_egress_never_violate() -> None:
    assert check(POLICY, ALI_RULE, _ali(portRange="22/22", policy="drop")) == []
    assert check(POLICY, ALI_RULE, _ali(portRange="22/22", type="egress")) == []


def test_alicloud_ipv6_and_unknown_protocol() -> None:
    assert check(POLICY, ALI_RULE, _ali(portRange="3389/3389", cidrIp=None, ipv6CidrIp="::/0"), "r") == [
        f"ECS security group rule 'r' allows RDP (3389) ingress from ::/0{TAIL}"
    ]
    assert check(POLICY, ALI_RULE, _ali(ipProtocol=UNKNOWN_STRING_VALUE), "r", proxy=True) == [
        "could not be judged at preview: the string value at .ipProtocol can't be known during preview"
    ]


# Tencent Cloud
def _tc_ingress(**over: object) -> dict[str, object]:
    rule: dict[str, object] = {"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "protocol": "TCP", "port": "443"}
    rule.update(over)
    return rule


def test_tencent_rule_set_compliant() -> None:
    props = {"securityGroupId": "sg-1", "ingresses": [_tc_ingress(), _tc_ingress(port="22", action="DROP")]}
    assert check(POLICY, TC_RULE_SET, props, "set") == []


@pytest.mark.parametrize(
    ("over", "opened"),
    [
        ({"port": "22"}, "SSH (TCP 22)"),
        ({"port": "20-25"}, "SSH (TCP 22)"),
        ({"port": "80,3389"}, "RDP (3389)"),
        ({"port": "ALL"}, "SSH (TCP 22) and RDP (3389)"),
        ({"protocol": "ALL", "port": "ALL"}, "SSH (TCP 22) and RDP (3389)"),
    ],
)
def test_tencent_rule_set_violations(over: dict[str, object], opened: str) -> None:
    props = {"ingresses": [_tc_ingress(**over)]}
    assert check(POLICY, TC_RULE_SET, props, "set") == [
        f"Security group rule set 'set' allows {opened} ingress from 0.0.0.0/0 (ingress rule 1){TAIL}"
    ]


def test_tencent_rule_set_ipv6_with_proxy() -> None:
    props = {"ingresses": [_tc_ingress(cidrBlock=None, ipv6CidrBlock="::/0", port="22")]}
    assert check(POLICY, TC_RULE_SET, props, "set", proxy=True) == [
        f"Security group rule set 'set' allows SSH (TCP 22) ingress from ::/0 (ingress rule 1){TAIL}"
    ]


def test_tencent_group_rule() -> None:
    props = {
        "type": "ingress",
        "cidrIp": "0.0.0.0/0",
        "ipProtocol": "TCP",
        "portRange": "22",
        "policy": "ACCEPT",
    }
    assert check(POLICY, TC_RULE, props, "r") == [
        f"Security group rule 'r' allows SSH (TCP 22) ingress from 0.0.0.0/0{TAIL}"
    ]
    assert check(POLICY, TC_RULE, {**props, "policy": "DROP"}, "r") == []


def test_tencent_lite_rule() -> None:
    props = {"ingresses": ["ACCEPT#10.0.0.0/8#22#TCP", "DROP#0.0.0.0/0#22#TCP", "ACCEPT#0.0.0.0/0#ALL#ALL"]}
    assert check(POLICY, TC_LITE, props, "lite") == [
        f"Security group lite rule 'lite' allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0 "
        f"(ingress rule 3){TAIL}"
    ]


def test_tencent_unknown_port() -> None:
    props = {"ingresses": [_tc_ingress(port=UNKNOWN_STRING_VALUE)]}
    assert check(POLICY, TC_RULE_SET, props, "set") == [
        "could not be judged at preview: the string value at .ingresses.0.port can't be known during preview"
    ]


# Tencent Cloud templates
PROTOCOL_TEMPLATE = "tencentcloud:Protocol/template:Template"
PROTOCOL_GROUP = "tencentcloud:Protocol/templateGroup:TemplateGroup"
ADDRESS_TEMPLATE = "tencentcloud:Address/template:Template"


def _service_entry(template_id: object, **over: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "action": "ACCEPT",
        "cidrBlock": "0.0.0.0/0",
        "serviceTemplateId": template_id,
    }
    entry.update(over)
    return entry


def test_tencent_service_template_outside_the_stack_is_not_judged() -> None:
    props = {"ingresses": [_tc_ingress(), _service_entry("ppm-0abc1234")]}
    assert check(POLICY, TC_RULE_SET, props, "set") == [
        "could not be judged at preview: the ports of service template ppm-0abc1234 (ingress rule 2) are "
        "not in the stack; manage the tencentcloud.protocol.Template here or write the protocol and port "
        "on the rule"
    ]
    # From a private range the ports do not matter: nothing is left unjudged.
    private = {"ingresses": [_service_entry("ppm-0abc1234", cidrBlock="10.0.0.0/8")]}
    assert check(POLICY, TC_RULE_SET, private, "set") == []


def test_tencent_service_template_unknown_id_without_template_is_unknown_at_preview() -> None:
    props = {"ingresses": [_service_entry(UNKNOWN_STRING_VALUE)]}
    assert check(POLICY, TC_RULE_SET, props, "set") == [
        "could not be judged at preview: the string value at .ingresses.0.serviceTemplateId can't be "
        "known during preview"
    ]


def test_tencent_service_template_in_the_stack_is_read() -> None:
    ssh = res(PROTOCOL_TEMPLATE, "admin-ports", {"protocols": ["tcp:80,443", "tcp:20-23"]})
    rule_set = res(
        TC_RULE_SET,
        "set",
        {"ingresses": [_service_entry(UNKNOWN_STRING_VALUE)]},
        prop_deps={"ingresses": [ssh]},
    )
    assert check_stack(POLICY, [ssh, rule_set]) == [
        (
            "Security group rule set 'set' allows SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 1)"
            + TAIL,
            rule_set.urn,
        )
    ]
    web = res(PROTOCOL_TEMPLATE, "admin-ports", {"protocols": ["tcp:443", "icmp"]})
    assert check_stack(POLICY, [web, rule_set]) == []
    everything = res(PROTOCOL_TEMPLATE, "admin-ports", {"protocols": ["udp:all", "tcp:all"]})
    assert [m for m, _ in check_stack(POLICY, [everything, rule_set])] == [
        "Security group rule set 'set' allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0 "
        f"(ingress rule 1){TAIL}"
    ]
    pending = res(PROTOCOL_TEMPLATE, "admin-ports", {"protocols": UNKNOWN_STRING_VALUE})
    assert check_stack(POLICY, [pending, rule_set]) == [
        (
            "could not be judged at preview: the string value at .admin-ports.protocols can't be known "
            "during preview",
            rule_set.urn,
        )
    ]


def test_tencent_service_template_group_and_group_rule_protocol_template() -> None:
    rdp = res(PROTOCOL_TEMPLATE, "rdp", {"protocols": ["udp:3389"]})
    group = res(
        PROTOCOL_GROUP, "remote", {"templateIds": [UNKNOWN_STRING_VALUE]}, prop_deps={"templateIds": [rdp]}
    )
    rule_set = res(
        TC_RULE_SET,
        "set",
        {"ingresses": [{"action": "ACCEPT", "cidrBlock": "0.0.0.0/0", "serviceTemplateGroup": "remote"}]},
    )
    assert [m for m, _ in check_stack(POLICY, [rdp, group, rule_set])] == [
        f"Security group rule set 'set' allows RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1){TAIL}"
    ]
    rule = res(
        TC_RULE,
        "r",
        {
            "type": "ingress",
            "policy": "ACCEPT",
            "cidrIp": "0.0.0.0/0",
            "protocolTemplate": {"templateId": UNKNOWN_STRING_VALUE},
        },
        prop_deps={"protocolTemplate": [rdp]},
    )
    assert check_stack(POLICY, [rdp, rule]) == [
        (f"Security group rule 'r' allows RDP (3389) ingress from 0.0.0.0/0{TAIL}", rule.urn)
    ]
    outside = {
        "type": "ingress",
        "policy": "ACCEPT",
        "cidrIp": "::/0",
        "protocolTemplate": {"groupId": "ppmg-1"},
    }
    assert check(POLICY, TC_RULE, outside, "r") == [
        "could not be judged at preview: the ports of service template ppmg-1 are not in the stack; manage "
        "the tencentcloud.protocol.Template here or write the protocol and port on the rule"
    ]


def test_tencent_address_template_in_the_stack_is_read_as_cidrs() -> None:
    world = res(ADDRESS_TEMPLATE, "world", {"addresses": ["10.0.0.0/8", "0.0.0.0/0"]})
    entry = {"action": "ACCEPT", "addressTemplateId": "world", "protocol": "TCP", "port": "22"}
    rule_set = res(TC_RULE_SET, "set", {"ingresses": [entry]})
    assert check_stack(POLICY, [world, rule_set]) == [
        (
            "Security group rule set 'set' allows SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 1)"
            + TAIL,
            rule_set.urn,
        )
    ]
    office = res(ADDRESS_TEMPLATE, "world", {"addresses": ["203.0.113.0/24"]})
    assert check_stack(POLICY, [office, rule_set]) == []
    # Outside the stack an address template is a named source, like an AWS prefix list.
    outside = {"ingresses": [{**entry, "addressTemplateId": "ipm-7f3k2"}]}
    assert check(POLICY, TC_RULE_SET, outside, "set") == []
    assert check(POLICY, TC_RULE_SET, outside, "set", config={"strict": True}) == [
        "Security group rule set 'set' allows SSH (TCP 22) ingress from ipm-7f3k2 (ingress rule 1); allow no "
        "SSH or RDP from any source: reach instances through a session manager"
    ]


def test_tencent_templates_that_one_reference_cannot_tell_apart() -> None:
    ssh = res(PROTOCOL_TEMPLATE, "ssh", {"protocols": ["tcp:22"]})
    web = res(PROTOCOL_TEMPLATE, "web", {"protocols": ["tcp:443"]})
    # Both ids are unknown at preview, and the rule set's dependencies span both entries.
    rule_set = res(
        TC_RULE_SET,
        "set",
        {"ingresses": [_service_entry(UNKNOWN_STRING_VALUE), _service_entry(UNKNOWN_STRING_VALUE)]},
        prop_deps={"ingresses": [ssh, web]},
    )
    assert check_stack(POLICY, [ssh, web, rule_set]) == [
        (
            "could not be judged at preview: the ports (ingress rule 1) depend on which of the service "
            "templates 'ssh', 'web' it names",
            rule_set.urn,
        )
    ]
    # Named by a known value, each entry reads its own template.
    named = res(
        TC_RULE_SET,
        "set",
        {"ingresses": [_service_entry("web"), _service_entry("ssh", cidrBlock="10.0.0.0/8")]},
        prop_deps={"ingresses": [ssh, web]},
    )
    assert check_stack(POLICY, [ssh, web, named]) == []


def test_tencent_address_template_group_members_are_read() -> None:
    office = res(ADDRESS_TEMPLATE, "office", {"addresses": ["203.0.113.0/24"]})
    extra = res(
        "tencentcloud:Address/extraTemplate:ExtraTemplate",
        "anywhere",
        {"addressesExtras": [{"address": "0.0.0.0/0", "description": "temporary"}]},
    )
    group = res(
        "tencentcloud:Address/templateGroup:TemplateGroup",
        "admins",
        {"templateIds": ["office", "anywhere"]},
    )
    entry = {"action": "ACCEPT", "addressTemplateGroup": "admins", "protocol": "TCP", "port": "3389"}
    rule_set = res(TC_RULE_SET, "set", {"ingresses": [entry]})
    assert [m for m, _ in check_stack(POLICY, [office, extra, group, rule_set])] == [
        f"Security group rule set 'set' allows RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1){TAIL}"
    ]


# Anywhere written in pieces: several CIDRs of one group, or a prefix list of the stack.
def _ssh(*cidrs: str, ipv6: bool = False) -> dict[str, object]:
    key = "ipv6CidrBlocks" if ipv6 else "cidrBlocks"
    return {"fromPort": 22, "toPort": 22, "protocol": "tcp", key: list(cidrs)}


def test_aws_halves_of_the_world_in_one_group_fail() -> None:
    props = {"ingress": [_ssh("0.0.0.0/1"), _ssh("128.0.0.0/1")]}
    assert check(POLICY, SG, props, "gpu") == [
        "Security group 'gpu' allows SSH (TCP 22) ingress from 0.0.0.0/1 (ingress rule 1), 128.0.0.0/1 "
        f"(ingress rule 2), which together cover 0.0.0.0/0{TAIL}"
    ]
    assert POLICY.enforcement_level.value == "mandatory"


def test_aws_ipv6_halves_and_many_pieces_fail() -> None:
    props = {"ingress": [_ssh("::/1", "8000::/1", ipv6=True)]}
    assert check(POLICY, SG, props, "gpu") == [
        "Security group 'gpu' allows SSH (TCP 22) ingress from ::/1 (ingress rule 1), 8000::/1 "
        "(ingress rule 1), "
        f"which together cover ::/0{TAIL}"
    ]
    quarters = {"ingress": [_ssh("0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2"), _ssh("192.0.0.0/2")]}
    (message,) = check(POLICY, SG, quarters, "gpu")
    assert message.endswith(f"which together cover 0.0.0.0/0{TAIL}")


def test_aws_separate_rules_of_one_group_together_fail_on_the_group() -> None:
    group = res(SG, "gpu", {"id": "sg-0abc"})
    low = res(
        SG_RULE,
        "low",
        {"type": "ingress", "securityGroupId": UNKNOWN_STRING_VALUE, **_ssh("0.0.0.0/1")},
        prop_deps={"securityGroupId": [group]},
    )
    high = res(
        INGRESS_RULE,
        "high",
        {
            "securityGroupId": "sg-0abc",
            "ipProtocol": "tcp",
            "fromPort": 3389,
            "toPort": 3389,
            "cidrIpv4": "128.0.0.0/1",
        },
    )
    rdp_low = res(
        SG_RULE,
        "rdp-low",
        {
            "type": "ingress",
            "securityGroupId": "sg-0abc",
            "protocol": "tcp",
            "fromPort": 3380,
            "toPort": 3390,
            "cidrBlocks": ["0.0.0.0/1"],
        },
    )
    assert check_stack(POLICY, [group, low, high, rdp_low]) == [
        (
            "Security group 'gpu' allows RDP (3389) ingress from 128.0.0.0/1 (rule 'high'), 0.0.0.0/1 "
            f"(rule 'rdp-low'), which together cover 0.0.0.0/0{TAIL}",
            group.urn,
        )
    ]


def test_wide_ranges_that_leave_a_gap_pass() -> None:
    # A /1 alone, or halves that miss one address, are wide but not anywhere.
    assert check(POLICY, SG, {"ingress": [_ssh("0.0.0.0/1")]}, "gpu") == []
    assert (
        check(POLICY, SG, {"ingress": [_ssh("0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4")]}) == []
    )
    # Halves on different ports, or in different groups, open no one port to the world.
    other_port = {"ingress": [_ssh("0.0.0.0/1"), {**_ssh("128.0.0.0/1"), "fromPort": 443, "toPort": 443}]}
    assert check(POLICY, SG, other_port, "gpu") == []
    first = res(SG_RULE, "a", {"type": "ingress", "securityGroupId": "sg-1", **_ssh("0.0.0.0/1")})
    second = res(SG_RULE, "b", {"type": "ingress", "securityGroupId": "sg-2", **_ssh("128.0.0.0/1")})
    assert check_stack(POLICY, [first, second]) == []


def test_alicloud_rules_of_one_group_together_fail() -> None:
    def rule(name: str, cidr: str) -> Any:
        props = {
            "type": "ingress",
            "ipProtocol": "tcp",
            "portRange": "22/22",
            "cidrIp": cidr,
            "securityGroupId": "sg-ali",
        }
        return res(ALI_RULE, name, props)

    low, high = rule("low", "0.0.0.0/1"), rule("high", "128.0.0.0/1")
    assert check_stack(POLICY, [low, high]) == [
        (
            "Security group sg-ali allows SSH (TCP 22) ingress from 0.0.0.0/1 (rule 'low'), 128.0.0.0/1 "
            f"(rule 'high'), which together cover 0.0.0.0/0{TAIL}",
            low.urn,
        )
    ]


AWS_PREFIX_LIST = "aws:ec2/managedPrefixList:ManagedPrefixList"
AWS_PREFIX_LIST_ENTRY = "aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry"
ALI_PREFIX_LIST = "alicloud:vpc/prefixList:PrefixList"


def test_aws_prefix_list_holding_the_world_fails() -> None:
    plist = res(AWS_PREFIX_LIST, "everyone", {"id": "pl-0world", "entries": [{"cidr": "0.0.0.0/0"}]})
    group = res(
        SG,
        "gpu",
        {"ingress": [{"fromPort": 22, "toPort": 22, "protocol": "tcp", "prefixListIds": ["pl-0world"]}]},
    )
    rule = res(
        INGRESS_RULE,
        "rdp",
        {"ipProtocol": "tcp", "fromPort": 3389, "toPort": 3389, "prefixListId": UNKNOWN_STRING_VALUE},
        prop_deps={"prefixListId": [plist]},
    )
    assert check_stack(POLICY, [plist, group, rule]) == [
        (
            "Security group 'gpu' allows SSH (TCP 22) ingress from 0.0.0.0/0 (prefix list 'everyone') "
            f"(ingress rule 1){TAIL}",
            group.urn,
        ),
        (
            "Security group ingress rule 'rdp' allows RDP (3389) ingress from 0.0.0.0/0 (prefix list "
            f"'everyone'){TAIL}",
            rule.urn,
        ),
    ]


def test_aws_prefix_list_entry_resource_is_read() -> None:
    plist = res(AWS_PREFIX_LIST, "corp", {"id": "pl-0corp", "entries": [{"cidr": "10.0.0.0/8"}]})
    extra = res(
        AWS_PREFIX_LIST_ENTRY,
        "corp-any",
        {"prefixListId": UNKNOWN_STRING_VALUE, "cidr": "::/0"},
        prop_deps={"prefixListId": [plist]},
    )
    rule = res(SG_RULE, "ssh", {"type": "ingress", **_ssh(), "prefixListIds": ["pl-0corp"]})
    assert check_stack(POLICY, [plist, extra, rule]) == [
        (
            f"Security group rule 'ssh' allows SSH (TCP 22) ingress from ::/0 (prefix list 'corp'){TAIL}",
            rule.urn,
        )
    ]


def test_narrow_or_outside_prefix_lists_pass() -> None:
    plist = res(
        AWS_PREFIX_LIST,
        "corp",
        {"id": "pl-0corp", "entries": [{"cidr": "10.0.0.0/8"}, {"cidr": "192.168.0.0/16"}]},
    )
    inside = res(SG_RULE, "ssh", {"type": "ingress", **_ssh(), "prefixListIds": ["pl-0corp"]})
    outside = res(SG_RULE, "ssh2", {"type": "ingress", **_ssh(), "prefixListIds": ["pl-0elsewhere"]})
    assert check_stack(POLICY, [plist, inside, outside]) == []


def test_alicloud_prefix_list_holding_the_world_fails() -> None:
    plist = res(
        ALI_PREFIX_LIST, "everyone", {"id": "pl-ali", "entrys": [{"cidr": "0.0.0.0/0", "description": "all"}]}
    )
    rule = res(
        ALI_RULE,
        "ssh",
        {
            "type": "ingress",
            "ipProtocol": "tcp",
            "portRange": "22/22",
            "prefixListId": "pl-ali",
            "securityGroupId": "sg-1",
        },
    )
    assert check_stack(POLICY, [plist, rule]) == [
        (
            "ECS security group rule 'ssh' allows SSH (TCP 22) ingress from 0.0.0.0/0 (prefix list "
            f"'everyone'){TAIL}",
            rule.urn,
        )
    ]
    narrow = res(ALI_PREFIX_LIST, "everyone", {"id": "pl-ali", "entrys": [{"cidr": "10.0.0.0/8"}]})
    assert check_stack(POLICY, [narrow, rule]) == []
