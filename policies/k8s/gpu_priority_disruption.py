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
  resource's name is known;
- a budget that selects the workload's pods protects at least one of them: `minAvailable` 0 or "0%",
  `maxUnavailable` "100%", or a whole `maxUnavailable` of at least the workload's replicas (the
  `spec.replicas` of a Deployment, StatefulSet or ReplicaSet, a Job's `spec.parallelism`, where set)
  let every pod be evicted at once, so such a budget protects nothing. A workload that only such
  budgets select is reported, naming them; one budget that protects is enough. Values unknown at
  preview count as protecting.
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

from gpufleet.policies.k8s.workloads import (
    display,
    gpu_containers,
    is_workload,
    kind_of,
    namespace_of,
    pod_templates,
    template_containers,
    uses_gpu,
)
from gpufleet.policies.props import (
    Malformed,
    as_int,
    as_list,
    get,
    get_map,
    get_objects,
    get_text,
    is_unknown,
    json_kind,
    raw,
)
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

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
        "(maxUnavailable: 0 for single-replica training; never minAvailable: 0, maxUnavailable: 100% or a "
        "maxUnavailable of all the replicas, which protect nothing)."
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


def _budget_value(spec: Any, key: str) -> int | str | None:
    """A budget's `minAvailable`/`maxUnavailable`: a whole number, a percentage ("25%"), or None when
    unset, unknown at preview or unreadable."""
    value = raw(spec, key) if isinstance(spec, Mapping) else None
    if value is None or is_unknown(value) or isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().endswith("%"):
        return value.strip()
    return as_int(value)


def _percent(value: str) -> float | None:
    try:
        return float(value.removesuffix("%"))
    except ValueError:
        return None


@dataclass(frozen=True)
class Budget:
    """A PodDisruptionBudget: its name, selector and the disruption it allows."""

    name: str
    selector: Selector
    min_available: int | str | None
    max_unavailable: int | str | None

    @classmethod
    def of(cls, budget: PolicyResource) -> Budget:
        spec = raw(budget.props, "spec")
        return cls(
            budget.name,
            Selector.of(budget),
            _budget_value(spec, "minAvailable"),
            _budget_value(spec, "maxUnavailable"),
        )

    def allows_all(self, replicas: int | None) -> str | None:
        """Why this budget lets every pod of a workload with `replicas` pods (None: not known) be evicted
        at once, or None when it keeps at least one."""
        low, high = self.min_available, self.max_unavailable
        low_share = _percent(low) if isinstance(low, str) else None
        high_share = _percent(high) if isinstance(high, str) else None
        if (isinstance(low, int) and low <= 0) or (low_share is not None and low_share <= 0):
            return f"minAvailable {low}"
        if high_share is not None and high_share >= 100:
            return f"maxUnavailable {high}"
        if isinstance(high, int) and replicas is not None and replicas > 0 and high >= replicas:
            return f"maxUnavailable {high} of {replicas} replicas"
        return None


REPLICA_FIELDS = {
    "Deployment": "spec.replicas",
    "StatefulSet": "spec.replicas",
    "ReplicaSet": "spec.replicas",
    "Job": "spec.parallelism",
}


def _replicas(workload: PolicyResource) -> int | None:
    """The pods a built-in workload runs at once, where its spec sets them; None otherwise."""
    field = REPLICA_FIELDS.get(kind_of(workload.resource_type, workload.props) or "")
    if field is None:
        return None
    spec = raw(workload.props, "spec")
    value = raw(spec, field.split(".")[1]) if isinstance(spec, Mapping) else None
    if value is None or is_unknown(value) or isinstance(value, bool):
        return None
    return as_int(value)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    deferred = 0

    priority_classes = 0
    budgets: dict[str, list[Budget]] = defaultdict(list)
    gpu_workloads: list[PolicyResource] = []
    for r in args.resources:
        kind = kind_of(r.resource_type, r.props)
        if kind == "PriorityClass":
            priority_classes += 1
        elif kind == "PodDisruptionBudget":

            def budget(r: PolicyResource = r) -> None:
                budgets[namespace_of(r.props)].append(Budget.of(r))

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
            replicas = _replicas(workload)
            for template in pod_templates(workload.resource_type, workload.props):
                if not any(uses_gpu(c) for _, c in template_containers(template)):
                    continue
                pods = f"its {template.where} pods" if template.where else "its pods"
                selecting = [b for b in budgets.get(namespace, []) if b.selector.selects(template.labels)]
                if not selecting:
                    report(
                        f"{what} runs GPU work but no PodDisruptionBudget in namespace '{namespace}' selects "
                        f"{pods}; add one whose selector matches its pod template labels",
                        workload.urn,
                    )
                    continue
                empty = [(b, b.allows_all(replicas)) for b in selecting]
                if all(reason is not None for _, reason in empty):
                    named = ", ".join(f"'{b.name}' ({reason})" for b, reason in empty)
                    noun, verb = (
                        ("PodDisruptionBudget", "lets")
                        if len(empty) == 1
                        else ("PodDisruptionBudgets", "let")
                    )
                    report(
                        f"{what} runs GPU work but the {noun} selecting {pods} in namespace '{namespace}' "
                        f"{verb} all of them be evicted at once: {named}; keep at least one (e.g. "
                        "maxUnavailable: 1 below the replicas, or maxUnavailable: 0)",
                        workload.urn,
                    )

        judge(workload.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(prefixes=("kubernetes:",)),
)
