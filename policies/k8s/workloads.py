"""Pod specs inside Kubernetes workload resources, as the engine sends them (camelCase wire names).

Which resources run pods, and where their pod templates sit (built-in workloads, Kubeflow, Ray, Volcano,
JobSet, LeaderWorkerSet and Argo custom resources), is `policies.k8s.templates`. GPU work is a
container that asks for a GPU extended resource by any of its names: `nvidia.com/gpu`, the shared or
time-sliced `nvidia.com/gpu.shared` (any `nvidia.com/gpu.<suffix>`), MIG slices `nvidia.com/mig-<profile>`
(`nvidia.com/mig-1g.5gb`, ...) and `amd.com/gpu`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import ResourceValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.k8s.templates import PodTemplate, api_of, pod_templates, runs_pods
from gpufleet.policies.props import Malformed, get, get_objects, get_ref, is_unknown, json_kind, raw

GPU_RESOURCE = "nvidia.com/gpu"
AMD_GPU_RESOURCE = "amd.com/gpu"

CONTAINER_LISTS = (
    ("containers", "container"),
    ("initContainers", "init container"),
    ("ephemeralContainers", "ephemeral container"),
)

__all__ = [
    "AMD_GPU_RESOURCE",
    "CONTAINER_LISTS",
    "GPU_RESOURCE",
    "PodTemplate",
    "containers",
    "display",
    "gpu_containers",
    "gpu_quantity",
    "gpu_resources",
    "is_gpu_resource",
    "is_workload",
    "item",
    "kind_of",
    "namespace_of",
    "pod_labels",
    "pod_spec",
    "pod_templates",
    "template_containers",
    "uses_gpu",
    "workload_pod_spec",
    "workload_templates",
]


def kind_of(resource_type: str, props: Mapping[str, Any] | None = None) -> str | None:
    """`kubernetes:apps/v1:DeploymentPatch` -> `Deployment`; None for non-Kubernetes types. A generic
    `kubernetes:apiextensions.k8s.io:CustomResource` takes its kind from `props` when given."""
    api = api_of(resource_type, props)
    return api[1] if api is not None else None


def is_workload(resource_type: str, props: Mapping[str, Any] | None = None) -> bool:
    return runs_pods(resource_type, props)


def pod_spec(resource_type: str, props: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first pod template's spec (a built-in workload has exactly one), or None."""
    templates = pod_templates(resource_type, props)
    return templates[0].spec if templates else None


def workload_templates(args: ResourceValidationArgs) -> list[PodTemplate]:
    """The pod templates the resource declares; a workload without any (a patch of other fields) is not
    applicable rather than compliant."""
    templates = pod_templates(args.resource_type, args.props)
    if not templates and is_workload(args.resource_type, args.props):
        args.not_applicable("the resource sets no pod template (a patch of other fields)")
    return templates


def workload_pod_spec(args: ResourceValidationArgs) -> Mapping[str, Any] | None:
    templates = workload_templates(args)
    return templates[0].spec if templates else None


def pod_labels(resource_type: str, props: Mapping[str, Any]) -> dict[str, Any]:
    templates = pod_templates(resource_type, props)
    return dict(templates[0].labels) if templates else {}


def containers(spec: Mapping[str, Any] | None, where: str = "") -> list[tuple[str, Mapping[str, Any]]]:
    """(role, container) for every container, init container and ephemeral container; `where` is the
    pod spec's path, for the message when a container list is malformed."""
    if spec is None:
        return []
    found = []
    for prop, role in CONTAINER_LISTS:
        try:
            listed = get_objects(spec, prop)
        except Malformed as error:
            raise error.within(f".{where}" if where else "") from None
        for container in listed:
            if is_unknown(container):
                raise UnknownValueError(container, [where, prop] if where else [prop])
            found.append((role, container))
    return found


def template_containers(template: PodTemplate) -> list[tuple[str, Mapping[str, Any]]]:
    """(role, container) of one template, the role naming the template inside a custom resource
    ("replica Worker container")."""
    prefix = f"{template.where} " if template.where else ""
    return [(prefix + role, c) for role, c in containers(template.spec, template.path)]


def item(mapping: Any, key: str) -> Any:
    """`mapping[key]` for keys that contain dots (`nvidia.com/gpu`); an unknown value raises."""
    if not isinstance(mapping, Mapping) or key not in mapping:
        return None
    value = mapping[key]
    if is_unknown(value):
        raise UnknownValueError(value, [key])
    return value


def is_gpu_resource(name: Any) -> bool:
    """A GPU extended resource name: nvidia.com/gpu, nvidia.com/gpu.<shared|...>, nvidia.com/mig-*,
    amd.com/gpu."""
    if not isinstance(name, str):
        return False
    lowered = name.lower()
    return (
        lowered in (GPU_RESOURCE, AMD_GPU_RESOURCE)
        or lowered.startswith(GPU_RESOURCE + ".")
        or lowered.startswith("nvidia.com/mig-")
    )


def gpu_quantity(container: Mapping[str, Any], section: str, resource: str = GPU_RESOURCE) -> Any:
    """The container's `resources.<limits|requests>[resource]`, or None."""
    return item(get(container, f"resources.{section}"), resource)


def _positive(quantity: Any) -> bool:
    try:
        return float(str(quantity)) > 0
    except ValueError:
        return quantity is not None


def gpu_resources(container: Mapping[str, Any]) -> list[str]:
    """The GPU resource names the container asks for (limits or requests, a positive quantity)."""
    names: list[str] = []
    for section in ("limits", "requests"):
        block = get(container, f"resources.{section}")
        if not isinstance(block, Mapping):
            continue
        for name in list(block):
            if is_gpu_resource(name) and name not in names and _positive(item(block, name)):
                names.append(name)
    return names


def uses_gpu(container: Mapping[str, Any]) -> bool:
    return bool(gpu_resources(container))


def gpu_containers(resource_type: str, props: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(role, container) for every container of every pod template that asks for a GPU."""
    return [
        (role, c)
        for template in pod_templates(resource_type, props)
        for role, c in template_containers(template)
        if uses_gpu(c)
    ]


def namespace_of(props: Mapping[str, Any]) -> str:
    """metadata.namespace (an unknown sentinel returned as-is), "default" when unset; a namespace that
    is not a string (an object, a number) is `Malformed`."""
    metadata = get_ref(props, "metadata")
    if not isinstance(metadata, Mapping):
        return "default"
    value = raw(metadata, "namespace")
    if value is None or value == "":
        return "default"
    if not isinstance(value, str):
        raise Malformed(f".metadata.namespace is {json_kind(value)}, not a name", value)
    return value


def display(resource_type: str, name: str, props: Mapping[str, Any] | None = None) -> str:
    return f"{kind_of(resource_type, props) or resource_type} '{name}'"
