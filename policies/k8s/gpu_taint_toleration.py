"""GF-K8S-001: GPU nodes are tainted `nvidia.com/gpu=present:NoSchedule`; GPU workloads tolerate the
taint and set `nvidia.com/gpu` in their limits.

GPU node pools (judged where they are declared, since Node objects are rarely managed by Pulumi):
- EKS `aws:eks/nodeGroup:NodeGroup`: GPU `instanceTypes` or a GPU `amiType` (`AL2_x86_64_GPU`,
  `AL2023_x86_64_NVIDIA`, `BOTTLEROCKET_*_NVIDIA`); `taints[]` {key, value, effect: NO_SCHEDULE}.
- ACK `alicloud:cs/nodePool:NodePool`: GPU `instanceTypes`; `taints[]` {key, value, effect: NoSchedule}.
- TKE `tencentcloud:Kubernetes/nodePool:NodePool` (`autoScalingConfig.instanceType`) and
  `tencentcloud:Kubernetes/nativeNodePool:NativeNodePool` (`native.instanceTypes`); `taints[]`.
- Karpenter `kubernetes:karpenter.sh/v1:NodePool` (and `v1beta1`), written as a CustomResource: a GPU
  pool when its `spec.template.spec.requirements` select GPUs (`karpenter.k8s.aws/instance-gpu-*`,
  GPU instance types, families or the `g`/`p` categories with operator In/Exists/Gt) or its
  `spec.limits` cap `nvidia.com/gpu`; `spec.template.spec.taints[]` {key, value, effect: NoSchedule}
  (startupTaints are removed once a node is ready, so they do not count).
An EKS node group without `instanceTypes` takes its type from its launch template
(`launchTemplate {id|name, version}` -> `aws:ec2/launchTemplate:LaunchTemplate.instanceType`): the rule
is a stack policy so that it can follow that reference. A launch template that is not in the stack
cannot be read, so such a node group is judged by its `amiType` alone.

Workloads (every pod template of `policies.k8s.templates`: built-in workloads, Kubeflow replicas, Ray
groups, Volcano tasks, JobSet jobs, Argo templates): every container, init container or ephemeral
container that asks for a GPU resource (`nvidia.com/gpu`, `nvidia.com/gpu.shared`, MIG
`nvidia.com/mig-*`, `amd.com/gpu`) sets that resource in `resources.limits` (extended resources are
allocated from limits), and each pod template asking for an NVIDIA resource tolerates the taint
(`key: nvidia.com/gpu` with `operator: Exists` or `value: present`, effect NoSchedule or any; or a
key-less `operator: Exists`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_values
from gpufleet.policies.cost.pools import ResourceIndex
from gpufleet.policies.k8s.workloads import (
    AMD_GPU_RESOURCE,
    GPU_RESOURCE,
    display,
    gpu_quantity,
    gpu_resources,
    pod_templates,
    template_containers,
)
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import chained, joined

# Each cloud's node pools: `NODE_POOLS`, `gpu_node_pool`, `TAINT_REMEDIATION`, and where the cloud has
# them `TAINT_EFFECTS`, `NODE_POOL_TEMPLATES` and `karpenter_selects_gpus` (its Karpenter provider's labels).
PARTS = {
    key: part for key, part in cloud_parts("gpufleet.policies.k8s").items() if hasattr(part, "NODE_POOLS")
}
NODE_POOLS = chained(PARTS, "NODE_POOLS")
_TAINT_EFFECTS: dict[str, str] = part_merged(PARTS, "TAINT_EFFECTS")
KARPENTER_NODE_POOLS = ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.sh/v1beta1:NodePool")

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
        f"Node pools: {joined(PARTS, 'TAINT_REMEDIATION', '; ')}. "
        "Workloads: set resources.limits['nvidia.com/gpu'] on each "
        "GPU container and add tolerations=[{key:'nvidia.com/gpu', operator:'Exists', effect:'NoSchedule'}] "
        "to the pod spec."
    ),
    url="https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/",
)


def _gpu_pool_types(
    resource_type: str, props: Mapping[str, Any], template_types: Callable[[], list[str]] = list
) -> bool:
    if resource_type in KARPENTER_NODE_POOLS:
        return _karpenter_selects_gpus(props)
    part = part_of(PARTS, resource_type)
    if part is None or resource_type not in part.NODE_POOLS:
        return False
    return bool(part.gpu_node_pool(resource_type, props, template_types))


def _karpenter_selects_gpus(props: Mapping[str, Any]) -> bool:
    limits = get(props, "spec.limits")
    if isinstance(limits, Mapping) and GPU_RESOURCE in limits:
        return True
    selects = list(part_values(PARTS, "karpenter_selects_gpus").values())
    for requirement in as_list(get(props, "spec.template.spec.requirements")):
        key = get(requirement, "key")
        operator = get(requirement, "operator")
        if operator not in ("In", "Exists", "Gt"):
            continue
        values = [v for v in as_list(get(requirement, "values")) if isinstance(v, str)]
        if any(select(key, operator, values) for select in selects):
            return True
    return False


def _taint_effect(resource_type: str) -> str:
    """How the node pool type spells the NoSchedule effect."""
    return _TAINT_EFFECTS.get(resource_type, "NoSchedule")


def _has_gpu_taint(resource_type: str, props: Mapping[str, Any]) -> bool:
    effect = _taint_effect(resource_type)
    path = "spec.template.spec.taints" if resource_type in KARPENTER_NODE_POOLS else "taints"
    return any(
        get(t, "key") == TAINT_KEY and get(t, "value") == TAINT_VALUE and get(t, "effect") == effect
        for t in as_list(get(props, path))
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


def _launch_template_types(index: ResourceIndex, node_group: PolicyResource) -> list[str]:
    """The instance types of the launch templates (in the stack) a node group names (EKS)."""
    targets = tuple(getattr(part_of(PARTS, node_group.resource_type), "NODE_POOL_TEMPLATES", ()))
    view = index.by_urn[node_group.urn]
    spec = get_ref(view.props, "launchTemplate")
    templates: dict[str, Any] = {}
    for key in ("id", "name"):
        value = get_ref(spec, key) if isinstance(spec, Mapping) else None
        # "" joins by property dependencies only, for a reference whose value is unknown or absent.
        wanted = value if isinstance(value, str) and not is_unknown(value) else ""
        for template in index.refs(view, "launchTemplate", targets, value=wanted):
            templates[template.urn] = template
    types = []
    for template in templates.values():
        instance_type = get_ref(template.props, "instanceType")
        if is_unknown(instance_type):
            raise UnknownValueError(instance_type, [f"{template.name}.instanceType"])
        if isinstance(instance_type, str) and instance_type:
            types.append(instance_type)
    return types


def _judge(resource: PolicyResource, index: Callable[[], ResourceIndex], report: ReportViolation) -> None:
    kind, props, name, urn = resource.resource_type, resource.props, resource.name, resource.urn
    if kind in (*NODE_POOLS, *KARPENTER_NODE_POOLS):

        def template_types() -> list[str]:
            return _launch_template_types(index(), resource)

        if _gpu_pool_types(kind, props, template_types) and not _has_gpu_taint(kind, props):
            effect = _taint_effect(kind)
            where = " (spec.template.spec.taints)" if kind in KARPENTER_NODE_POOLS else ""
            report(
                f"GPU node pool '{name}'{where} is not tainted {TAINT}; add taint key nvidia.com/gpu, "
                f"value present, effect {effect}, so only GPU workloads land on it",
                urn,
            )
        return
    what = display(kind, name, props)
    for template in pod_templates(kind, props):
        requested: list[str] = []
        for role, container in template_containers(template):
            for gpu in gpu_resources(container):
                if gpu not in requested:
                    requested.append(gpu)
                if gpu_quantity(container, "limits", gpu) is None:
                    report(
                        f"{what} {role} '{get(container, 'name')}' requests {gpu} without a limit; "
                        f"set resources.limits['{gpu}']",
                        urn,
                    )
        nvidia = [r for r in requested if r.lower() != AMD_GPU_RESOURCE]
        if nvidia and not _tolerates(template.spec):
            where = f" ({template.where})" if template.where else ""
            report(
                f"{what}{where} uses {', '.join(nvidia)} but does not tolerate the {TAINT} taint; add a "
                "toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
                urn,
            )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    built: list[ResourceIndex] = []

    def index() -> ResourceIndex:
        # Built on first use: only a node group that names a launch template needs the joins.
        if not built:
            built.append(per_stack(ResourceIndex, args.resources))
        return built[0]

    for resource in args.resources:

        def check(resource: PolicyResource = resource) -> None:
            _judge(resource, index, report)

        judge(resource.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(NODE_POOLS, KARPENTER_NODE_POOLS, prefixes=("kubernetes:",)),
)
