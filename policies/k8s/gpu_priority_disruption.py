"""GF-K8S-004: baseline capacity outranks burst: PriorityClasses exist, and GPU training workloads are
protected from voluntary disruption.

When the stack has GPU workloads (every pod template of `policies.k8s.templates`, custom resources
included; see `policies.k8s.workloads` for the GPU resource names):
- at least one `kubernetes:scheduling.k8s.io/v1:PriorityClass` (or v1beta1, or Patch) is declared;
- each GPU workload other than a DaemonSet is selected by a `kubernetes:policy/v1:PodDisruptionBudget`
  (or v1beta1, or Patch) in its namespace: the budget's `spec.selector.matchLabels` are all among the
  pod template's labels, and its `matchExpressions` (In, NotIn, Exists, DoesNotExist) hold for them;
  a custom resource's GPU templates each need one, with the labels its operator adds to the pods
  (`training.kubeflow.org/job-name`, `ray.io/cluster`, `volcano.sh/job-name`, ...) counted where the
  resource's name is known.
PriorityClasses or budgets declared outside the stack (Helm charts, other stacks) are not seen, which
is why this rule is advisory.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.policy import PolicyResource

from policies.k8s.workloads import (
    display,
    gpu_containers,
    is_workload,
    kind_of,
    namespace_of,
    pod_templates,
    template_containers,
    uses_gpu,
)
from policies.props import Malformed, as_list, get, get_map, get_objects, get_text, json_kind
from policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-K8S-004",
    name="gpu-priority-and-disruption-budget",
    description=(
        "Baseline capacity outranks burst: PriorityClasses exist and training on burst pools is protected "
        "from voluntary disruption."
    ),
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=(
        "Declare kubernetes.scheduling.v1.PriorityClass objects (e.g. gpu-baseline above gpu-burst) and set "
        "priorityClassName on GPU pod specs; add a kubernetes.policy.v1.PodDisruptionBudget in each training "
        "workload's namespace whose spec.selector.matchLabels match the workload's pod template labels "
        "(maxUnavailable: 0 for single-replica training)."
    ),
    url="https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
)


def _expression_holds(expression: Any, labels: Mapping[str, Any]) -> bool:
    key = get_text(expression, "key")
    if key is None:  # the API server rejects an expression without a key
        return False
    operator = get(expression, "operator")
    values = [str(v) for v in as_list(get(expression, "values"))]
    if operator == "In":
        return key in labels and str(labels[key]) in values
    if operator == "NotIn":
        return key not in labels or str(labels[key]) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False


@dataclass(frozen=True)
class Selector:
    """A PodDisruptionBudget's `spec.selector`, read once; `None` fields mean no selector at all."""

    match: Mapping[str, Any] | None
    expressions: tuple[Any, ...] = ()

    @classmethod
    def of(cls, budget: PolicyResource) -> Selector:
        selector = get(budget.props, "spec.selector")
        if selector is None:
            return cls(None)
        if not isinstance(selector, Mapping):
            raise Malformed(f".spec.selector is {json_kind(selector)}, not an object", selector)
        props = budget.props
        match = get_map(props, "spec.selector.matchLabels")
        return cls(dict(match), tuple(get_objects(props, "spec.selector.matchExpressions")))

    def selects(self, labels: Mapping[str, Any]) -> bool:
        if self.match is None:
            return False
        if not self.match and not self.expressions:
            # An empty selector selects every pod of the namespace in policy/v1.
            return True
        if any(labels.get(k) != self.match[k] for k in self.match):
            return False
        return all(_expression_holds(e, labels) for e in self.expressions)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    deferred = 0

    priority_classes = 0
    budgets: dict[str, list[Selector]] = defaultdict(list)
    gpu_workloads: list[PolicyResource] = []
    for r in args.resources:
        kind = kind_of(r.resource_type, r.props)
        if kind == "PriorityClass":
            priority_classes += 1
        elif kind == "PodDisruptionBudget":

            def budget(r: PolicyResource = r) -> None:
                budgets[namespace_of(r.props)].append(Selector.of(r))

            judge(r.urn, budget)
        elif is_workload(r.resource_type, r.props):

            def collect(r: PolicyResource = r) -> None:
                if gpu_containers(r.resource_type, r.props):
                    gpu_workloads.append(r)

            deferred += not judge(r.urn, collect)
    if not gpu_workloads:
        if not deferred:
            args.not_applicable("the stack runs no workload that asks for a GPU resource")
        return
    if priority_classes == 0:
        names = ", ".join(display(w.resource_type, w.name, w.props) for w in gpu_workloads)
        report(
            f"The stack runs GPU workloads ({names}) but declares no PriorityClass; declare PriorityClasses "
            "so baseline GPU work outranks burst work",
            None,
        )
    for workload in gpu_workloads:
        if kind_of(workload.resource_type) == "DaemonSet":
            continue

        def check(workload: PolicyResource = workload) -> None:
            namespace = namespace_of(workload.props)
            what = display(workload.resource_type, workload.name, workload.props)
            for template in pod_templates(workload.resource_type, workload.props):
                if not any(uses_gpu(c) for _, c in template_containers(template)):
                    continue
                if any(selector.selects(template.labels) for selector in budgets.get(namespace, [])):
                    continue
                pods = f"its {template.where} pods" if template.where else "its pods"
                report(
                    f"{what} runs GPU work but no PodDisruptionBudget in namespace '{namespace}' selects "
                    f"{pods}; add one whose selector matches its pod template labels",
                    workload.urn,
                )

        judge(workload.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(prefixes=("kubernetes:",)),
)
