"""Pod specs inside Kubernetes workload resources, as the engine sends them (camelCase wire names).

Workloads are recognised by kind in any API group and version, including the server-side-apply
`...Patch` variants: Pod (`spec`), PodTemplate (`template.spec`), Deployment, StatefulSet, DaemonSet,
ReplicaSet, ReplicationController, Job (`spec.template.spec`) and CronJob
(`spec.jobTemplate.spec.template.spec`). Manifests applied through `yaml.ConfigFile`, `yaml.ConfigGroup`
or `helm.v3.Chart`/`helm.v4.Chart` are rendered by the provider plugin and are invisible to a policy
run under mocks: only workloads declared as resources are judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import ResourceValidationArgs
from pulumi_policy.proxy import UnknownValueError

from policies.props import Malformed, get, get_map, get_objects, get_ref, is_unknown, json_kind, raw

GPU_RESOURCE = "nvidia.com/gpu"

_TEMPLATE_PATHS = {
    "Pod": ("spec", "metadata"),
    "PodTemplate": ("template.spec", "template.metadata"),
    "Deployment": ("spec.template.spec", "spec.template.metadata"),
    "StatefulSet": ("spec.template.spec", "spec.template.metadata"),
    "DaemonSet": ("spec.template.spec", "spec.template.metadata"),
    "ReplicaSet": ("spec.template.spec", "spec.template.metadata"),
    "ReplicationController": ("spec.template.spec", "spec.template.metadata"),
    "Job": ("spec.template.spec", "spec.template.metadata"),
    "CronJob": ("spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata"),
}
CONTAINER_LISTS = (
    ("containers", "container"),
    ("initContainers", "init container"),
    ("ephemeralContainers", "ephemeral container"),
)


def kind_of(resource_type: str) -> str | None:
    """`kubernetes:apps/v1:DeploymentPatch` -> `Deployment`; None for non-Kubernetes types."""
    if not resource_type.startswith("kubernetes:"):
        return None
    kind = resource_type.rsplit(":", 1)[-1]
    return kind.removesuffix("Patch")


def is_workload(resource_type: str) -> bool:
    return kind_of(resource_type) in _TEMPLATE_PATHS


def pod_spec(resource_type: str, props: Mapping[str, Any]) -> Mapping[str, Any] | None:
    kind = kind_of(resource_type)
    if kind not in _TEMPLATE_PATHS:
        return None
    path = _TEMPLATE_PATHS[kind][0]
    if get(props, path) is None:
        return None
    return get_map(props, path)  # a pod spec that is not an object is Malformed, never skipped


def workload_pod_spec(args: ResourceValidationArgs) -> Mapping[str, Any] | None:
    """The pod spec the resource declares, or None; a workload without a pod template (a patch of other
    fields) is not applicable rather than compliant."""
    spec = pod_spec(args.resource_type, args.props)
    if spec is None and is_workload(args.resource_type):
        args.not_applicable("the resource sets no pod template (a patch of other fields)")
    return spec


def pod_labels(resource_type: str, props: Mapping[str, Any]) -> dict[str, Any]:
    kind = kind_of(resource_type)
    if kind not in _TEMPLATE_PATHS:
        return {}
    return dict(get_map(props, _TEMPLATE_PATHS[kind][1] + ".labels"))


def spec_path(resource_type: str) -> str:
    """Where the pod spec of a workload type is (`spec.template.spec`); "" for other types."""
    kind = kind_of(resource_type)
    return _TEMPLATE_PATHS[kind][0] if kind in _TEMPLATE_PATHS else ""


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


def item(mapping: Any, key: str) -> Any:
    """`mapping[key]` for keys that contain dots (`nvidia.com/gpu`); an unknown value raises."""
    if not isinstance(mapping, Mapping) or key not in mapping:
        return None
    value = mapping[key]
    if is_unknown(value):
        raise UnknownValueError(value, [key])
    return value


def gpu_quantity(container: Mapping[str, Any], section: str) -> Any:
    """The container's `resources.<limits|requests>["nvidia.com/gpu"]`, or None."""
    return item(get(container, f"resources.{section}"), GPU_RESOURCE)


def _positive(quantity: Any) -> bool:
    try:
        return float(str(quantity)) > 0
    except ValueError:
        return quantity is not None


def uses_gpu(container: Mapping[str, Any]) -> bool:
    return any(_positive(gpu_quantity(container, section)) for section in ("limits", "requests"))


def gpu_containers(resource_type: str, props: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    found = containers(pod_spec(resource_type, props), spec_path(resource_type))
    return [(role, c) for role, c in found if uses_gpu(c)]


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


def display(resource_type: str, name: str) -> str:
    return f"{kind_of(resource_type) or resource_type} '{name}'"
