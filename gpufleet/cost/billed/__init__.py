"""The type tokens the cost estimate reads beside the pools, declared per cloud.

Each registered cloud (``components/clouds.py``) declares its :class:`BilledTypes` as ``BILLED`` in the
module named by its key (``gpufleet/cost/billed/<key>.py``); :data:`BILLED` maps key to them, in the
registry's order. The tokens are those of the installed SDKs.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gpufleet.components.clouds import CLOUDS, Cloud


@dataclass(frozen=True)
class BilledTypes:
    """One cloud's resources that bill by the hour or by size beside the GPU pools, and the scaling
    schedules that bound a pool's hours.

    ``nat_gateways`` and ``vpn_connections`` bill by the hour. ``dedicated_interfaces``: the virtual
    interfaces a dedicated link builds on an existing line, with the input naming that line (its port
    hours bill on the connection, outside the stack). ``volumes``: standalone disks, with the input
    giving their size in GiB. ``schedules``: scheduled scaling actions with a cron ``recurrence``.
    ``vpc_endpoints``: VPC endpoints, of which the interface ones bill per zone and hour.
    """

    nat_gateways: tuple[str, ...] = ()
    vpn_connections: tuple[str, ...] = ()
    dedicated_interfaces: Mapping[str, str] = field(default_factory=dict)
    volumes: Mapping[str, str] = field(default_factory=dict)
    schedules: tuple[str, ...] = ()
    vpc_endpoints: tuple[str, ...] = ()


def _declared(key: str) -> BilledTypes:
    found: BilledTypes = importlib.import_module(f"{__name__}.{key}").BILLED
    return found


BILLED: Mapping[Cloud, BilledTypes] = MappingProxyType({key: _declared(key) for key in CLOUDS})

__all__ = ["BILLED", "BilledTypes"]
