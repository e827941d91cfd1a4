"""What GF-NET-001 accepts for a Tencent Cloud VPN connection (CKV_GPUF_11, compared upper-case);
its check (TencentVpnConnectionStrongCrypto.py) imports them by file name, as it imports _gpuf_vpn.py."""

from __future__ import annotations

IKE_VERSIONS = frozenset({"IKEV2"})
ENCRYPTION = frozenset({"AES-CBC-256", "AES256GCM128"})
INTEGRITY = frozenset({"SHA-256", "SHA-384", "SHA-512"})
