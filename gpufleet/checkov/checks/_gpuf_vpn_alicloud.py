"""What GF-NET-001 accepts for an Alibaba Cloud VPN connection (CKV_GPUF_10, compared lower-case);
_gpuf_vpn.py serves them as ALI_IKE_VERSIONS, ALI_ENCRYPTION and ALI_INTEGRITY."""

from __future__ import annotations

PREFIX = "ALI"
IKE_VERSIONS = frozenset({"ikev2"})
ENCRYPTION = frozenset({"aes256"})
INTEGRITY = frozenset({"sha2", "sha256", "sha384", "sha512"})
