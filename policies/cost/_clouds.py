"""The clouds the cost rules cover, and how the rules put each cloud's facts into one text.

Each cloud's facts for the GF-COST rules (type tokens, the remediation and description fragments
that name its services, its reference URL, its few cloud-only checks) live in the module named after
the cloud beside this one (``policies/cost/aws.py``, ``alicloud.py``, ``tencentcloud.py``);
:data:`PARTS` maps each registered cloud that has one to it, in the registry's order. Rules whose
per-cloud facts are larger are packages with their own cloud modules (``pool_bucket_region``,
``stack_budget``, ``volume_current_type``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from gpufleet.components.clouds import Cloud, cloud_parts, part_values
from gpufleet.policies import rule_facts

PARTS = cloud_parts("gpufleet.policies.cost")


# A rule's one reference page, which one cloud's module gives.
sole = rule_facts.sole


def and_list(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    found = list(items)
    return ", ".join(found[:-1]) + (" and " if len(found) > 1 else "") + (found[-1] if found else "")


def ranked(parts: Mapping[Cloud, ModuleType], attribute: str) -> list[str]:
    """The clouds' ``attribute`` fragments, each a ``(rank, text)`` pair, merged in rank order: a text
    that lists several clouds' fields in one sentence keeps its order while each cloud holds its own."""
    owners: dict[Any, list[str]] = {}
    pairs = []
    for cloud, fragments in part_values(parts, attribute).items():
        for rank, text in fragments:
            owners.setdefault(rank, []).append(parts[cloud].__name__)
            pairs.append((rank, text))
    shared = {rank: names for rank, names in owners.items() if len(names) > 1}
    if shared:
        listed = "; ".join(f"rank {rank!r} in {', '.join(names)}" for rank, names in sorted(shared.items()))
        raise ValueError(f"{attribute}: each fragment needs its own rank, but {listed}")
    return [text for _, text in sorted(pairs)]
