"""Where each cloud's VPN connection keeps its IPsec algorithms, declared per cloud.

Each registered cloud (``components/clouds.py``) declares its :class:`VpnCrypto` as ``VPN`` in the
module named by its key (``gpufleet/vpn_crypto/<key>.py``); :data:`VPN_CRYPTO` maps each connection's
type token to its paths, in the registry's order.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from gpufleet.components.clouds import CLOUDS


@dataclass(frozen=True)
class VpnCrypto:
    """One cloud's VPN connection: its type token and where its algorithms sit, as (label, input path)
    in wire names (labels ``ike``, ``enc``, ``integrity``, ``dh``, ``pfs``). ``second_tunnel``: the
    same paths for a second tunnel the cloud sets on its own (empty when one setting covers both)."""

    token: str
    paths: Sequence[tuple[str, str]]
    second_tunnel: Sequence[str] = ()


def _declared(key: str) -> VpnCrypto:
    found: VpnCrypto = importlib.import_module(f"{__name__}.{key}").VPN
    return found


VPN_BY_CLOUD: Mapping[str, VpnCrypto] = MappingProxyType({key: _declared(key) for key in CLOUDS})
BY_TOKEN: Mapping[str, VpnCrypto] = MappingProxyType({vpn.token: vpn for vpn in VPN_BY_CLOUD.values()})
VPN_CRYPTO: Mapping[str, Sequence[tuple[str, str]]] = MappingProxyType(
    {vpn.token: vpn.paths for vpn in VPN_BY_CLOUD.values()}
)

__all__ = ["BY_TOKEN", "VPN_BY_CLOUD", "VPN_CRYPTO", "VpnCrypto"]
