"""The Alibaba Cloud VPN connection's algorithms (pulumi-alicloud ``vpn.Connection``)."""

from __future__ import annotations

from gpufleet.vpn_crypto import VpnCrypto

VPN = VpnCrypto(
    token="alicloud:vpn/connection:Connection",
    paths=(
        ("ike", "ikeConfig.ikeVersion"),
        ("enc", "ikeConfig.ikeEncAlg"),
        ("integrity", "ikeConfig.ikeAuthAlg"),
        ("dh", "ikeConfig.ikePfs"),
        ("pfs", "ipsecConfig.ipsecPfs"),
    ),
)
