"""The Tencent Cloud VPN connection's algorithms (tencentcloud-iac-pulumi ``Vpn.Connection``)."""

from __future__ import annotations

from gpufleet.vpn_crypto import VpnCrypto

VPN = VpnCrypto(
    token="tencentcloud:Vpn/connection:Connection",
    paths=(
        ("ike", "ikeVersion"),
        ("enc", "ikeProtoEncryAlgorithm"),
        ("integrity", "ikeProtoAuthenAlgorithm"),
        ("dh", "ikeDhGroupName"),
        ("pfs", "ipsecPfsDhGroup"),
    ),
)
