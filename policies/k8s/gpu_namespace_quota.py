"""GF-K8S-002: every namespace that runs GPU work has a ResourceQuota on `requests.nvidia.com/gpu`.

Namespaces that run GPU work are those of the workloads (every pod template of `policies.k8s.templates`,
custom resources included) that ask for a GPU resource (see `policies.k8s.workloads`; `default` when a
workload names none). A quota counts when it is a `kubernetes:core/v1:ResourceQuota` (or its Patch) in
that namespace with `spec.hard` holding `requests.<resource>` for each GPU resource name asked for there:
`requests.nvidia.com/gpu`, and `requests.nvidia.com/mig-1g.5gb`, `requests.nvidia.com/gpu.shared` or
`requests.amd.com/gpu` where those are requested (a quota on one name does not cap another). Namespaces
are matched by name, or, when the name is only known after deployment, by the Namespace resource both
refer to (their `metadata` property dependency).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource

from policies.k8s.workloads import (
    display,
    gpu_containers,
    gpu_resources,
    is_workload,
    item,
    kind_of,
    namespace_of,
)
from policies.props import get, get_ref, is_unknown
from policies.rule import GfStackPolicy, Rule, judge, judges

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
        "spec.hard['requests.nvidia.com/gpu'] set to the namespace's GPU allowance."
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
    quotas: set[tuple[str, str]] = set()
    # namespace -> GPU resource name -> the workloads asking for it
    gpu_work: dict[str, dict[str, list[PolicyResource]]] = defaultdict(lambda: defaultdict(list))
    for r in args.resources:
        if kind_of(r.resource_type, r.props) == "ResourceQuota":

            def quota(r: PolicyResource = r) -> None:
                hard = get(r.props, "spec.hard")
                keys = list(hard) if isinstance(hard, Mapping) else []
                for key in keys:
                    if isinstance(key, str) and key.startswith("requests.") and item(hard, key) is not None:
                        quotas.add((_namespace_key(r, names_by_urn), key))

            deferred += not judge(r.urn, quota)
        elif is_workload(r.resource_type, r.props):

            def workload(r: PolicyResource = r) -> None:
                for _, container in gpu_containers(r.resource_type, r.props):
                    for resource in gpu_resources(container):
                        asking = gpu_work[_namespace_key(r, names_by_urn)][resource]
                        if r not in asking:
                            asking.append(r)

            deferred += not judge(r.urn, workload)
    if not gpu_work and not deferred:
        args.not_applicable("the stack runs no workload that asks for a GPU resource")
    for namespace, by_resource in gpu_work.items():
        shown = namespace if not namespace.startswith("urn:") else namespace.rsplit("::", 1)[-1]
        for resource, workloads in by_resource.items():
            key = f"requests.{resource}"
            if (namespace, key) in quotas:
                continue
            names = ", ".join(display(w.resource_type, w.name, w.props) for w in workloads)
            report(
                f"Namespace '{shown}' runs GPU workloads ({names}) but has no ResourceQuota with hard "
                f"{key}; add one to cap the namespace's GPUs",
                namespace_urns.get(namespace, workloads[0].urn),
            )


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(prefixes=("kubernetes:",)),
)
