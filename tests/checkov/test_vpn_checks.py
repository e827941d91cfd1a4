"""CKV_GPUF_9..11: checkov itself judges the VPN connections' crypto the way GF-NET-001 does. Each fixture
below gets the same verdict from checkov and from the policy pack; the hybrid stack's links pass all three."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpufleet.checkov.merge import PASSED_KEY, judge
from gpufleet.checkov.overlap import explain
from gpufleet.checkov.run import CUSTOM_CHECKS_DIR
from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from gpufleet.policies.network import alicloud as network_alicloud
from gpufleet.policies.network import aws as network_aws
from gpufleet.policies.network import tencentcloud as network_tencentcloud
from gpufleet.policies.network import vpn_strong_crypto
from tests.checkov.fixtures import resource, urn
from tests.policies.support import run_resource

ROOT = Path(__file__).resolve().parents[2]
AWS_VPN = "aws:ec2/vpnConnection:VpnConnection"
ALI_VPN = "alicloud:vpn/connection:Connection"
ALI_ATTACH = "alicloud:vpn/gatewayVpnAttachment:GatewayVpnAttachment"
TC_VPN = "tencentcloud:Vpn/connection:Connection"
CHECK_OF = {AWS_VPN: "CKV_GPUF_9", ALI_VPN: "CKV_GPUF_10", ALI_ATTACH: "CKV_GPUF_10", TC_VPN: "CKV_GPUF_11"}


def _aws(**override: Any) -> dict[str, Any]:
    props: dict[str, Any] = {"customerGatewayId": "cgw-1", "vpnGatewayId": "vgw-1", "type": "ipsec.1"}
    for n in (1, 2):
        props[f"tunnel{n}IkeVersions"] = ["ikev2"]
        for phase in (1, 2):
            props[f"tunnel{n}Phase{phase}EncryptionAlgorithms"] = ["AES256-GCM-16", "AES256"]
            props[f"tunnel{n}Phase{phase}IntegrityAlgorithms"] = ["SHA2-256", "SHA2-512"]
            props[f"tunnel{n}Phase{phase}DhGroupNumbers"] = [14.0, 19.0, 20.0, 21.0]
    props.update(override)
    return props


ALI_IKE = {"ikeVersion": "ikev2", "ikeEncAlg": "aes256", "ikeAuthAlg": "sha256", "ikePfs": "group14"}
ALI_IPSEC = {"ipsecEncAlg": "aes256", "ipsecAuthAlg": "sha256", "ipsecPfs": "group14"}
ALI_BASE = {"vpnGatewayId": "vpn-1", "customerGatewayId": "cgw-1", "localSubnets": ["10.20.0.0/16"]}
ALI_ATTACH_BASE = {
    "customerGatewayId": "cgw-1",
    "localSubnet": "10.20.0.0/16",
    "remoteSubnet": "192.168.16.0/20",
}
TC_GOOD = {
    "vpnGatewayId": "vpngw-1",
    "customerGatewayId": "cgw-1",
    "name": "tc",
    "ikeVersion": "IKEV2",
    "ikeProtoEncryAlgorithm": "AES-CBC-256",
    "ikeProtoAuthenAlgorithm": "SHA-256",
    "ikeDhGroupName": "GROUP14",
    "ipsecEncryptAlgorithm": "AES-CBC-256",
    "ipsecIntegrityAlgorithm": "SHA-256",
    "ipsecPfsDhGroup": "DH-GROUP14",
}


def _ali_tunnel(ike: dict[str, Any], ipsec: dict[str, Any]) -> dict[str, Any]:
    return {
        "customerGatewayId": "cgw-1",
        "role": "master",
        "tunnelIkeConfig": ike,
        "tunnelIpsecConfig": ipsec,
    }


# name -> (type, wire-form inputs, checkov's expected verdict)
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "aws-strong": (AWS_VPN, _aws(), "PASSED"),
    "aws-defaults": (
        AWS_VPN,
        {"customerGatewayId": "cgw-1", "vpnGatewayId": "vgw-1", "type": "ipsec.1"},
        "FAILED",
    ),
    "aws-tunnel2-ikev1": (AWS_VPN, _aws(tunnel2IkeVersions=["ikev1", "ikev2"]), "FAILED"),
    "aws-tunnel2-unset": (AWS_VPN, _aws(tunnel2Phase2EncryptionAlgorithms=None), "FAILED"),
    "aws-aes128": (AWS_VPN, _aws(tunnel1Phase2EncryptionAlgorithms=["AES256", "AES128"]), "FAILED"),
    "aws-sha1": (AWS_VPN, _aws(tunnel1Phase1IntegrityAlgorithms=["SHA2-256", "SHA1"]), "FAILED"),
    "aws-dh2": (AWS_VPN, _aws(tunnel1Phase1DhGroupNumbers=[2.0, 14.0]), "FAILED"),
    "aws-dh24": (AWS_VPN, _aws(tunnel2Phase2DhGroupNumbers=[20.0, 24.0]), "FAILED"),
    "ali-strong": (ALI_VPN, {**ALI_BASE, "ikeConfig": ALI_IKE, "ipsecConfig": ALI_IPSEC}, "PASSED"),
    # A VPN attachment (a CEN-attached IPsec connection) carries the same IKE and IPsec blocks.
    "ali-attachment-strong": (
        ALI_ATTACH,
        {**ALI_ATTACH_BASE, "ikeConfig": ALI_IKE, "ipsecConfig": ALI_IPSEC},
        "PASSED",
    ),
    "ali-attachment-md5": (
        ALI_ATTACH,
        {**ALI_ATTACH_BASE, "ikeConfig": {**ALI_IKE, "ikeAuthAlg": "md5"}, "ipsecConfig": ALI_IPSEC},
        "FAILED",
    ),
    "ali-sha512": (
        ALI_VPN,
        {
            **ALI_BASE,
            "ikeConfig": {**ALI_IKE, "ikeAuthAlg": "sha512", "ikePfs": "group21"},
            "ipsecConfig": {**ALI_IPSEC, "ipsecAuthAlg": "sha384"},
        },
        "PASSED",
    ),
    "ali-defaults": (ALI_VPN, dict(ALI_BASE), "FAILED"),
    "ali-no-ipsec": (ALI_VPN, {**ALI_BASE, "ikeConfig": ALI_IKE}, "FAILED"),
    "ali-md5": (
        ALI_VPN,
        {**ALI_BASE, "ikeConfig": {**ALI_IKE, "ikeAuthAlg": "md5"}, "ipsecConfig": ALI_IPSEC},
        "FAILED",
    ),
    "ali-ikev1": (
        ALI_VPN,
        {**ALI_BASE, "ikeConfig": {**ALI_IKE, "ikeVersion": "ikev1"}, "ipsecConfig": ALI_IPSEC},
        "FAILED",
    ),
    "ali-pfs-group2": (
        ALI_VPN,
        {**ALI_BASE, "ikeConfig": ALI_IKE, "ipsecConfig": {**ALI_IPSEC, "ipsecPfs": "group2"}},
        "FAILED",
    ),
    "ali-dual-strong": (
        ALI_VPN,
        {**ALI_BASE, "tunnelOptionsSpecifications": [_ali_tunnel(ALI_IKE, ALI_IPSEC)] * 2},
        "PASSED",
    ),
    "ali-dual-weak": (
        ALI_VPN,
        {
            **ALI_BASE,
            "tunnelOptionsSpecifications": [
                _ali_tunnel(ALI_IKE, ALI_IPSEC),
                _ali_tunnel(ALI_IKE, {**ALI_IPSEC, "ipsecEncAlg": "3des"}),
            ],
        },
        "FAILED",
    ),
    "tc-strong": (TC_VPN, dict(TC_GOOD), "PASSED"),
    "tc-gcm-group19": (
        TC_VPN,
        {**TC_GOOD, "ipsecEncryptAlgorithm": "AES256GCM128", "ikeDhGroupName": "GROUP19"},
        "PASSED",
    ),
    "tc-defaults": (
        TC_VPN,
        {"vpnGatewayId": "vpngw-1", "customerGatewayId": "cgw-1", "name": "tc"},
        "FAILED",
    ),
    "tc-no-pfs": (TC_VPN, {**TC_GOOD, "ipsecPfsDhGroup": "NULL"}, "FAILED"),
    "tc-ikev1": (TC_VPN, {**TC_GOOD, "ikeVersion": "IKEV1"}, "FAILED"),
    "tc-3des": (TC_VPN, {**TC_GOOD, "ikeProtoEncryAlgorithm": "3DES-CBC"}, "FAILED"),
    "tc-sha1": (TC_VPN, {**TC_GOOD, "ipsecIntegrityAlgorithm": "SHA1"}, "FAILED"),
    "tc-group2": (TC_VPN, {**TC_GOOD, "ikeDhGroupName": "GROUP2"}, "FAILED"),
}


def _inputs(props: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in props.items() if value is not None}


def graph() -> ResourceGraph:
    return ResourceGraph(
        project="proj",
        stack="vpn",
        resources=[resource(token, name, _inputs(props)) for name, (token, props, _) in CASES.items()],
    )


@pytest.fixture(scope="module")
def outcome(checkov_bin: Path) -> dict[str, Any]:
    (block,) = judge([graph()], checkov_bin)
    return block


def _verdicts(block: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(check id, URN) -> PASSED or FAILED, for our VPN checks."""
    out = {(check, u): "PASSED" for check, u in block.get(PASSED_KEY, []) if check in CHECK_OF.values()}
    out.update(
        {(f["check_id"], f["urn"]): "FAILED" for f in block["findings"] if f["check_id"] in CHECK_OF.values()}
    )
    return out


