"""The type tokens of everything a pool is or is shaped by (from the installed SDKs), one module a
cloud: ``tokens/<cloud key>.py`` holds that cloud's tokens and pool facts (``POOL_KINDS``,
``POOL_TYPES``, ``SCALABLE_TYPES``, ``CLUSTER_SCALED_TYPES``, optionally ``BARE_FAMILY``). This
module holds their unions over the registered clouds.

A cloud's token constants (``AWS_ASG``, ``ALI_INSTANCE``, ``TC_NODE_POOL``, ...) stay importable from
here and from :mod:`gpufleet.policies.cost.pools` for existing callers; new code imports them from the
cloud's own module.
"""

from __future__ import annotations

from typing import Any

from gpufleet.components.clouds import cloud_parts, part_merged, part_union

PARTS = cloud_parts(__name__)

POOL_TYPES = part_union(PARTS, "POOL_TYPES")
SCALABLE_TYPES = part_union(PARTS, "SCALABLE_TYPES")
# Pools sized from inside a Kubernetes cluster (cluster-autoscaler, Karpenter, the ACK/TKE node
# autoscalers): no cloud scaling policy acts on them.
CLUSTER_SCALED_TYPES = part_union(PARTS, "CLUSTER_SCALED_TYPES")
# How a finding names each kind of pool, over every cloud.
POOL_KINDS: dict[str, str] = part_merged(PARTS, "POOL_KINDS")


def cloud_token(name: str) -> Any:
    """The constant ``name`` of the one cloud module that defines it; AttributeError when none does and
    ValueError when several do (a name must say which cloud's fact it is)."""
    owners = [module for module in PARTS.values() if name.isupper() and hasattr(module, name)]
    if len(owners) > 1:
        raise ValueError(f"{name} is defined by several clouds' token modules")
    if not owners:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(owners[0], name)


def __getattr__(name: str) -> Any:
    return cloud_token(name)
