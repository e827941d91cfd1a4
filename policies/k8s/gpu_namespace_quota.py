"""GF-K8S-002: every namespace that runs GPU work has a ResourceQuota on `requests.nvidia.com/gpu`.

Namespaces that run GPU work are those of the workloads (every pod template of `policies.k8s.templates`,
custom resources included) that ask for a GPU resource (see `policies.k8s.workloads`; `default` when a
workload names none). A quota counts when it is a `kubernetes:core/v1:ResourceQuota` (or its Patch) in
that namespace with `spec.hard` holding `requests.<resource>` for each GPU resource name asked for there:
`requests.nvidia.com/gpu`, and `requests.nvidia.com/mig-1g.5gb`, `requests.nvidia.com/gpu.shared` or
`requests.amd.com/gpu` where those are requested (a quota on one name does not cap another). Namespaces
are matched by name, or, when the name is only known after deployment, by the Namespace resource both
refer to (their `metadata` property dependency).

A quota with `spec.scopes` or `spec.scopeSelector.matchExpressions` tracks only the pods its scopes
match (all of them, ANDed), so it caps a workload only when the workload's GPU pod templates are known
to match: `PriorityClass` (In, NotIn, Exists, DoesNotExist) against the template's
`priorityClassName`, or, when it names none, the stack's `globalDefault` PriorityClass that admission
gives it (as on the API server, DoesNotExist matches no pod and NotIn matches pods without a class);
`Terminating`/`NotTerminating` against `activeDeadlineSeconds`; `BestEffort` never (a pod that asks
for a GPU has a limit) and `NotBestEffort` always; `CrossNamespacePodAffinity` against pod
(anti-)affinity terms with `namespaces` or a `namespaceSelector`. A scope on a value not known before
deployment matches nothing known, so the quota does not count for that workload. A namespace whose GPU
workloads fall outside every quota holding the key is reported, naming its scoped quotas.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource

from gpufleet.policies.k8s.templates import PodTemplate
from gpufleet.policies.k8s.workloads import (
    display,
    gpu_resources,
    is_workload,
    item,
    kind_of,
    namespace_of,
    pod_templates,
    template_containers,
)
from gpufleet.policies.props import as_list, get, get_objects, get_ref, get_text, is_unknown, raw, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

NAMESPACE = "kubernetes:core/v1:Namespace"
QUOTA_KEY = "requests.nvidia.com/gpu"

RULE = Rule(
    id="GF-K8S-002",
    name="gpu-namespace-quota",
    description="Every namespace that may run GPU work has a ResourceQuota on requests.nvidia.com/gpu.",
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Add a kubernetes.core.v1.ResourceQuota in each namespace that runs GPU workloads with "
        "spec.hard['requests.nvidia.com/gpu'] set to the namespace's GPU allowance, unscoped or with "
        "scopes (e.g. scopeSelector PriorityClass In [...]) that the GPU pods match."
    ),
    url="https://kubernetes.io/docs/concepts/policy/resource-quotas/#resource-quota-for-extended-resources",
)


def _namespace_key(resource: PolicyResource, names_by_urn: Mapping[str, Any]) -> str:
    """The namespace's name when known; otherwise the URN of the Namespace resource it refers to."""
    value = namespace_of(resource.props)
    if isinstance(value, str) and not is_unknown(value):
        return value
    for dep in resource.property_dependencies.get("metadata", []) or []:
        if dep.resource_type == NAMESPACE:
            return str(names_by_urn.get(dep.urn, dep.urn))
    return "(unknown namespace)"


@dataclass(frozen=True)
class Scope:
    """One scope requirement of a quota: `spec.scopes` entries read as `Exists`."""

    name: str
    operator: str = "Exists"
    values: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.operator == "Exists":
            return self.name
        if self.operator in ("In", "NotIn"):
            return f"{self.name} {self.operator} [{', '.join(self.values)}]"
        return f"{self.name} {self.operator}"


@dataclass(frozen=True)
class Quota:
    name: str
    keys: frozenset[str]
    scopes: tuple[Scope, ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, resource: PolicyResource) -> Quota:
        hard = get(resource.props, "spec.hard")
        keys = list(hard) if isinstance(hard, Mapping) else []
        held = frozenset(
            k for k in keys if isinstance(k, str) and k.startswith("requests.") and item(hard, k) is not None
        )
        scopes = [Scope(str(name)) for name in as_list(get(resource.props, "spec.scopes")) if name]
        for expression in get_objects(resource.props, "spec.scopeSelector.matchExpressions"):
            name = get_text(expression, "scopeName")
            if name:
                operator = get_text(expression, "operator") or "Exists"
                values = tuple(str(v) for v in as_list(get(expression, "values")))
                scopes.append(Scope(name, operator, values))
        return cls(resource.name, held, tuple(scopes))

    def matches(self, spec: Mapping[str, Any], default_priority: str | None) -> bool:
        """Whether the pods of a template with pod `spec` are known to fall in this quota's scopes."""
        return all(_scope_holds(scope, spec, default_priority) for scope in self.scopes)


def _known(spec: Mapping[str, Any], key: str) -> tuple[bool, Any]:
    value = raw(spec, key)
    return (not is_unknown(value), value)


