"""What GF-NET-001 accepts for an Alibaba Cloud VPN connection (CKV_GPUF_10, compared lower-case);
its check (AlicloudVpnConnectionStrongCrypto.py) imports them by file name, as it imports _gpuf_vpn.py."""

from __future__ import annotations

IKE_VERSIONS = frozenset({"ikev2"})
ENCRYPTION = frozenset({"aes256"})
INTEGRITY = frozenset({"sha2", "sha256", "sha384", "sha512"})
