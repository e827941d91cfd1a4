"""Launch and fit guardrails (GF-FIT-001..006): what makes a launch fail or a job not fit, said before
deploy: vCPU quotas, subnet addresses, image architecture, GPU memory, the network of distributed work
and the hourly price ceiling per instance."""

from gpufleet.policies.fit import (
    distributed_network,
    gpu_quota,
    image_arch,
    instance_ceiling,
    memory_fit,
    subnet_capacity,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    gpu_quota.POLICY,
    subnet_capacity.POLICY,
    image_arch.POLICY,
    memory_fit.POLICY,
    distributed_network.POLICY,
    instance_ceiling.POLICY,
]
