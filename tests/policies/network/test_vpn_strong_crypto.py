from __future__ import annotations

from typing import Any

from gpufleet.policies.network.vpn_strong_crypto import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, run_resource

AWS_VPN = "aws:ec2/vpnConnection:VpnConnection"
ALI_VPN = "alicloud:vpn/connection:Connection"
ALI_ATTACH = "alicloud:vpn/gatewayVpnAttachment:GatewayVpnAttachment"
TC_VPN = "tencentcloud:Vpn/connection:Connection"
EXPECTED = "use IKEv2 only, AES-256, SHA-256 or stronger, and DH groups 14-21"


def aws_good() -> dict[str, Any]:
    props: dict[str, Any] = {"customerGatewayId": "cgw-1", "vpnGatewayId": "vgw-1", "type": "ipsec.1"}
    for n in (1, 2):
        props[f"tunnel{n}IkeVersions"] = ["ikev2"]
        for phase in (1, 2):
            props[f"tunnel{n}Phase{phase}EncryptionAlgorithms"] = ["AES256-GCM-16", "AES256"]
            props[f"tunnel{n}Phase{phase}IntegrityAlgorithms"] = ["SHA2-256", "SHA2-512"]
            props[f"tunnel{n}Phase{phase}DhGroupNumbers"] = [14.0, 19.0, 20.0, 21.0]
    return props


ALI_IKE = {"ikeVersion": "ikev2", "ikeEncAlg": "aes256", "ikeAuthAlg": "sha256", "ikePfs": "group14"}
ALI_IPSEC = {"ipsecEncAlg": "aes256", "ipsecAuthAlg": "sha256", "ipsecPfs": "group14"}
ALI_GOOD = {
    "vpnGatewayId": "vpn-1",
    "customerGatewayId": "cgw-1",
    "localSubnets": ["10.20.0.0/16"],
    "remoteSubnets": ["10.0.0.0/16"],
    "ikeConfig": ALI_IKE,
    "ipsecConfig": ALI_IPSEC,
}
TC_GOOD = {
    "vpnGatewayId": "vpngw-1",
    "customerGatewayId": "cgw-1",
    "preShareKey": "x",
    "ikeVersion": "IKEV2",
    "ikeProtoEncryAlgorithm": "AES-CBC-256",
    "ikeProtoAuthenAlgorithm": "SHA-256",
    "ikeDhGroupName": "GROUP14",
    "ipsecEncryptAlgorithm": "AES256GCM128",
    "ipsecIntegrityAlgorithm": "SHA-256",
    "ipsecPfsDhGroup": "DH-GROUP14",
}


def test_metadata() -> None:
    assert RULE.id == "GF-NET-001"
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud")
    assert POLICY.enforcement_level.value == "mandatory"


def test_compliant_baselines() -> None:
    assert run_resource(POLICY, AWS_VPN, aws_good(), name="vpn") == []
    assert run_resource(POLICY, ALI_VPN, ALI_GOOD, name="vpn") == []
    assert run_resource(POLICY, TC_VPN, TC_GOOD, name="vpn") == []


def test_aws_defaults_fail_on_both_tunnels() -> None:
    messages = run_resource(POLICY, AWS_VPN, {"customerGatewayId": "cgw-1", "type": "ipsec.1"}, name="vpn")
    assert messages == [
        f"VPN connection 'vpn' tunnel{n} accepts weak IPsec settings: "
        f"tunnel{n}IkeVersions unset (AWS default includes ikev1); "
        f"tunnel{n}Phase1EncryptionAlgorithms unset (AWS default includes AES128); "
        f"tunnel{n}Phase1IntegrityAlgorithms unset (AWS default includes SHA1); "
        f"tunnel{n}Phase1DhGroupNumbers unset (AWS default includes group 2); "
        f"tunnel{n}Phase2EncryptionAlgorithms unset (AWS default includes AES128); "
        f"tunnel{n}Phase2IntegrityAlgorithms unset (AWS default includes SHA1); "
        f"tunnel{n}Phase2DhGroupNumbers unset (AWS default includes group 2); {EXPECTED}"
        for n in (1, 2)
    ]


def test_aws_one_weak_value_each() -> None:
    for prop, value, shown in [
        ("tunnel2IkeVersions", ["ikev1", "ikev2"], "tunnel2IkeVersions allows ikev1"),
        (
            "tunnel2Phase1EncryptionAlgorithms",
            ["AES256", "AES128"],
            "tunnel2Phase1EncryptionAlgorithms allows AES128",
        ),
        ("tunnel2Phase2IntegrityAlgorithms", ["SHA1"], "tunnel2Phase2IntegrityAlgorithms allows SHA1"),
        ("tunnel2Phase1DhGroupNumbers", [14, 2], "tunnel2Phase1DhGroupNumbers allows group 2"),
        ("tunnel2Phase2DhGroupNumbers", [14, 24.0], "tunnel2Phase2DhGroupNumbers allows group 24"),
    ]:
        props = {**aws_good(), prop: value}
        assert run_resource(POLICY, AWS_VPN, props, name="vpn") == [
            f"VPN connection 'vpn' tunnel2 accepts weak IPsec settings: {shown}; {EXPECTED}"
        ]


