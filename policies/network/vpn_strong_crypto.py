"""GF-NET-001: site-to-site VPN tunnels use IKEv2 with AES-256, SHA-256 or better and DH group >= 14.

Diffie-Hellman groups follow RFC 8247 section 2.4: 14-21 are accepted; 1, 2 and 5 are too small and
22, 23 and 24 (MODP groups with small prime-order subgroups) "SHOULD NOT" be used, so they fail too.

- AWS `aws:ec2/vpnConnection:VpnConnection`, per tunnel (1 and 2): `tunnelNIkeVersions`,
  `tunnelNPhase{1,2}EncryptionAlgorithms`, `tunnelNPhase{1,2}IntegrityAlgorithms`,
  `tunnelNPhase{1,2}DhGroupNumbers`. An unset list means AWS offers all of its defaults, which include
  ikev1, AES128, SHA1 and DH group 2: that fails.
- Alibaba Cloud `alicloud:vpn/connection:Connection` and `alicloud:vpn/gatewayVpnAttachment:
  GatewayVpnAttachment`: `ikeConfig` {ikeVersion, ikeEncAlg, ikeAuthAlg, ikePfs} and `ipsecConfig`
  {ipsecEncAlg, ipsecAuthAlg, ipsecPfs}, or in dual-tunnel mode each
  `tunnelOptionsSpecifications[].tunnelIkeConfig` / `tunnelIpsecConfig`. Unset fields take the API
  defaults (ikev1, aes, md5, group2), which fail.
- Tencent Cloud `tencentcloud:Vpn/connection:Connection`: `ikeVersion`, `ikeProtoEncryAlgorithm`,
  `ikeProtoAuthenAlgorithm`, `ikeDhGroupName`, `ipsecEncryptAlgorithm`, `ipsecIntegrityAlgorithm`,
  `ipsecPfsDhGroup`. Unset fields take the API defaults (IKEV1, MD5, GROUP1, 3DES-CBC, no PFS), which fail.

Kubernetes has no VPN resource: the rule does not apply to it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.props import as_list, excerpt, get
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

AWS_VPN = "aws:ec2/vpnConnection:VpnConnection"
ALI_VPN = "alicloud:vpn/connection:Connection"
ALI_VPN_ATTACHMENT = "alicloud:vpn/gatewayVpnAttachment:GatewayVpnAttachment"
TC_VPN = "tencentcloud:Vpn/connection:Connection"

STRONG_DH_GROUPS = frozenset(range(14, 22))

AWS_ENCRYPTION = frozenset({"AES256", "AES256-GCM-16"})
AWS_INTEGRITY = frozenset({"SHA2-256", "SHA2-384", "SHA2-512"})
ALI_ENCRYPTION = frozenset({"aes256"})
ALI_INTEGRITY = frozenset({"sha2", "sha256", "sha384", "sha512"})
TC_ENCRYPTION = frozenset({"AES-CBC-256", "AES256GCM128"})
TC_INTEGRITY = frozenset({"SHA-256", "SHA-384", "SHA-512"})

EXPECTED = "use IKEv2 only, AES-256, SHA-256 or stronger, and DH groups 14-21"

RULE = Rule(
    id="GF-NET-001",
    name="vpn-ikev2-strong-ciphers",
    description=(
        "Site-to-site VPN tunnels use IKEv2 with strong ciphers (AES-256, SHA-256 or better, DH group 14 "
        "or higher)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "AWS aws.ec2.VpnConnection, for tunnel1 and tunnel2: tunnelN_ike_versions=['ikev2'], "
        "tunnelN_phase{1,2}_encryption_algorithms=['AES256-GCM-16','AES256'], "
        "tunnelN_phase{1,2}_integrity_algorithms=['SHA2-256','SHA2-384','SHA2-512'], "
        "tunnelN_phase{1,2}_dh_group_numbers=[14,19,20,21]. Alibaba Cloud alicloud.vpn.Connection: "
        "ike_config(ike_version='ikev2', ike_enc_alg='aes256', ike_auth_alg='sha256', ike_pfs='group14'), "
        "ipsec_config(ipsec_enc_alg='aes256', ipsec_auth_alg='sha256', ipsec_pfs='group14') (and the same in "
        "each tunnel_options_specifications entry). Tencent Cloud tencentcloud.vpn.Connection: "
        "ike_version='IKEV2', ike_proto_encry_algorithm='AES-CBC-256', ike_proto_authen_algorithm='SHA-256', "
        "ike_dh_group_name='GROUP14', ipsec_encrypt_algorithm='AES-CBC-256', "
        "ipsec_integrity_algorithm='SHA-256', ipsec_pfs_dh_group='DH-GROUP14'."
    ),
    url="https://docs.aws.amazon.com/vpn/latest/s2svpn/VPNTunnels.html",
    checkov=("CKV_GPUF_9", "CKV_GPUF_10", "CKV_GPUF_11"),
)


def _group_number(value: Any) -> int | None:
    """The DH group number in `14`, `group14`, `DH-GROUP14`; None when there is none (or it is absurd)."""
    match = re.search(r"\d+", value if isinstance(value, str) else excerpt(value))
    return int(match.group()) if match and len(match.group()) <= 6 else None


def _weak_dh(values: list[Any]) -> list[str]:
    return [
        str(_group_number(v) if _group_number(v) is not None else v)
        for v in values
        if _group_number(v) not in STRONG_DH_GROUPS
    ]


def _aws_tunnel(props: Mapping[str, Any], tunnel: int) -> list[str]:
    prefix = f"tunnel{tunnel}"
    weak: list[str] = []
    versions = [str(v).lower() for v in as_list(get(props, f"{prefix}IkeVersions"))]
    if not versions:
        weak.append(f"{prefix}IkeVersions unset (AWS default includes ikev1)")
    elif set(versions) != {"ikev2"}:
        weak.append(f"{prefix}IkeVersions allows {', '.join(v for v in versions if v != 'ikev2')}")
    for phase in (1, 2):
        for what, allowed, default in (
            ("EncryptionAlgorithms", AWS_ENCRYPTION, "AES128"),
            ("IntegrityAlgorithms", AWS_INTEGRITY, "SHA1"),
        ):
            prop = f"{prefix}Phase{phase}{what}"
            values = [str(v) for v in as_list(get(props, prop))]
            if not values:
                weak.append(f"{prop} unset (AWS default includes {default})")
                continue
            bad = [v for v in values if v.upper() not in allowed]
            if bad:
                weak.append(f"{prop} allows {', '.join(bad)}")
        prop = f"{prefix}Phase{phase}DhGroupNumbers"
        groups = as_list(get(props, prop))
        if not groups:
            weak.append(f"{prop} unset (AWS default includes group 2)")
        elif bad_groups := _weak_dh(groups):
            weak.append(f"{prop} allows group {', '.join(bad_groups)}")
    return weak


def _check_value(
    weak: list[str], config: Any, prop: str, allowed: frozenset[str], default: str, *, upper: bool = False
) -> None:
    value = get(config, prop) if config is not None else None
    if value is None or value == "":
        weak.append(f"{prop} unset (default {default})")
        return
    text = str(value).upper() if upper else str(value).lower()
    if text not in allowed:
        weak.append(f"{prop} is {value}")


def _check_dh(weak: list[str], config: Any, prop: str, default: str) -> None:
    value = get(config, prop) if config is not None else None
    if value is None or value == "":
        weak.append(f"{prop} unset (default {default})")
    elif _group_number(value) not in STRONG_DH_GROUPS:
        weak.append(f"{prop} is {value}")


def _ali_phases(ike: Any, ipsec: Any) -> list[str]:
    weak: list[str] = []
    _check_value(weak, ike, "ikeVersion", frozenset({"ikev2"}), "ikev1")
    _check_value(weak, ike, "ikeEncAlg", ALI_ENCRYPTION, "aes")
    _check_value(weak, ike, "ikeAuthAlg", ALI_INTEGRITY, "md5")
    _check_dh(weak, ike, "ikePfs", "group2")
    _check_value(weak, ipsec, "ipsecEncAlg", ALI_ENCRYPTION, "aes")
    _check_value(weak, ipsec, "ipsecAuthAlg", ALI_INTEGRITY, "md5")
    _check_dh(weak, ipsec, "ipsecPfs", "group2")
    return weak


def _tencent(props: Mapping[str, Any]) -> list[str]:
    weak: list[str] = []
    _check_value(weak, props, "ikeVersion", frozenset({"IKEV2"}), "IKEV1", upper=True)
    _check_value(weak, props, "ikeProtoEncryAlgorithm", TC_ENCRYPTION, "3DES-CBC", upper=True)
    _check_value(weak, props, "ikeProtoAuthenAlgorithm", TC_INTEGRITY, "MD5", upper=True)
    _check_dh(weak, props, "ikeDhGroupName", "GROUP1")
    _check_value(weak, props, "ipsecEncryptAlgorithm", TC_ENCRYPTION, "3DES-CBC", upper=True)
    _check_value(weak, props, "ipsecIntegrityAlgorithm", TC_INTEGRITY, "MD5", upper=True)
    _check_dh(weak, props, "ipsecPfsDhGroup", "NULL, no PFS")
    return weak


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    props = args.props
    findings: list[tuple[str, list[str]]] = []
    if args.resource_type == AWS_VPN:
        findings = [(f"tunnel{n}", _aws_tunnel(props, n)) for n in (1, 2)]
    elif args.resource_type in (ALI_VPN, ALI_VPN_ATTACHMENT):
        tunnels = as_list(get(props, "tunnelOptionsSpecifications"))
        if tunnels:
            findings = [
                (
                    f"tunnel {index + 1}",
                    _ali_phases(get(tunnel, "tunnelIkeConfig"), get(tunnel, "tunnelIpsecConfig")),
                )
                for index, tunnel in enumerate(tunnels)
            ]
        else:
            findings = [("", _ali_phases(get(props, "ikeConfig"), get(props, "ipsecConfig")))]
    elif args.resource_type == TC_VPN:
        findings = [("", _tencent(props))]
    else:
        return
    for tunnel, weak in findings:
        if weak:
            where = f" {tunnel}" if tunnel else ""
            report(
                f"VPN connection '{args.name}'{where} accepts weak IPsec settings: {'; '.join(weak)}; "
                f"{EXPECTED}",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(AWS_VPN, ALI_VPN, ALI_VPN_ATTACHMENT, TC_VPN))
