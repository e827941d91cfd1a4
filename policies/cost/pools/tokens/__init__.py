"""The type tokens of everything a pool is or is shaped by (from the installed SDKs), one module a
cloud: ``tokens/<cloud key>.py`` holds that cloud's tokens and pool facts (``POOL_KINDS``,
``POOL_TYPES``, ``SCALABLE_TYPES``, ``CLUSTER_SCALED_TYPES``, optionally ``BARE_FAMILY``). This
module holds their unions over the registered clouds.

A cloud's token constants (``AWS_ASG``, ``ALI_INSTANCE``, ``TC_NODE_POOL``, ...) are imported from the
cloud's own module.
"""

from __future__ import annotations

from gpufleet.components.clouds import cloud_parts, part_merged, part_union

PARTS = cloud_parts(__name__)

POOL_TYPES = part_union(PARTS, "POOL_TYPES")
SCALABLE_TYPES = part_union(PARTS, "SCALABLE_TYPES")
# Pools sized from inside a Kubernetes cluster (cluster-autoscaler, Karpenter, the ACK/TKE node
# autoscalers): no cloud scaling policy acts on them.
CLUSTER_SCALED_TYPES = part_union(PARTS, "CLUSTER_SCALED_TYPES")
# How a finding names each kind of pool, over every cloud.
POOL_KINDS: dict[str, str] = part_merged(PARTS, "POOL_KINDS")
