"""What GF-NET-001 accepts for an AWS site-to-site VPN connection (CKV_GPUF_9, compared upper-case);
_gpuf_vpn.py serves them as AWS_IKE_VERSIONS, AWS_ENCRYPTION and AWS_INTEGRITY."""

from __future__ import annotations

PREFIX = "AWS"
IKE_VERSIONS = frozenset({"IKEV2"})
ENCRYPTION = frozenset({"AES256", "AES256-GCM-16"})
INTEGRITY = frozenset({"SHA2-256", "SHA2-384", "SHA2-512"})
