"""IPsec checks shared by the clouds' VPN facts (GF-NET-001, `vpn_strong_crypto`): DH group numbers and
the one-value-per-field check of the clouds whose VPN resources name one algorithm per phase.

Diffie-Hellman groups follow RFC 8247 section 2.4: 14-21 are accepted; 1, 2 and 5 are too small and
22, 23 and 24 (MODP groups with small prime-order subgroups) "SHOULD NOT" be used, so they fail too.
"""

from __future__ import annotations

import re
from typing import Any

from gpufleet.policies.props import excerpt, get

STRONG_DH_GROUPS = frozenset(range(14, 22))


def group_number(value: Any) -> int | None:
    """The DH group number in `14`, `group14`, `DH-GROUP14`; None when there is none (or it is absurd)."""
    match = re.search(r"\d+", value if isinstance(value, str) else excerpt(value))
    return int(match.group()) if match and len(match.group()) <= 6 else None


def weak_dh(values: list[Any]) -> list[str]:
    """The groups among `values` that are not strong, as written (their number when they have one)."""
    return [
        str(group_number(v) if group_number(v) is not None else v)
        for v in values
        if group_number(v) not in STRONG_DH_GROUPS
    ]


def check_value(
    weak: list[str], config: Any, prop: str, allowed: frozenset[str], default: str, *, upper: bool = False
) -> None:
    """Adds to `weak` why `prop` of `config` is not one of `allowed` (unset: the API's `default`)."""
    value = get(config, prop) if config is not None else None
    if value is None or value == "":
        weak.append(f"{prop} unset (default {default})")
        return
    text = str(value).upper() if upper else str(value).lower()
    if text not in allowed:
        weak.append(f"{prop} is {value}")


def check_dh(weak: list[str], config: Any, prop: str, default: str) -> None:
    """Adds to `weak` why the DH group `prop` of `config` is not strong (unset: the API's `default`)."""
    value = get(config, prop) if config is not None else None
    if value is None or value == "":
        weak.append(f"{prop} unset (default {default})")
    elif group_number(value) not in STRONG_DH_GROUPS:
        weak.append(f"{prop} is {value}")
