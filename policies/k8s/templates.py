"""Every pod template a Kubernetes resource declares, built-in workloads and custom resources alike.

Built-in kinds, in any API group and version (and their server-side-apply `...Patch` variants): Pod
(`spec`), PodTemplate (`template`), Deployment, StatefulSet, DaemonSet, ReplicaSet,
ReplicationController, Job (`spec.template`) and CronJob (`spec.jobTemplate.spec.template`).

Custom resources that run pods, as `kubernetes:<group>/<version>:<Kind>` (what
`kubernetes.apiextensions.CustomResource` registers) or as `kubernetes:apiextensions.k8s.io:CustomResource`
with `apiVersion` and `kind` in its properties:

- Kubeflow training jobs (`kubeflow.org`: PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob, MXJob,
  JAXJob): `spec.<x>ReplicaSpecs.<replica>.template`.
- Ray (`ray.io`): RayCluster `spec.headGroupSpec.template` and `spec.workerGroupSpecs[].template`; RayJob
  the same under `spec.rayClusterSpec`, plus `spec.submitterPodTemplate`; RayService under
  `spec.rayClusterConfig`.
- Volcano (`batch.volcano.sh` Job): `spec.tasks[].template`.
- JobSet (`jobset.x-k8s.io`): `spec.replicatedJobs[].template.spec.template`; LeaderWorkerSet
  (`leaderworkerset.x-k8s.io`): `spec.leaderWorkerTemplate.leaderTemplate` and `.workerTemplate`.
- Argo Workflows (`argoproj.io` Workflow, WorkflowTemplate, ClusterWorkflowTemplate; CronWorkflow under
  `spec.workflowSpec`): each template that runs a pod (`container`, `script`, `containerSet`, with its
  `initContainers` and `sidecars`) is one pod spec, built from the workflow-level pod fields
  (`hostNetwork`, `volumes`, `tolerations`, `securityContext`, `priorityClassName`, ...), the template's
  own, then `spec.podSpecPatch` and the template's `podSpecPatch` (JSON or YAML; containers merged by
  name) applied on top, as the controller does.

Manifests applied through `yaml.ConfigFile`, `yaml.ConfigGroup` or Helm charts are rendered by the
provider plugin and are invisible to a policy run under mocks: only resources declared as such are judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpufleet.policies.props import as_list, get, get_map, get_ref, is_unknown, plain

GENERIC_CUSTOM_RESOURCE = "CustomResource"

_BUILT_IN = {
    "Pod": "",
    "PodTemplate": "template",
    "Deployment": "spec.template",
    "StatefulSet": "spec.template",
    "DaemonSet": "spec.template",
    "ReplicaSet": "spec.template",
    "ReplicationController": "spec.template",
    "Job": "spec.template",
    "CronJob": "spec.jobTemplate.spec.template",
}
# Groups whose kinds share a built-in kind's name but not its shape (Volcano's Job, Knative's Service).
_FOREIGN_GROUPS = frozenset({"batch.volcano.sh", "argoproj.io", "ray.io", "kubeflow.org"})


@dataclass(frozen=True)
class PodTemplate:
    """One pod template: ``where`` names it inside a custom resource ("" for a built-in workload's only
    template), ``spec`` is its pod spec and ``labels`` the labels its pods carry."""

    where: str
    spec: Mapping[str, Any]
    labels: Mapping[str, Any] = field(default_factory=dict)
    path: str = ""
    """The pod spec's property path in a built-in workload (`spec.template.spec`), for messages."""


