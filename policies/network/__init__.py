"""network policies."""

from gpufleet.policies.network import (
    gpu_subnet_internet_route,
    onprem_egress,
    range_overlap,
    vpn_strong_crypto,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    vpn_strong_crypto.POLICY,
    range_overlap.POLICY,
    gpu_subnet_internet_route.POLICY,
    onprem_egress.POLICY,
]
