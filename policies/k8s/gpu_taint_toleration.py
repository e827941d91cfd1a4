"""GF-K8S-001: GPU nodes are tainted `nvidia.com/gpu=present:NoSchedule`; GPU workloads tolerate the
taint and set `nvidia.com/gpu` in their limits.

GPU node pools (judged where they are declared, since Node objects are rarely managed by Pulumi):
- EKS `aws:eks/nodeGroup:NodeGroup`: GPU `instanceTypes` or a GPU `amiType` (`AL2_x86_64_GPU`,
  `AL2023_x86_64_NVIDIA`, `BOTTLEROCKET_*_NVIDIA`); `taints[]` {key, value, effect: NO_SCHEDULE}.
- ACK `alicloud:cs/nodePool:NodePool`: GPU `instanceTypes`; `taints[]` {key, value, effect: NoSchedule}.
- TKE `tencentcloud:Kubernetes/nodePool:NodePool` (`autoScalingConfig.instanceType`) and
  `tencentcloud:Kubernetes/nativeNodePool:NativeNodePool` (`native.instanceTypes`); `taints[]`.
A node group whose GPU type comes only from a launch template is not recognised here.

Workloads (see `policies.k8s.workloads`): every container, init container or ephemeral container that
asks for `nvidia.com/gpu` sets it in `resources.limits` (extended resources are allocated from
limits), and the pod tolerates the taint (`key: nvidia.com/gpu` with `operator: Exists` or
`value: present`, effect NoSchedule or any; or a key-less `operator: Exists`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.k8s.workloads import GPU_RESOURCE, display, gpu_containers, gpu_quantity, pod_spec
from policies.network.gpu_types import is_gpu_ami_type, is_gpu_instance_type
from policies.props import as_list, get
from policies.rule import GfResourcePolicy, Rule

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ACK_NODE_POOL = "alicloud:cs/nodePool:NodePool"
TKE_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"
TKE_NATIVE_NODE_POOL = "tencentcloud:Kubernetes/nativeNodePool:NativeNodePool"

TAINT_KEY = GPU_RESOURCE
TAINT_VALUE = "present"
TAINT = "nvidia.com/gpu=present:NoSchedule"

RULE = Rule(
    id="GF-K8S-001",
    name="gpu-taint-and-toleration",
    description=(
        "GPU nodes are tainted nvidia.com/gpu=present:NoSchedule; GPU workloads tolerate it and set "
        "nvidia.com/gpu limits."
    ),
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Node pools: EKS aws.eks.NodeGroup taints=[{key:'nvidia.com/gpu', value:'present', "
        "effect:'NO_SCHEDULE'}]; ACK alicloud.cs.NodePool taints=[{key:'nvidia.com/gpu', value:'present', "
        "effect:'NoSchedule'}]; TKE tencentcloud.kubernetes.NodePool taints=[{key:'nvidia.com/gpu', "
        "value:'present', effect:'NoSchedule'}]. Workloads: set resources.limits['nvidia.com/gpu'] on each "
        "GPU container and add tolerations=[{key:'nvidia.com/gpu', operator:'Exists', effect:'NoSchedule'}] "
        "to the pod spec."
    ),
    url="https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/",
)


def _gpu_pool_types(resource_type: str, props: Mapping[str, Any]) -> bool:
    if resource_type == EKS_NODE_GROUP:
        if is_gpu_ami_type(get(props, "amiType")):
            return True
        return any(is_gpu_instance_type("aws", t) for t in as_list(get(props, "instanceTypes")))
    if resource_type == ACK_NODE_POOL:
        return any(is_gpu_instance_type("alicloud", t) for t in as_list(get(props, "instanceTypes")))
    if resource_type == TKE_NODE_POOL:
        types = [
            get(props, "autoScalingConfig.instanceType"),
            *as_list(get(props, "autoScalingConfig.backupInstanceTypes")),
        ]
        return any(is_gpu_instance_type("tencentcloud", t) for t in types)
    if resource_type == TKE_NATIVE_NODE_POOL:
        return any(
            is_gpu_instance_type("tencentcloud", t) for t in as_list(get(props, "native.instanceTypes"))
        )
    return False


def _has_gpu_taint(resource_type: str, props: Mapping[str, Any]) -> bool:
    effect = "NO_SCHEDULE" if resource_type == EKS_NODE_GROUP else "NoSchedule"
    return any(
        get(t, "key") == TAINT_KEY and get(t, "value") == TAINT_VALUE and get(t, "effect") == effect
        for t in as_list(get(props, "taints"))
    )


def _tolerates(spec: Mapping[str, Any] | None) -> bool:
    for toleration in as_list(get(spec, "tolerations") if spec is not None else None):
        key = get(toleration, "key")
        operator = get(toleration, "operator") or "Equal"
        effect = get(toleration, "effect")
        if effect not in (None, "", "NoSchedule"):
            continue
        if key in (None, "") and operator == "Exists":
            return True
        if key == TAINT_KEY and (operator == "Exists" or get(toleration, "value") == TAINT_VALUE):
            return True
    return False


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind = args.resource_type
    props = args.props
    if kind in (EKS_NODE_GROUP, ACK_NODE_POOL, TKE_NODE_POOL, TKE_NATIVE_NODE_POOL):
        if _gpu_pool_types(kind, props) and not _has_gpu_taint(kind, props):
            effect = "NO_SCHEDULE" if kind == EKS_NODE_GROUP else "NoSchedule"
            report(
                f"GPU node pool '{args.name}' is not tainted {TAINT}; add taint key nvidia.com/gpu, "
                f"value present, effect {effect}, so only GPU workloads land on it",
                None,
            )
        return
    gpu = gpu_containers(kind, props)
    if not gpu:
        return
    what = display(kind, args.name)
    for role, container in gpu:
        if gpu_quantity(container, "limits") is None:
            report(
                f"{what} {role} '{get(container, 'name')}' requests {GPU_RESOURCE} without a limit; "
                f"set resources.limits['{GPU_RESOURCE}']",
                None,
            )
    if not _tolerates(pod_spec(kind, props)):
        report(
            f"{what} uses {GPU_RESOURCE} but does not tolerate the {TAINT} taint; add a toleration "
            "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate)
