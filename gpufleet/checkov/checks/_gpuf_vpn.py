"""What GF-NET-001 accepts for site-to-site VPN crypto, for the CKV_GPUF_9..11 checks. checkov runs in its own
environment, where the policy pack (and pulumi) cannot be imported: these tables repeat
policies/network/vpn_strong_crypto.py and the clouds' modules beside it, and tests/checkov/test_vpn_checks.py
keeps them equal. Each cloud's tables (IKE_VERSIONS, ENCRYPTION, INTEGRITY) are in `_gpuf_vpn_<cloud>.py`
beside this file, which that cloud's check imports by file name as it imports this one.

Diffie-Hellman groups follow RFC 8247 section 2.4: 14-21 are accepted; 1, 2 and 5 are too small and 22, 23
and 24 (MODP groups with small prime-order subgroups) fail too. An unset setting takes the cloud's default,
which is weak on every cloud (ikev1, AES128/3DES, SHA1/MD5, DH group 1 or 2): it fails.
"""

from __future__ import annotations

import re
from typing import Any

from _gpuf_values import blocks

STRONG_DH_GROUPS = frozenset(range(14, 22))


def values(conf: dict[str, Any] | None, key: str) -> list[Any]:
    """Every scalar of the attribute, however deeply checkov wrapped it in lists; [] when unset."""
    if not conf:
        return []
    out: list[Any] = []
    pending = [conf.get(key)]
    while pending:
        item = pending.pop(0)
        if isinstance(item, list):
            pending = list(item) + pending
        elif item is not None and item != "":
            out.append(item)
    return out


def group_number(value: Any) -> int | None:
    """The DH group number in `14`, `14.0`, `group14`, `DH-GROUP14`; None when there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value) if float(value).is_integer() else None
    match = re.search(r"\d+", str(value))
    return int(match.group()) if match and len(match.group()) <= 6 else None


def all_in(conf: dict[str, Any] | None, key: str, allowed: frozenset[str], *, upper: bool) -> bool:
    """The attribute is set and every value is one of `allowed` (compared upper- or lower-case)."""
    found = values(conf, key)
    if not found:
        return False
    return all((str(v).upper() if upper else str(v).lower()) in allowed for v in found)


def strong_dh(conf: dict[str, Any] | None, key: str) -> bool:
    """The attribute is set and every group is one of 14-21."""
    found = values(conf, key)
    return bool(found) and all(group_number(v) in STRONG_DH_GROUPS for v in found)


def block(conf: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    """The one nested block (`ike_config`), or None when it is absent."""
    found = blocks(conf, key) if conf else []
    return found[0] if found else None
