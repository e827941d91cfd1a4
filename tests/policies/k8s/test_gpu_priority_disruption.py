from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.k8s.gpu_priority_disruption import POLICY, RULE
from tests.policies.verdicts import node, verdicts

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


DEPLOY = "kubernetes:apps/v1:Deployment"
JOB = "kubernetes:batch/v1:Job"


def _workload(kind: str, count: dict[str, Any]) -> Any:
    template = {"metadata": {"labels": {"app": "trainer"}}, "spec": {"containers": GPU_CONTAINERS}}
    return node(
        kind, "trainer", {"metadata": {"namespace": "train"}, "spec": {**count, "template": template}}
    )


def _budget(spec: dict[str, Any], name: str = "trainer-pdb") -> Any:
    props = {
        "metadata": {"namespace": "train"},
        "spec": {**spec, "selector": {"matchLabels": {"app": "trainer"}}},
    }
    return node(PDB, name, props)


PRIORITY_CLASS = node(PC, "gpu-baseline", {"value": 100000})


def _empty_budget(what: str, reason: str) -> tuple[str, str, str, str]:
    return (
        "GF-K8S-004",
        "advisory",
        f"{what} runs GPU work but the PodDisruptionBudget selecting its pods in namespace 'train' lets "
        f"all of them be evicted at once: 'trainer-pdb' ({reason}); keep at least one (e.g. "
        "maxUnavailable: 1 below the replicas, or maxUnavailable: 0)",
        "trainer",
    )


@pytest.mark.parametrize(
    ("kind", "count", "spec", "reason"),
    [
        (STS, {"replicas": 4}, {"maxUnavailable": "100%"}, "maxUnavailable 100%"),
        (STS, {}, {"minAvailable": 0}, "minAvailable 0"),
        (DEPLOY, {"replicas": 2}, {"minAvailable": "0%"}, "minAvailable 0%"),
        (DEPLOY, {"replicas": 2}, {"maxUnavailable": 2}, "maxUnavailable 2 of 2 replicas"),
        (STS, {"replicas": 1}, {"maxUnavailable": 1}, "maxUnavailable 1 of 1 replicas"),
        (JOB, {"parallelism": 3}, {"maxUnavailable": 5}, "maxUnavailable 5 of 3 replicas"),
    ],
)
def test_budget_that_protects_no_pod_is_a_finding(
    kind: str, count: dict[str, Any], spec: dict[str, Any], reason: str
) -> None:
    what = {STS: "StatefulSet", DEPLOY: "Deployment", JOB: "Job"}[kind] + " 'trainer'"
    found = verdicts(POLICY, [PRIORITY_CLASS, _workload(kind, count), _budget(spec)])
    assert found == [_empty_budget(what, reason)]


@pytest.mark.parametrize(
    ("count", "spec"),
    [
        ({"replicas": 4}, {"maxUnavailable": "50%"}),
        ({"replicas": 4}, {"maxUnavailable": 3}),
        ({"replicas": 4}, {"maxUnavailable": 0}),
        ({"replicas": 4}, {"minAvailable": 1}),
        ({"replicas": 4}, {"minAvailable": "25%"}),
        ({}, {"maxUnavailable": 1}),  # the replicas are not known: a whole number may still keep some
        ({"replicas": 2}, {"maxUnavailable": UNKNOWN_STRING_VALUE}),  # not known at preview
    ],
)
def test_budget_that_keeps_a_pod_passes(count: dict[str, Any], spec: dict[str, Any]) -> None:
    assert verdicts(POLICY, [PRIORITY_CLASS, _workload(STS, count), _budget(spec)]) == []


def test_one_protecting_budget_is_enough() -> None:
    loose = [_budget({"maxUnavailable": "100%"}, "loose"), _budget({"minAvailable": 0}, "none")]
    assert verdicts(POLICY, [PRIORITY_CLASS, _workload(STS, {"replicas": 2}), *loose]) == [
        (
            "GF-K8S-004",
            "advisory",
            "StatefulSet 'trainer' runs GPU work but the PodDisruptionBudgets selecting its pods in "
            "namespace 'train' let all of them be evicted at once: 'loose' (maxUnavailable 100%), 'none' "
            "(minAvailable 0); keep at least one (e.g. maxUnavailable: 1 below the replicas, or "
            "maxUnavailable: 0)",
            "trainer",
        )
    ]
    strict = _budget({"maxUnavailable": 0}, "strict")
    assert verdicts(POLICY, [PRIORITY_CLASS, _workload(STS, {"replicas": 2}), *loose, strict]) == []
