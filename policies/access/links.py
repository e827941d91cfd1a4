"""A reference from one resource to a template-like resource, as the compute index joins them
(`gpufleet.policies.access.compute`); each cloud's access facts declare theirs with it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Link:
    """A reference from one resource to a template-like resource."""

    paths: tuple[str, ...]
    prop_key: str
    targets: tuple[str, ...]
