"""k8s policies."""

from gpufleet.policies.k8s import (
    gpu_namespace_quota,
    gpu_priority_disruption,
    gpu_taint_toleration,
    no_plain_cloud_credentials,
    pod_host_isolation,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    gpu_taint_toleration.POLICY,
    gpu_namespace_quota.POLICY,
    pod_host_isolation.POLICY,
    gpu_priority_disruption.POLICY,
    no_plain_cloud_credentials.POLICY,
]
