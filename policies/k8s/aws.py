"""AWS facts of the Kubernetes rules: EKS node groups and Karpenter's AWS provider, and AWS credentials.

- GF-K8S-001 (`gpu_taint_toleration`): an EKS `aws:eks/nodeGroup:NodeGroup` is a GPU pool by its
  `instanceTypes`, a GPU `amiType`, or the instance type of the launch template it names
  (`aws:ec2/launchTemplate:LaunchTemplate`); its taint effect is spelled `NO_SCHEDULE`. A Karpenter
  NodePool selects GPUs by the AWS provider's labels (`karpenter.k8s.aws/instance-gpu-*`, GPU instance
  types, families or the `g`/`p` categories).
- GF-K8S-005 (`no_plain_cloud_credentials`): the AWS credential variables and access key ids
  (`AKIA`/`ASIA` + 16 characters).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpufleet.policies.gpu import is_gpu_ami_type, is_gpu_type
from gpufleet.policies.props import as_list, get, get_ref

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"

# --- GF-K8S-001: GPU taints ------------------------------------------------------------------------------

NODE_POOLS = (EKS_NODE_GROUP,)
# node pool type -> its taint effect, where not `NoSchedule`
TAINT_EFFECTS = {EKS_NODE_GROUP: "NO_SCHEDULE"}
# what a node pool's `launchTemplate` names
NODE_POOL_TEMPLATES = ("aws:ec2/launchTemplate:LaunchTemplate",)
TAINT_REMEDIATION = (
    "EKS aws.eks.NodeGroup taints=[{key:'nvidia.com/gpu', value:'present', effect:'NO_SCHEDULE'}]"
)

_KARPENTER_GPU_KEYS = (
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-memory",
)
_KARPENTER_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
_GPU_CATEGORIES = frozenset({"g", "p"})


def gpu_node_pool(
    resource_type: str, props: Mapping[str, Any], template_types: Callable[[], list[str]]
) -> bool:
    """Whether an EKS node group runs GPU nodes (`template_types`: its launch templates' types)."""
    if is_gpu_ami_type(get(props, "amiType")):
        return True
    types = as_list(get(props, "instanceTypes"))
    if not types and get_ref(props, "launchTemplate") is not None:
        types = template_types()
    return any(is_gpu_type("aws", t) for t in types)


def karpenter_selects_gpus(key: Any, operator: Any, values: list[str]) -> bool:
    """Whether one Karpenter requirement (operator In, Exists or Gt) selects GPU instances."""
    if key in _KARPENTER_GPU_KEYS:
        return not (key == "karpenter.k8s.aws/instance-gpu-count" and operator == "In" and values == ["0"])
    if key in _KARPENTER_TYPE_KEYS and any(is_gpu_type("aws", v) for v in values):
        return True
    if key == "karpenter.k8s.aws/instance-family" and any(is_gpu_type("aws", f"{v}.xlarge") for v in values):
        return True
    return key == "karpenter.k8s.aws/instance-category" and bool(_GPU_CATEGORIES & set(values))


# --- GF-K8S-005: plain credentials ------------------------------------------------------------------

CREDENTIAL_NAMES = r"AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN"
ACCESS_KEY_VALUES = r"(AKIA|ASIA)[0-9A-Z]{16}"