def test_alibaba_defaults_fail() -> None:
    props = {k: v for k, v in ALI_GOOD.items() if k not in ("ikeConfig", "ipsecConfig")}
    assert run_resource(POLICY, ALI_VPN, props, name="vpn") == [
        "VPN connection 'vpn' accepts weak IPsec settings: ikeVersion unset (default ikev1); "
        "ikeEncAlg unset (default aes); ikeAuthAlg unset (default md5); ikePfs unset (default group2); "
        "ipsecEncAlg unset (default aes); ipsecAuthAlg unset (default md5); "
        f"ipsecPfs unset (default group2); {EXPECTED}"
    ]


def test_alibaba_single_weak_values() -> None:
    for ike, ipsec, shown in [
        ({"ikeVersion": "ikev1"}, {}, "ikeVersion is ikev1"),
        ({"ikeEncAlg": "aes192"}, {}, "ikeEncAlg is aes192"),
        ({"ikeAuthAlg": "sha1"}, {}, "ikeAuthAlg is sha1"),
        ({"ikePfs": "group5"}, {}, "ikePfs is group5"),
        ({}, {"ipsecPfs": "disabled"}, "ipsecPfs is disabled"),
        ({}, {"ipsecAuthAlg": "md5"}, "ipsecAuthAlg is md5"),
    ]:
        props = {**ALI_GOOD, "ikeConfig": {**ALI_IKE, **ike}, "ipsecConfig": {**ALI_IPSEC, **ipsec}}
        assert run_resource(POLICY, ALI_VPN, props, name="vpn") == [
            f"VPN connection 'vpn' accepts weak IPsec settings: {shown}; {EXPECTED}"
        ]


def test_alibaba_dual_tunnel_mode_judges_each_tunnel() -> None:
    good = {"tunnelIkeConfig": ALI_IKE, "tunnelIpsecConfig": ALI_IPSEC}
    weak = {"tunnelIkeConfig": {**ALI_IKE, "ikeVersion": "ikev1"}, "tunnelIpsecConfig": ALI_IPSEC}
    props = {
        "vpnGatewayId": "vpn-1",
        "localSubnets": ["10.20.0.0/16"],
        "remoteSubnets": ["10.0.0.0/16"],
        "tunnelOptionsSpecifications": [good, weak],
    }
    assert run_resource(POLICY, ALI_VPN, props, name="vpn") == [
        f"VPN connection 'vpn' tunnel 2 accepts weak IPsec settings: ikeVersion is ikev1; {EXPECTED}"
    ]
    attachment = {
        "localSubnet": "10.20.0.0/16",
        "remoteSubnet": "10.0.0.0/16",
        "tunnelOptionsSpecifications": [good, good],
    }
    assert run_resource(POLICY, ALI_ATTACH, attachment, name="att") == []


def test_alibaba_attachment_single_tunnel() -> None:
    props = {
        "localSubnet": "10.20.0.0/16",
        "remoteSubnet": "10.0.0.0/16",
        "ikeConfig": ALI_IKE,
        "ipsecConfig": {**ALI_IPSEC, "ipsecEncAlg": "3des"},
    }
    assert run_resource(POLICY, ALI_ATTACH, props, name="att") == [
        f"VPN connection 'att' accepts weak IPsec settings: ipsecEncAlg is 3des; {EXPECTED}"
    ]


def test_tencent_defaults_and_weak_values() -> None:
    assert run_resource(POLICY, TC_VPN, {"vpnGatewayId": "v", "customerGatewayId": "c"}, name="vpn") == [
        "VPN connection 'vpn' accepts weak IPsec settings: ikeVersion unset (default IKEV1); "
        "ikeProtoEncryAlgorithm unset (default 3DES-CBC); ikeProtoAuthenAlgorithm unset (default MD5); "
        "ikeDhGroupName unset (default GROUP1); ipsecEncryptAlgorithm unset (default 3DES-CBC); "
        "ipsecIntegrityAlgorithm unset (default MD5); ipsecPfsDhGroup unset (default NULL, no PFS); "
        f"{EXPECTED}"
    ]
    for change, shown in [
        ({"ikeDhGroupName": "GROUP24"}, "ikeDhGroupName is GROUP24"),
        ({"ipsecPfsDhGroup": "NULL"}, "ipsecPfsDhGroup is NULL"),
        ({"ikeProtoEncryAlgorithm": "AES-CBC-128"}, "ikeProtoEncryAlgorithm is AES-CBC-128"),
        ({"ipsecIntegrityAlgorithm": "SHA1"}, "ipsecIntegrityAlgorithm is SHA1"),
    ]:
        assert run_resource(POLICY, TC_VPN, {**TC_GOOD, **change}, name="vpn") == [
            f"VPN connection 'vpn' accepts weak IPsec settings: {shown}; {EXPECTED}"
        ]


def test_unknown_algorithm_is_not_a_pass() -> None:
    props = {**TC_GOOD, "ikeVersion": UNKNOWN_STRING_VALUE}
    assert run_resource(POLICY, TC_VPN, props, name="vpn") == [
        "could not be judged at preview: the string value at .ikeVersion can't be known during preview"
    ]


def test_proxied_props() -> None:
    assert run_resource(POLICY, AWS_VPN, aws_good(), name="vpn", proxy=True) == []
    props = {**ALI_GOOD, "ikeConfig": {**ALI_IKE, "ikePfs": UNKNOWN_STRING_VALUE}}
    assert run_resource(POLICY, ALI_VPN, props, name="vpn", proxy=True) == [
        "could not be judged at preview: the string value at .ikeConfig.ikePfs can't be known during preview"
    ]


def test_other_types_ignored() -> None:
    assert run_resource(POLICY, "aws:ec2/vpc:Vpc", {"cidrBlock": "10.0.0.0/16"}) == []
