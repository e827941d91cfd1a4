"""Pools a cloud builds as several groups, joined back into the one pool the spec names.

A cloud whose scaling group cannot mix spot and on-demand capacity (Tencent AS) splits a pool with a
spot share into groups carrying one ``gpufleet:pool`` tag; its token module lists those group types
(``JOINED_BY_TAG``) and how a finding names the joined pool (``JOINED_LABEL``). :func:`joined_pools`
joins them for the rules that judge a pool's share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.tokens import PARTS
from gpufleet.policies.props import get_ref, is_unknown

# Each joined group type -> how a finding names the joined pool: (pool noun, member noun) of its cloud.
_LABELS: dict[str, tuple[str, str]] = {
    token: part.JOINED_LABEL for part in PARTS.values() for token in getattr(part, "JOINED_BY_TAG", ())
}
JOINED_BY_TAG = frozenset(_LABELS)


POOL_TAG = "gpufleet:pool"


@dataclasses.dataclass(frozen=True)
class JoinedPool:
    """A pool as the spec names it: ``pool`` stands for ``members`` (one pool, or the groups of one
    pool a cloud splits, e.g. a Tencent pool's all-spot and on-demand AS groups); ``tag`` is their
    ``gpufleet:pool`` tag when they were joined."""

    pool: Pool
    members: tuple[Pool, ...]
    tag: str | None = None

    def describe(self) -> str:
        if self.tag is None:
            return f"{self.pool.kind} '{self.pool.name}'"
        names = " and ".join(f"'{m.name}'" for m in self.members)
        pool_noun, member_noun = _LABELS[self.pool.resource_type]
        return f"{pool_noun} '{self.tag}' ({member_noun} {names})"


def joined_pools(pools: Sequence[Pool], resources: Sequence[Any]) -> list[JoinedPool]:
    """``pools`` with the groups of a type a cloud splits one pool into (its ``JOINED_BY_TAG``: Tencent
    AS groups) that share that type, a ``gpufleet:pool`` tag, region and environment joined into one
    pool: its sizes are the groups' sums and its spot share the spot capacity's share of their summed
    maximum (a group's maximum times its own share). Every other pool stands alone, in
    order; a joined pool takes the place of its first group."""
    tags: dict[str, str] = {}
    for resource in resources:
        if resource.resource_type not in JOINED_BY_TAG:
            continue
        group_tags = get_ref(resource.props, "tags")
        tag = group_tags.get(POOL_TAG) if isinstance(group_tags, Mapping) else None
        if isinstance(tag, str) and tag and not is_unknown(tag):
            tags[resource.urn] = tag
    groups: dict[tuple[str, str, str | None, str | None], list[Pool]] = {}
    for pool in pools:
        if pool.resource_type in JOINED_BY_TAG and pool.urn in tags:
            groups.setdefault((pool.resource_type, tags[pool.urn], pool.region, pool.env), []).append(pool)
    joined: list[JoinedPool] = []
    for pool in pools:
        key = (pool.resource_type, tags.get(pool.urn, ""), pool.region, pool.env)
        members = groups.get(key) if pool.urn in tags else None
        if not members or len(members) == 1:
            joined.append(JoinedPool(pool, (pool,)))
        elif pool is members[0]:
            joined.append(JoinedPool(_join(members), tuple(members), key[1]))
    return joined


def _join(members: Sequence[Pool]) -> Pool:
    unknown: dict[str, tuple[str, str]] = {}
    for member in members:
        for field in ("spot_percent", "max_size", "min_size"):
            if field in member.unknown:
                unknown.setdefault(field, member.unknown[field])
    maxima = [m.max_size for m in members]
    shares = [m.spot_percent for m in members]
    spot: float | None = None
    if all(x is not None for x in maxima) and all(s is not None for s in shares):
        total = sum(x for x in maxima if x is not None)
        spot_capacity = sum((x or 0) * (s or 0.0) for x, s in zip(maxima, shares, strict=True))
        # No capacity at all (every maximum 0): the groups' own shares, evenly.
        spot = spot_capacity / total if total else sum(s or 0.0 for s in shares) / len(shares)
    elif "spot_percent" not in unknown:
        unknown["spot_percent"] = next(
            (m.unknown["max_size"] for m in members if "max_size" in m.unknown),
            ("maxSize", "unknown"),
        )
    minima = [m.min_size for m in members]
    return dataclasses.replace(
        members[0],
        spot_percent=spot,
        min_size=sum(x for x in minima if x is not None) if None not in minima else None,
        max_size=sum(x for x in maxima if x is not None) if None not in maxima else None,
        unknown=unknown,
    )
