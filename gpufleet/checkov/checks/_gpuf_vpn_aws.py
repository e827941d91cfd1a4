"""What GF-NET-001 accepts for an AWS site-to-site VPN connection (CKV_GPUF_9, compared upper-case);
its check (AwsVpnConnectionStrongCrypto.py) imports them by file name, as it imports _gpuf_vpn.py."""

from __future__ import annotations

IKE_VERSIONS = frozenset({"IKEV2"})
ENCRYPTION = frozenset({"AES256", "AES256-GCM-16"})
INTEGRITY = frozenset({"SHA2-256", "SHA2-384", "SHA2-512"})