@pytest.mark.checkov
@pytest.mark.parametrize("name", sorted(CASES))
def test_checkov_verdict_per_fixture(outcome: dict[str, Any], name: str) -> None:
    token, _, expected = CASES[name]
    verdicts = _verdicts(outcome)
    assert verdicts.get((CHECK_OF[token], urn(token, name))) == expected
    # Only the check for the resource's own cloud judged it.
    others = {c for (c, u) in verdicts if u == urn(token, name)} - {CHECK_OF[token]}
    assert others == set()


@pytest.mark.checkov
def test_failures_carry_the_check_name(outcome: dict[str, Any]) -> None:
    (finding,) = [f for f in outcome["findings"] if f["urn"] == urn(TC_VPN, "tc-no-pfs")]
    assert finding["check_id"] == "CKV_GPUF_11"
    assert finding["check_name"] == (
        "Ensure Tencent Cloud VPN connections set IKEv2, AES-256, SHA-256 or better and DH group 14-21"
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_gf_net_001_agrees_with_each_fixture(name: str) -> None:
    token, props, expected = CASES[name]
    messages = run_resource(vpn_strong_crypto.POLICY, token, _inputs(props), name)
    assert ("FAILED" if messages else "PASSED") == expected, messages


@pytest.fixture
def vpn_tables(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(CUSTOM_CHECKS_DIR))
    spec = importlib.util.spec_from_file_location("_gpuf_vpn", CUSTOM_CHECKS_DIR / "_gpuf_vpn.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delitem(sys.modules, "_gpuf_values", raising=False)
    return module


def _cloud_tables(cloud: str) -> ModuleType:
    """`_gpuf_vpn_<cloud>.py`, loaded by file as its check imports it."""
    path = CUSTOM_CHECKS_DIR / f"_gpuf_vpn_{cloud}.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_check_tables_are_the_policys(vpn_tables: ModuleType) -> None:
    aws, ali, tc = (_cloud_tables(cloud) for cloud in ("aws", "alicloud", "tencentcloud"))
    for table, check, policy in (
        ("STRONG_DH_GROUPS", vpn_tables.STRONG_DH_GROUPS, vpn_strong_crypto.STRONG_DH_GROUPS),
        ("AWS_ENCRYPTION", aws.ENCRYPTION, network_aws.AWS_ENCRYPTION),
        ("AWS_INTEGRITY", aws.INTEGRITY, network_aws.AWS_INTEGRITY),
        ("ALI_ENCRYPTION", ali.ENCRYPTION, network_alicloud.ALI_ENCRYPTION),
        ("ALI_INTEGRITY", ali.INTEGRITY, network_alicloud.ALI_INTEGRITY),
        ("TC_ENCRYPTION", tc.ENCRYPTION, network_tencentcloud.TC_ENCRYPTION),
        ("TC_INTEGRITY", tc.INTEGRITY, network_tencentcloud.TC_INTEGRITY),
    ):
        assert check == policy, table
    assert vpn_tables.group_number("DH-GROUP14") == 14
    assert vpn_tables.group_number(20.0) == 20
    assert vpn_tables.group_number("NULL") is None
    assert vpn_tables.values({"k": [["ikev2", ["ikev1"]]]}, "k") == ["ikev2", "ikev1"]


@pytest.mark.checkov
def test_the_hybrid_links_pass_all_three(checkov_bin: Path) -> None:
    hybrid = run_program(ROOT, "hybrid")
    (block,) = judge([hybrid], checkov_bin)
    verdicts = _verdicts(block)
    vpns = {r.type: r.urn for r in hybrid.resources if r.type in CHECK_OF}
    assert set(vpns) == set(CHECK_OF) - {ALI_ATTACH}  # the hybrid Alibaba link is a VPN connection
    assert {verdicts.get((CHECK_OF[token], u)) for token, u in vpns.items()} == {"PASSED"}


@pytest.mark.checkov
def test_explain_overlap_pairs_gf_net_001_with_the_three_checks(outcome: dict[str, Any]) -> None:
    assert vpn_strong_crypto.RULE.checkov == ("CKV_GPUF_9", "CKV_GPUF_10", "CKV_GPUF_11")
    violations = [
        ("GF-NET-001", urn(token, name))
        for name, (token, props, _) in CASES.items()
        if run_resource(vpn_strong_crypto.POLICY, token, _inputs(props), name)
    ]
    (entry,) = explain(
        [(vpn_strong_crypto.RULE.id, vpn_strong_crypto.RULE.checkov)],
        violations,
        [(f["check_id"], f["urn"]) for f in outcome["findings"]],
        outcome.get(PASSED_KEY, []),
    )
    expected_failed = sum(1 for _, _, verdict in CASES.values() if verdict == "FAILED")
    assert entry == {
        "rule_id": "GF-NET-001",
        "checkov": ["CKV_GPUF_9", "CKV_GPUF_10", "CKV_GPUF_11"],
        "agree_fail": expected_failed,
        "agree_pass": len(CASES) - expected_failed,
        "gpufleet_only": [],
        "checkov_only": [],
        "not_judged_by_checkov": [],
    }
