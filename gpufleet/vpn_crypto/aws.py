"""The AWS site-to-site VPN connection's algorithms (pulumi-aws ``ec2.VpnConnection``): each tunnel is
set on its own."""

from __future__ import annotations

from gpufleet.vpn_crypto import VpnCrypto

_TUNNEL1 = (
    ("ike", "tunnel1IkeVersions"),
    ("enc", "tunnel1Phase1EncryptionAlgorithms"),
    ("integrity", "tunnel1Phase1IntegrityAlgorithms"),
    ("dh", "tunnel1Phase1DhGroupNumbers"),
    ("pfs", "tunnel1Phase2DhGroupNumbers"),
)

VPN = VpnCrypto(
    token="aws:ec2/vpnConnection:VpnConnection",
    paths=_TUNNEL1,
    second_tunnel=tuple(path.replace("tunnel1", "tunnel2") for _, path in _TUNNEL1),
)
