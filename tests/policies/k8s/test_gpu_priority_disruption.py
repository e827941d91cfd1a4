from __future__ import annotations

from typing import Any

from policies.k8s.gpu_priority_disruption import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

STS = "kubernetes:apps/v1:StatefulSet"
DS = "kubernetes:apps/v1:DaemonSet"
PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
PDB = "kubernetes:policy/v1:PodDisruptionBudget"
GPU_CONTAINERS = [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": 1}}}]


def trainer(kind: str = STS, labels: dict[str, str] | None = None, **kwargs: Any) -> Any:
    template = {
        "metadata": {"labels": labels or {"app": "trainer", "tier": "burst"}},
        "spec": {"containers": GPU_CONTAINERS},
    }
    return res(
        kind, "trainer", {"metadata": {"namespace": "train"}, "spec": {"template": template}}, **kwargs
    )


def pdb(selector: dict[str, Any], namespace: str = "train", **kwargs: Any) -> Any:
    props = {"metadata": {"namespace": namespace}, "spec": {"maxUnavailable": 0, "selector": selector}}
    return res(PDB, "trainer-pdb", props, **kwargs)


PRIORITY = res(PC, "gpu-baseline", {"value": 100000})
NO_PDB = (
    "StatefulSet 'trainer' runs GPU work but no PodDisruptionBudget in namespace 'train' selects its pods; "
    "add one whose selector matches its pod template labels"
)


def test_metadata() -> None:
    assert RULE.id == "GF-K8S-004"
    assert POLICY.enforcement_level.value == "advisory"


def test_protected_training_passes() -> None:
    assert run_stack(POLICY, [PRIORITY, trainer(), pdb({"matchLabels": {"app": "trainer"}})]) == []
    expression = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["burst", "base"]}]}
    assert run_stack(POLICY, [PRIORITY, trainer(), pdb(expression)]) == []


def test_no_gpu_workloads_not_applicable() -> None:
    db = res(STS, "db", {"spec": {"template": {"spec": {"containers": [{"name": "db"}]}}}})
    assert run_stack(POLICY, [db]) == "N/A: the stack runs no workload that asks for a GPU resource"


def test_missing_priority_class() -> None:
    assert run_stack(POLICY, [trainer(), pdb({"matchLabels": {"app": "trainer"}})]) == [
        (
            "The stack runs GPU workloads (StatefulSet 'trainer') but declares no PriorityClass; declare "
            "PriorityClasses so baseline GPU work outranks burst work",
            None,
        )
    ]


def test_budget_not_matching() -> None:
    for budget in (
        pdb({"matchLabels": {"app": "other"}}),
        pdb({"matchLabels": {"app": "trainer"}}, namespace="default"),
        pdb(
            {
                "matchLabels": {"app": "trainer"},
                "matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}],
            }
        ),
    ):
        assert run_stack(POLICY, [PRIORITY, trainer(), budget]) == [(NO_PDB, urn_of(STS, "trainer"))]
    assert run_stack(POLICY, [PRIORITY, trainer()]) == [(NO_PDB, urn_of(STS, "trainer"))]


def test_daemonsets_need_no_budget() -> None:
    assert run_stack(POLICY, [PRIORITY, trainer(kind=DS)]) == []


def test_unknown_label_is_not_a_pass() -> None:
    workload = trainer(labels={"app": UNKNOWN_STRING_VALUE}, proxy=True)
    assert run_stack(POLICY, [PRIORITY, workload, pdb({"matchLabels": {"app": "trainer"}})]) == [
        (
            "could not be judged at preview: the string value at .spec.template.metadata.labels.app can't be "
            "known during preview",
            urn_of(STS, "trainer"),
        )
    ]


def test_proxied_props() -> None:
    resources = [PRIORITY, trainer(proxy=True), pdb({"matchLabels": {"app": "trainer"}}, proxy=True)]
    assert run_stack(POLICY, resources) == []
