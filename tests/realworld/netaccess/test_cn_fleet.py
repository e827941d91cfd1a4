"""GF-ACC-001..005 and GF-NET-001/002 on a raw-SDK Alibaba Cloud and Tencent Cloud program (see
cn_fleet/__main__.py): the compliant program and one mistake per variant."""

from __future__ import annotations

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.realworld.aws.harness import as_preview, with_input

from .support import CN_CONFIG, CN_FLEET, graph_of, judge, outcome

# Advisory: neither cloud gets an audit trail in this program.
ALWAYS = {"GF-AUD-001"}

VARIANTS: dict[str, tuple[str, str, str]] = {
    "ali-ssh-world": (
        "GF-ACC-001",
        "ali-open",
        "ECS security group rule 'ali-open' allows SSH (TCP 22) ingress from 0.0.0.0/0",
    ),
    "ali-all-world": ("GF-ACC-001", "ali-open", "allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0"),
    "ali-tcp-range": ("GF-ACC-001", "ali-open", "allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0"),
    "ali-rdp-udp-v6": ("GF-ACC-001", "ali-open", "allows RDP (3389) ingress from ::/0"),
    "tc-all-world": (
        "GF-ACC-001",
        "tc-gpu-rules",
        "allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1)",
    ),
    "tc-list-world": (
        "GF-ACC-001",
        "tc-gpu-rules",
        "allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1)",
    ),
    "tc-range-world": (
        "GF-ACC-001",
        "tc-gpu-rules",
        "allows SSH (TCP 22) ingress from ::/0 (ingress rule 1)",
    ),
    "ali-key": ("GF-ACC-002", "ali-gpu-vm", "has SSH key pair 'ops' (keyName)"),
    "ali-password": ("GF-ACC-002", "ali-gpu-vm", "has a login password (password)"),
    "tc-key": ("GF-ACC-002", "tc-gpu-vm", "CVM instance 'tc-gpu-vm' (GN7.2XLARGE32) has SSH key pair"),
    "tc-password": ("GF-ACC-002", "tc-gpu-vm", "has a login password (password)"),
    "ali-no-session-manager": ("GF-ACC-003", "ali-gpu-vm", "is not reachable by Session Manager"),
    "tc-no-tat-agent": ("GF-ACC-003", "tc-gpu-vm", "turns the TAT automation agent off"),
    "ali-public-ip": ("GF-ACC-005", "ali-gpu-vm", "gets a public IP (internetMaxBandwidthOut is 10"),
    "tc-public-ip": ("GF-ACC-005", "tc-gpu-vm", "gets a public IP (allocatePublicIp is true)"),
    "ali-vpn-defaults": ("GF-NET-001", "ali-office", "ikeVersion unset (default ikev1)"),
    "tc-vpn-weak": ("GF-NET-001", "tc-office", "ikeVersion is IKEV1; ipsecIntegrityAlgorithm is MD5"),
    "ali-overlap": (
        "GF-NET-002",
        "ali-vpc",
        "VPC 'ali-vpc' range 172.16.0.0/16 overlaps VPN connection 'ali-office'",
    ),
}


def test_compliant_program_has_only_the_audit_trail_advice() -> None:
    found = outcome(CN_FLEET, config=CN_CONFIG)
    assert found.mandatory() == [], found.summary()
    assert found.ids() == ALWAYS, found.summary()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_reported_by_its_rule(variant: str) -> None:
    rule_id, name, words = VARIANTS[variant]
    found = outcome(CN_FLEET, variant, CN_CONFIG)
    assert found.ids() == {rule_id} | ALWAYS, found.summary()
    (finding,) = found.of(rule_id)
    assert finding.urn.endswith(f"::{name}")
    assert f"'{name}'" in finding.message and words in finding.message, finding.message


def test_first_preview_with_unknown_ids_stays_compliant() -> None:
    preview = judge(as_preview(graph_of(CN_FLEET)), CN_CONFIG)
    assert preview.mandatory() == [], preview.summary()


def test_unknown_port_range_is_not_judged_rather_than_passed() -> None:
    graph = with_input(
        graph_of(CN_FLEET, "ali-ssh-world"),
        "ali-open",
        "alicloud:ecs/securityGroupRule:SecurityGroupRule",
        "portRange",
        UNKNOWN_STRING,
    )
    (finding,) = judge(graph, CN_CONFIG).of("GF-ACC-001")
    assert "could not be judged" in finding.message


def test_unknown_source_group_of_a_private_rule_is_not_a_finding() -> None:
    graph = with_input(
        graph_of(CN_FLEET),
        "ali-https",
        "alicloud:ecs/securityGroupRule:SecurityGroupRule",
        "securityGroupId",
        UNKNOWN_STRING,
    )
    assert judge(graph, CN_CONFIG).of("GF-ACC-001") == []
