"""What GF-NET-001 accepts for a Tencent Cloud VPN connection (CKV_GPUF_11, compared upper-case);
_gpuf_vpn.py serves them as TC_IKE_VERSIONS, TC_ENCRYPTION and TC_INTEGRITY."""

from __future__ import annotations

PREFIX = "TC"
IKE_VERSIONS = frozenset({"IKEV2"})
ENCRYPTION = frozenset({"AES-CBC-256", "AES256GCM128"})
INTEGRITY = frozenset({"SHA-256", "SHA-384", "SHA-512"})
