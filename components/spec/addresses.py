"""The fleet's address plan: every range the fleet routes between, each with its owner.

A hybrid fleet joins the on-prem cluster (its node, pod, service and data ranges, owned `onprem nodes`,
`onprem pods`, `onprem services`, `onprem data`) to one VPC per cloud and
region over private links, so no two of those ranges may overlap: a route to one would swallow the
other. This module is pure (no Pulumi, no spec models): :func:`overlaps` takes named ranges and returns
every overlapping pair, :func:`carve` assigns site ranges from a supernet, skipping ranges already taken.
The spec (``FleetSpec``) runs :func:`overlaps` on construction, so a spec that parses has a clean plan.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpufleet.components.clouds import ACCOUNT_CLOUD

if TYPE_CHECKING:
    from gpufleet.components.spec.onprem import OnPrem
    from gpufleet.components.spec.settings import Network

IPv4Network = ipaddress.IPv4Network


class AddressError(ValueError):
    """The address plan cannot be made: the message names the supernet and what did not fit."""


@dataclass(frozen=True, order=True)
class OwnedRange:
    """One range and who owns it: ``onprem:pods``, ``aws:us-east-1``, ``alicloud:cn-hangzhou``...
    ``field`` is where the spec gives it (``onprem.pod_cidrs[1]``), for error messages."""

    network: IPv4Network
    owner: str
    field: str = ""


@dataclass(frozen=True)
class Overlap:
    """Two ranges of different entries that share addresses."""

    range_a: IPv4Network
    owner_a: str
    range_b: IPv4Network
    owner_b: str
    field_a: str = ""
    field_b: str = ""

    def message(self) -> str:
        return (
            f"{self.range_a} ({self.owner_a}) overlaps {self.range_b} ({self.owner_b}); every on-prem and "
            "site range must be disjoint, since the links route between them"
        )

    def swapped(self) -> Overlap:
        return Overlap(self.range_b, self.owner_b, self.range_a, self.owner_a, self.field_b, self.field_a)


def overlaps(ranges: Iterable[OwnedRange]) -> list[Overlap]:
    """Every pair of entries whose ranges share an address, in the order the entries were given (the
    earlier entry is ``a``). Two entries with the same owner are compared too: an owner that lists the
    same addresses twice (a pod range inside its node range) is as wrong as two owners sharing them.
    Ranges are swept in address order, so a plan of thousands of ranges costs n log n plus the overlaps.
    """
    entries = list(ranges)
    order = sorted(range(len(entries)), key=lambda i: (int(entries[i].network.network_address), i))
    found: list[tuple[int, int]] = []
    active: list[int] = []  # entries whose range may still contain later starts
    for index in order:
        start = int(entries[index].network.network_address)
        active = [i for i in active if int(entries[i].network.broadcast_address) >= start]
        found.extend((min(i, index), max(i, index)) for i in active)
        active.append(index)
    result = []
    for first, second in sorted(found):
        a, b = entries[first], entries[second]
        result.append(Overlap(a.network, a.owner, b.network, b.owner, a.field, b.field))
    return result


def carve(
    supernet: IPv4Network,
    names: Sequence[str],
    *,
    prefixlen: int = 16,
    taken: Iterable[IPv4Network] = (),
    given: Mapping[str, IPv4Network] | None = None,
) -> dict[str, IPv4Network]:
    """A range of ``prefixlen`` for each name, in order, from the start of ``supernet``: each the first
    free block that overlaps none of ``taken`` (the on-prem ranges) and none assigned before it. Names
    in ``given`` keep their range (it counts as taken). Raises :class:`AddressError` when the supernet
    runs out, or when ``prefixlen`` is shorter than the supernet's own."""
    if prefixlen < supernet.prefixlen or prefixlen > 28:
        raise AddressError(
            f"cannot carve /{prefixlen} ranges from {supernet}: the size must be between "
            f"/{supernet.prefixlen} and /28"
        )
    fixed = dict(given or {})
    blocked = sorted({*taken, *fixed.values()}, key=lambda n: int(n.network_address))
    result: dict[str, IPv4Network] = {}
    candidates = supernet.subnets(new_prefix=prefixlen)
    for name in names:
        if name in fixed:
            result[name] = fixed[name]
            continue
        for candidate in candidates:
            if not any(candidate.overlaps(b) for b in blocked):
                result[name] = candidate
                break
        else:
            carved = sum(1 for n in result if n not in fixed)
            wanted = sum(1 for n in names if n not in fixed)
            raise AddressError(
                f"{supernet} has room for only {carved} /{prefixlen} range(s) outside the on-prem and "
                f"given ranges; {wanted} site(s) need one: give a larger supernet or smaller ranges"
            )
    return result


def site_owner(key: str) -> str:
    """``network.regions`` keys name a region of the stack's cloud (AWS) or a ``cloud:region``."""
    return key if ":" in key else f"{ACCOUNT_CLOUD}:{key}"


def site_ranges(network: Network, *, home: bool = True) -> list[OwnedRange]:
    """The sites' VPC ranges as the spec gives them: the AWS home VPC (when AWS has pools, said by
    ``home``, and unless the fleet runs in existing subnets, whose range the spec does not know) and each
    ``network.regions`` entry."""
    found = []
    if home and not network.subnet_ids:
        found.append(OwnedRange(network.vpc_cidr, f"{ACCOUNT_CLOUD} home region", "network.vpc_cidr"))
    for key, entry in network.regions.items():
        found.append(OwnedRange(entry.vpc_cidr, site_owner(key), f"network.regions.{key}.vpc_cidr"))
    return found


def fleet_overlaps(onprem: OnPrem | None, network: Network, *, home: bool = True) -> list[Overlap]:
    """Every site range that overlaps an on-prem range, the site first (its range is the one to move).
    Site ranges among themselves are the network section's own check, on-prem ranges among themselves
    the on-prem section's."""
    if onprem is None:
        return []
    sites = site_ranges(network, home=home)
    return [
        o
        for o in overlaps([*sites, *onprem.owned_ranges()])
        if o.field_a in {s.field for s in sites} and not o.field_b.startswith("network.")
    ]
