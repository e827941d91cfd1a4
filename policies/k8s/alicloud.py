"""Alibaba Cloud facts of the Kubernetes rules: ACK node pools and Alibaba Cloud credentials.

- GF-K8S-001 (`gpu_taint_toleration`): an ACK `alicloud:cs/nodePool:NodePool` is a GPU pool by its
  `instanceTypes`; `taints[]` {key, value, effect: NoSchedule}.
- GF-K8S-005 (`no_plain_cloud_credentials`): the Alibaba Cloud credential variables and AccessKey ids
  (`LTAI` + 12-20 characters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.props import as_list, get

# --- GF-K8S-001: GPU taints ------------------------------------------------------------------------------

NODE_POOLS = ("alicloud:cs/nodePool:NodePool",)
TAINT_REMEDIATION = (
    "ACK alicloud.cs.NodePool taints=[{key:'nvidia.com/gpu', value:'present', effect:'NoSchedule'}]"
)


def gpu_node_pool(
    resource_type: str, props: Mapping[str, Any], template_types: Callable[[], list[str]]
) -> bool:
    """Whether an ACK node pool runs GPU nodes."""
    return any(is_gpu_type("alicloud", t) for t in as_list(get(props, "instanceTypes")))


# --- GF-K8S-005: plain credentials ------------------------------------------------------------------

CREDENTIAL_NAMES = r"ALICLOUD_ACCESS_KEY\w*|ALICLOUD_SECRET_KEY|ALIBABA_CLOUD_ACCESS_KEY_(ID|SECRET)"
ACCESS_KEY_VALUES = r"LTAI[0-9A-Za-z]{12,20}"