def api_of(resource_type: str, props: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """(API group, kind) of a Kubernetes resource type: `kubernetes:apps/v1:DeploymentPatch` ->
    ("apps", "Deployment"); a generic CustomResource takes both from its `apiVersion` and `kind`."""
    if not resource_type.startswith("kubernetes:"):
        return None
    parts = resource_type.split(":")
    if len(parts) != 3:
        return None
    version, kind = parts[1], parts[2].removesuffix("Patch")
    if kind == GENERIC_CUSTOM_RESOURCE and props is not None:
        api_version, named = get(props, "apiVersion"), get(props, "kind")
        if isinstance(api_version, str) and isinstance(named, str) and named:
            version, kind = api_version, named
    group = version.split("/", 1)[0] if "/" in version else ""
    return group, kind


def _template(where: str, template: Any, added: Mapping[str, str] | None = None) -> PodTemplate | None:
    """A `{metadata, spec}` pod template (None when it has no pod spec); ``added`` are the labels the
    custom resource's operator puts on the pods it creates (where the resource's name is known)."""
    spec = get(template, "spec")
    if not isinstance(spec, Mapping):
        return None
    labels = get(template, "metadata.labels")
    own = dict(labels) if isinstance(labels, Mapping) else {}
    return PodTemplate(where, spec, {**own, **(added or {})})


def _named(label: str, name: str | None) -> dict[str, str]:
    return {label: name} if name else {}


def _kubeflow(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    if not isinstance(spec, Mapping):
        return
    for key in list(spec):
        replicas = get(spec, key)
        if not key.endswith("ReplicaSpecs") or not isinstance(replicas, Mapping):
            continue
        for replica in list(replicas):
            added = {**_named("training.kubeflow.org/job-name", name)}
            added["training.kubeflow.org/replica-type"] = str(replica).lower()
            yield _template(f"replica {replica}", get(replicas, f"{replica}.template"), added)


def _ray_cluster(cluster: Any, name: str | None) -> Iterator[PodTemplate | None]:
    added = _named("ray.io/cluster", name)
    head = {**added, "ray.io/node-type": "head"}
    yield _template("head group", get(cluster, "headGroupSpec.template"), head)
    for i, group in enumerate(as_list(get(cluster, "workerGroupSpecs"))):
        group_name = get(group, "groupName")
        known = isinstance(group_name, str) and group_name
        label = f"worker group '{group_name}'" if known else f"worker group {i + 1}"
        worker = {**added, "ray.io/node-type": "worker", **({"ray.io/group": group_name} if known else {})}
        yield _template(label, get(group, "template"), worker)


def _ray(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    # RayJob and RayService name their clusters themselves: only RayCluster's pods carry its name.
    if kind == "RayCluster":
        yield from _ray_cluster(spec, name)
    elif kind == "RayJob":
        yield from _ray_cluster(get(spec, "rayClusterSpec"), None)
        yield _template("submitter", get(spec, "submitterPodTemplate"))
    elif kind == "RayService":
        yield from _ray_cluster(get(spec, "rayClusterConfig"), None)


def _volcano(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    for i, task in enumerate(as_list(get(spec, "tasks"))):
        task_name = get(task, "name")
        known = isinstance(task_name, str) and task_name
        added = _named("volcano.sh/job-name", name)
        if known:
            added["volcano.sh/task-spec"] = task_name
        yield _template(f"task '{task_name}'" if known else f"task {i + 1}", get(task, "template"), added)


def _jobset(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    for i, job in enumerate(as_list(get(spec, "replicatedJobs"))):
        job_name = get(job, "name")
        known = isinstance(job_name, str) and job_name
        label = f"replicated job '{job_name}'" if known else f"replicated job {i + 1}"
        added = {
            **_named("jobset.sigs.k8s.io/jobset-name", name),
            **({"jobset.sigs.k8s.io/replicatedjob-name": job_name} if known else {}),
        }
        yield _template(label, get(job, "template.spec.template"), added)


def _lws(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    added = _named("leaderworkerset.sigs.k8s.io/name", name)
    yield _template("leader", get(spec, "leaderWorkerTemplate.leaderTemplate"), added)
    yield _template("worker", get(spec, "leaderWorkerTemplate.workerTemplate"), added)


# ------------------------------------------------------------------------------------------- Argo

_ARGO_POD_FIELDS = (
    "hostNetwork",
    "hostPID",
    "volumes",
    "tolerations",
    "securityContext",
    "priorityClassName",
    "nodeSelector",
    "affinity",
    "serviceAccountName",
)
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def _patch(value: Any) -> Mapping[str, Any]:
    """A `podSpecPatch` as a mapping: JSON or YAML text, or an object; {} when it does not parse."""
    if isinstance(value, Mapping):
        return plain(value)  # type: ignore[no-any-return]
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return {}
    return parsed if isinstance(parsed, Mapping) else {}


def _merge(base: Any, patch: Any) -> Any:
    """A strategic merge of a pod spec patch: mappings merged key by key, containers by name."""
    if isinstance(base, Mapping) and isinstance(patch, Mapping):
        merged = dict(base)
        for key, value in patch.items():
            if key in _CONTAINER_LISTS and isinstance(value, list):
                merged[key] = _merge_named(as_list(base.get(key)), value)
            else:
                merged[key] = _merge(base.get(key), value)
        return merged
    return patch


def _merge_named(base: list[Any], patch: list[Any]) -> list[Any]:
    merged = [plain(c) for c in base]
    for item in patch:
        name = item.get("name") if isinstance(item, Mapping) else None
        at = next((i for i, c in enumerate(merged) if isinstance(c, Mapping) and c.get("name") == name), None)
        if at is None:
            merged.append(item)
        else:
            merged[at] = _merge(merged[at], item)
    return merged


def _argo(spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    if not isinstance(spec, Mapping):
        return
    workflow = {key: get(spec, key) for key in _ARGO_POD_FIELDS if get(spec, key) is not None}
    workflow_labels = get(spec, "podMetadata.labels")
    for i, template in enumerate(as_list(get(spec, "templates"))):
        # The controller names a `container` or `script` template's container "main".
        containers = [
            {"name": "main", **plain(c)}
            for c in (get(template, "container"), get(template, "script"))
            if isinstance(c, Mapping)
        ]
        containers += as_list(get(template, "containerSet.containers"))
        containers += as_list(get(template, "sidecars"))
        if not containers:
            continue  # steps, dag, suspend, resource and http templates run no pod of the user's
        pod: dict[str, Any] = dict(workflow)
        for key in _ARGO_POD_FIELDS:
            value = get(template, key)
            if value is not None:
                pod[key] = value
        pod["containers"] = containers
        pod["initContainers"] = as_list(get(template, "initContainers"))
        for patch in (get(spec, "podSpecPatch"), get(template, "podSpecPatch")):
            pod = _merge(pod, _patch(patch))
        template_labels = get(template, "metadata.labels")
        labels = {
            **(dict(workflow_labels) if isinstance(workflow_labels, Mapping) else {}),
            **(dict(template_labels) if isinstance(template_labels, Mapping) else {}),
            **_named("workflows.argoproj.io/workflow", name),
        }
        template_name = get(template, "name")
        known = isinstance(template_name, str) and template_name
        yield PodTemplate(f"template '{template_name}'" if known else f"template {i + 1}", pod, labels)


def _argo_kind(kind: str, spec: Any, name: str | None) -> Iterator[PodTemplate | None]:
    # Only a Workflow's own pods carry its name; the templates' workflows are named at submission.
    if kind == "Workflow":
        yield from _argo(spec, name)
    elif kind in ("WorkflowTemplate", "ClusterWorkflowTemplate"):
        yield from _argo(spec, None)
    elif kind == "CronWorkflow":
        yield from _argo(get(spec, "workflowSpec"), None)


_CUSTOM: dict[str, Callable[[str, Any, str | None], Iterator[PodTemplate | None]]] = {
    "kubeflow.org": _kubeflow,
    "ray.io": _ray,
    "batch.volcano.sh": _volcano,
    "jobset.x-k8s.io": _jobset,
    "leaderworkerset.x-k8s.io": _lws,
    "argoproj.io": _argo_kind,
}
_CUSTOM_KINDS = {
    "kubeflow.org": None,  # every kind: the replica specs are found by their `...ReplicaSpecs` key
    "ray.io": frozenset({"RayCluster", "RayJob", "RayService"}),
    "batch.volcano.sh": frozenset({"Job"}),
    "jobset.x-k8s.io": frozenset({"JobSet"}),
    "leaderworkerset.x-k8s.io": frozenset({"LeaderWorkerSet"}),
    "argoproj.io": frozenset({"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"}),
}


def runs_pods(resource_type: str, props: Mapping[str, Any] | None = None) -> bool:
    """True for every kind whose resources declare pod templates (whether or not this one sets one)."""
    api = api_of(resource_type, props)
    if api is None:
        return False
    group, kind = api
    if group in _CUSTOM_KINDS:
        kinds = _CUSTOM_KINDS[group]
        return kinds is None or kind in kinds
    return kind in _BUILT_IN and group not in _FOREIGN_GROUPS


def pod_templates(resource_type: str, props: Mapping[str, Any]) -> list[PodTemplate]:
    """Every pod template the resource declares, in declaration order."""
    if not runs_pods(resource_type, props):
        return []
    api = api_of(resource_type, props)
    assert api is not None
    group, kind = api
    if group in _CUSTOM:
        name = get_ref(props, "metadata.name")
        known = name if isinstance(name, str) and name and not is_unknown(name) else None
        return [t for t in _CUSTOM[group](kind, get(props, "spec"), known) if t is not None]
    path = _BUILT_IN[kind]
    spec_path = f"{path}.spec" if path else "spec"
    spec = get_map(props, spec_path)  # a pod spec that is not an object is Malformed, never skipped
    found = _template("", props if path == "" else get(props, path))
    if found is None or not spec:
        return [found] if found is not None else []
    return [PodTemplate(found.where, found.spec, found.labels, spec_path)]
