"""Tencent Cloud facts of the Kubernetes rules: TKE node pools and Tencent Cloud credentials.

- GF-K8S-001 (`gpu_taint_toleration`): a TKE `tencentcloud:Kubernetes/nodePool:NodePool` is a GPU pool
  by `autoScalingConfig.instanceType` (and its backup types), a
  `tencentcloud:Kubernetes/nativeNodePool:NativeNodePool` by `native.instanceTypes`; `taints[]`.
- GF-K8S-005 (`no_plain_cloud_credentials`): the Tencent Cloud credential variables and SecretIds
  (`AKID` + 32 characters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.props import as_list, get

TKE_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"
TKE_NATIVE_NODE_POOL = "tencentcloud:Kubernetes/nativeNodePool:NativeNodePool"

# --- GF-K8S-001: GPU taints ------------------------------------------------------------------------------

NODE_POOLS = (TKE_NODE_POOL, TKE_NATIVE_NODE_POOL)
TAINT_REMEDIATION = (
    "TKE tencentcloud.kubernetes.NodePool taints=[{key:'nvidia.com/gpu', "
    "value:'present', effect:'NoSchedule'}]"
)


def gpu_node_pool(
    resource_type: str, props: Mapping[str, Any], template_types: Callable[[], list[str]]
) -> bool:
    """Whether a TKE node pool or native node pool runs GPU nodes."""
    if resource_type == TKE_NODE_POOL:
        types = [
            get(props, "autoScalingConfig.instanceType"),
            *as_list(get(props, "autoScalingConfig.backupInstanceTypes")),
        ]
        return any(is_gpu_type("tencentcloud", t) for t in types)
    return any(is_gpu_type("tencentcloud", t) for t in as_list(get(props, "native.instanceTypes")))


# --- GF-K8S-005: plain credentials ------------------------------------------------------------------

CREDENTIAL_NAMES = r"TENCENTCLOUD_SECRET_(ID|KEY)"
ACCESS_KEY_VALUES = r"AKID[0-9A-Za-z]{32}"