def _cross_namespace_affinity(spec: Mapping[str, Any]) -> bool | None:
    affinity = raw(spec, "affinity")
    if affinity is None:
        return False
    if is_unknown(affinity) or not isinstance(affinity, Mapping):
        return None
    for kind in ("podAffinity", "podAntiAffinity"):
        block = raw(affinity, kind)
        if not isinstance(block, Mapping):
            continue
        required = as_list(raw(block, "requiredDuringSchedulingIgnoredDuringExecution"))
        preferred = as_list(raw(block, "preferredDuringSchedulingIgnoredDuringExecution"))
        terms = required + [raw(p, "podAffinityTerm") for p in preferred if isinstance(p, Mapping)]
        for term in terms:
            if isinstance(term, Mapping) and (
                raw(term, "namespaces") or raw(term, "namespaceSelector") is not None
            ):
                return True
    return False


def _scope_holds(scope: Scope, spec: Mapping[str, Any], default_priority: str | None) -> bool:
    """Whether a pod of `spec` is known to meet `scope` (False when unknown at preview)."""
    name, operator = scope.name, scope.operator
    if name == "PriorityClass":
        known, value = _known(spec, "priorityClassName")
        if not known:
            return False
        priority = value if isinstance(value, str) and value else default_priority
        if operator == "In":
            return priority is not None and priority in scope.values
        if operator == "NotIn":
            return priority is None or priority not in scope.values
        if operator == "DoesNotExist":
            # The API server matches the selector against {PriorityClass: <name or "">}: the key is
            # always there, so DoesNotExist matches no pod.
            return False
        return priority is not None  # Exists
    if name in ("Terminating", "NotTerminating"):
        known, value = _known(spec, "activeDeadlineSeconds")
        if not known:
            return False
        terminating = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        return terminating if name == "Terminating" else not terminating
    if name == "BestEffort":
        return False  # a pod asking for a GPU sets a limit: never BestEffort
    if name == "NotBestEffort":
        return True
    if name == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(spec) is True
    return False  # a scope this rule does not know: no match is assumed


def _default_priority(resources: list[PolicyResource]) -> str | None:
    """The name of the stack's globalDefault PriorityClass, which admission gives pods naming none."""
    for r in resources:
        if kind_of(r.resource_type, r.props) == "PriorityClass" and truthy(raw(r.props, "globalDefault")):
            name = get_ref(r.props, "metadata.name")
            if isinstance(name, str) and name and not is_unknown(name):
                return name
    return None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    deferred = 0

    names_by_urn: dict[str, Any] = {}
    namespace_urns: dict[str, str] = {}
    for r in args.resources:
        if r.resource_type == NAMESPACE:
            name = get_ref(r.props, "metadata.name")
            key = name if isinstance(name, str) and name and not is_unknown(name) else r.urn
            names_by_urn[r.urn] = key
            namespace_urns[key] = r.urn
    quotas: dict[str, list[Quota]] = defaultdict(list)
    default_priority = _default_priority(list(args.resources))
    # namespace -> GPU resource name -> (workload, the pod specs of its templates asking for it)
    gpu_work: dict[str, dict[str, list[tuple[PolicyResource, list[Mapping[str, Any]]]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in args.resources:
        if kind_of(r.resource_type, r.props) == "ResourceQuota":

            def quota(r: PolicyResource = r) -> None:
                quotas[_namespace_key(r, names_by_urn)].append(Quota.of(r))

            deferred += not judge(r.urn, quota)
        elif is_workload(r.resource_type, r.props):

            def workload(r: PolicyResource = r) -> None:
                by_resource: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
                for template in pod_templates(r.resource_type, r.props):
                    for resource in _template_resources(template):
                        by_resource[resource].append(template.spec)
                namespace = _namespace_key(r, names_by_urn)
                for resource, specs in by_resource.items():
                    gpu_work[namespace][resource].append((r, specs))

            deferred += not judge(r.urn, workload)
    if not gpu_work and not deferred:
        args.not_applicable("the stack runs no workload that asks for a GPU resource")
    for namespace, by_resource in gpu_work.items():
        shown = namespace if not namespace.startswith("urn:") else namespace.rsplit("::", 1)[-1]
        for resource, workloads in by_resource.items():
            key = f"requests.{resource}"
            holding = [q for q in quotas.get(namespace, []) if key in q.keys]
            outside = [
                w
                for w, specs in workloads
                if not any(all(q.matches(spec, default_priority) for spec in specs) for q in holding)
            ]
            if not outside:
                continue
            names = ", ".join(display(w.resource_type, w.name, w.props) for w in outside)
            urn = namespace_urns.get(namespace, outside[0].urn)
            if not holding:
                report(
                    f"Namespace '{shown}' runs GPU workloads ({names}) but has no ResourceQuota with hard "
                    f"{key}; add one to cap the namespace's GPUs",
                    urn,
                )
                continue
            scoped = ", ".join(f"'{q.name}' (scopes: {'; '.join(str(s) for s in q.scopes)})" for q in holding)
            report(
                f"Namespace '{shown}' runs GPU workloads ({names}) whose pods no ResourceQuota with hard "
                f"{key} there is known to match: {scoped}; widen a quota's scopes to those pods or add an "
                "unscoped one to cap the namespace's GPUs",
                urn,
            )


def _template_resources(template: PodTemplate) -> list[str]:
    """The GPU resource names a pod template's containers ask for, each once."""
    names: list[str] = []
    for _, container in template_containers(template):
        for name in gpu_resources(container):
            if name not in names:
                names.append(name)
    return names


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(prefixes=("kubernetes:",)),
)
