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

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_of, part_union, profile
from gpufleet.policies.network._ipsec import STRONG_DH_GROUPS
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import sole

# Each cloud's VPN facts: `VPN_TYPES`, its accepted algorithm tables (`*_ENCRYPTION`, `*_INTEGRITY`: the
# checkov checks' copies are compared with them there), `VPN_REMEDIATION`, `vpn_findings`.
PARTS = {
    key: part for key, part in cloud_parts("gpufleet.policies.network").items() if hasattr(part, "VPN_TYPES")
}
VPN_TYPES = part_union(PARTS, "VPN_TYPES")

EXPECTED = "use IKEv2 only, AES-256, SHA-256 or stronger, and DH groups 14-21"

RULE = Rule(
    id="GF-NET-001",
    name="vpn-ikev2-strong-ciphers",
    description=(
        "Site-to-site VPN tunnels use IKEv2 with strong ciphers (AES-256, SHA-256 or better, DH group 14 "
        "or higher)."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=" ".join(f"{profile(key).name} {part.VPN_REMEDIATION}" for key, part in PARTS.items()),
    url=sole(PARTS, "VPN_URL"),
    checkov=("CKV_GPUF_9", "CKV_GPUF_10", "CKV_GPUF_11"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    part = part_of(PARTS, args.resource_type)
    if part is None or args.resource_type not in part.VPN_TYPES:
        return
    findings: list[tuple[str, list[str]]] = part.vpn_findings(args.resource_type, args.props)
    for tunnel, weak in findings:
        if weak:
            where = f" {tunnel}" if tunnel else ""
            report(
                f"VPN connection '{args.name}'{where} accepts weak IPsec settings: {'; '.join(weak)}; "
                f"{EXPECTED}",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(VPN_TYPES))

__all__ = ["EXPECTED", "POLICY", "RULE", "STRONG_DH_GROUPS", "VPN_TYPES", "validate"]
