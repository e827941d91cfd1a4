from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.k8s.gpu_namespace_quota import POLICY, RULE
from tests.policies.verdicts import node, verdicts

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

NS = "kubernetes:core/v1:Namespace"
QUOTA = "kubernetes:core/v1:ResourceQuota"
JOB = "kubernetes:batch/v1:Job"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def gpu_job(name: str, namespace: Any = "train", **kwargs: Any) -> Any:
    metadata = {} if namespace is None else {"namespace": namespace}
    spec = {"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}
    return res(JOB, name, {"metadata": metadata, "spec": {"template": {"spec": spec}}}, **kwargs)


def quota(namespace: Any = "train", key: str = "requests.nvidia.com/gpu", **kwargs: Any) -> Any:
    return res(
        QUOTA, "gpu-quota", {"metadata": {"namespace": namespace}, "spec": {"hard": {key: "16"}}}, **kwargs
    )


def test_metadata() -> None:
    assert RULE.id == "GF-K8S-002"


def test_namespace_with_quota_passes() -> None:
    ns = res(NS, "train", {"metadata": {"name": "train"}})
    assert run_stack(POLICY, [ns, gpu_job("pretrain"), quota()]) == []


def test_namespace_without_quota() -> None:
    ns = res(NS, "train", {"metadata": {"name": "train"}})
    assert run_stack(POLICY, [ns, gpu_job("pretrain"), gpu_job("finetune")]) == [
        (
            "Namespace 'train' runs GPU workloads (Job 'pretrain', Job 'finetune') but has no ResourceQuota "
            "with hard requests.nvidia.com/gpu; add one to cap the namespace's GPUs",
            urn_of(NS, "train"),
        )
    ]


def test_quota_without_gpu_key_or_in_other_namespace() -> None:
    for q in (quota(key="requests.cpu"), quota(namespace="other")):
        [(message, urn)] = run_stack(POLICY, [gpu_job("pretrain"), q])
        assert message.startswith("Namespace 'train' runs GPU workloads (Job 'pretrain')")
        assert urn == urn_of(JOB, "pretrain")


def test_default_namespace_and_cpu_workloads() -> None:
    [(message, _)] = run_stack(POLICY, [gpu_job("adhoc", namespace=None)])
    assert message.startswith("Namespace 'default' runs GPU workloads (Job 'adhoc')")
    web = res(DEPLOYMENT, "web", {"spec": {"template": {"spec": {"containers": [{"name": "w"}]}}}})
    assert run_stack(POLICY, [web]) == "N/A: the stack runs no workload that asks for a GPU resource"


def test_auto_named_namespace_joined_by_reference() -> None:
    ns = res(NS, "train", {"metadata": {}})
    job = gpu_job("pretrain", namespace=UNKNOWN_STRING_VALUE, prop_deps={"metadata": [ns]})
    q = quota(namespace=UNKNOWN_STRING_VALUE, prop_deps={"metadata": [ns]})
    assert run_stack(POLICY, [ns, job, q]) == []
    [(message, urn)] = run_stack(POLICY, [ns, job])
    assert message.startswith("Namespace 'train' runs GPU workloads (Job 'pretrain')")
    assert urn == urn_of(NS, "train")


def test_unknown_gpu_quantity_is_reported() -> None:
    spec = {"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": UNKNOWN_STRING_VALUE}}}]}
    job = res(
        JOB, "j", {"metadata": {"namespace": "train"}, "spec": {"template": {"spec": spec}}}, proxy=True
    )
    assert run_stack(POLICY, [job]) == [
        (
            "could not be judged at preview: the string value at "
            ".spec.template.spec.containers.0.resources.limits"
            ".nvidia.com/gpu can't be known during preview",
            urn_of(JOB, "j"),
        )
    ]


def test_proxied_props() -> None:
    assert run_stack(POLICY, [gpu_job("pretrain", proxy=True), quota(proxy=True)]) == []


PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
GPU_LIMITS = {"limits": {"nvidia.com/gpu": "8"}}


def _trainer(pod: dict[str, Any] | None = None, kind: str = JOB, name: str = "pretrain") -> Any:
    spec = {"containers": [{"name": "t", "resources": GPU_LIMITS}], **(pod or {})}
    return node(kind, name, {"metadata": {"namespace": "train"}, "spec": {"template": {"spec": spec}}})


def _scoped(name: str = "gpu-quota", **spec: Any) -> Any:
    body = {"hard": {"requests.nvidia.com/gpu": "16"}, **spec}
    return node(QUOTA, name, {"metadata": {"namespace": "train"}, "spec": body})


def _selector(scope: str, operator: str, *values: str) -> dict[str, Any]:
    expression: dict[str, Any] = {"scopeName": scope, "operator": operator}
    if values:
        expression["values"] = list(values)
    return {"scopeSelector": {"matchExpressions": [expression]}}


def _outside(names: str, quotas: str) -> tuple[str, str, str, str]:
    return (
        "GF-K8S-002",
        "mandatory",
        f"Namespace 'train' runs GPU workloads ({names}) whose pods no ResourceQuota with hard "
        f"requests.nvidia.com/gpu there is known to match: {quotas}; widen a quota's scopes to those pods "
        "or add an unscoped one to cap the namespace's GPUs",
        "pretrain",
    )


@pytest.mark.parametrize(
    ("pod", "scopes", "shown"),
    [
        ({"priorityClassName": "gpu-burst"}, _selector("PriorityClass", "In", "gpu-baseline"),
         "PriorityClass In [gpu-baseline]"),
        ({}, _selector("PriorityClass", "In", "gpu-baseline"), "PriorityClass In [gpu-baseline]"),
        ({"priorityClassName": "gpu-baseline"}, _selector("PriorityClass", "NotIn", "gpu-baseline"),
         "PriorityClass NotIn [gpu-baseline]"),
        ({}, {"scopes": ["PriorityClass"]}, "PriorityClass"),
        ({}, _selector("PriorityClass", "DoesNotExist"), "PriorityClass DoesNotExist"),
        ({}, {"scopes": ["BestEffort"]}, "BestEffort"),
        ({}, {"scopes": ["Terminating"]}, "Terminating"),
        ({"activeDeadlineSeconds": 3600}, {"scopes": ["NotTerminating"]}, "NotTerminating"),
        ({}, {"scopes": ["CrossNamespacePodAffinity"]}, "CrossNamespacePodAffinity"),
        ({"priorityClassName": UNKNOWN_STRING_VALUE}, _selector("PriorityClass", "In", "gpu-baseline"),
         "PriorityClass In [gpu-baseline]"),
    ],
)  # fmt: skip
def test_scoped_quota_the_gpu_pods_fall_outside_is_no_cap(
    pod: dict[str, Any], scopes: dict[str, Any], shown: str
) -> None:
    found = verdicts(POLICY, [_trainer(pod), _scoped(**scopes)])
    assert found == [_outside("Job 'pretrain'", f"'gpu-quota' (scopes: {shown})")]


@pytest.mark.parametrize(
    ("pod", "scopes"),
    [
        ({"priorityClassName": "gpu-baseline"},
         _selector("PriorityClass", "In", "gpu-baseline", "gpu-burst")),
        ({"priorityClassName": "gpu-burst"}, _selector("PriorityClass", "NotIn", "gpu-baseline")),
        ({}, _selector("PriorityClass", "NotIn", "gpu-baseline")),
        ({"priorityClassName": "gpu-burst"}, {"scopes": ["PriorityClass"]}),
        ({}, {"scopes": ["NotBestEffort"]}),
        ({}, {"scopes": ["NotTerminating", "NotBestEffort"]}),
        ({"activeDeadlineSeconds": 3600}, {"scopes": ["Terminating"]}),
        (
            {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "zone", "namespaceSelector": {}}]}}},
            {"scopes": ["CrossNamespacePodAffinity"]},
        ),
        ({}, {}),  # unscoped
    ],
)  # fmt: skip
def test_scoped_quota_the_gpu_pods_match_caps_them(pod: dict[str, Any], scopes: dict[str, Any]) -> None:
    assert verdicts(POLICY, [_trainer(pod), _scoped(**scopes)]) == []


def test_global_default_priority_class_is_the_pods_class() -> None:
    scoped = _scoped(**_selector("PriorityClass", "In", "gpu-baseline"))
    default = node(
        PC, "gpu-baseline", {"metadata": {"name": "gpu-baseline"}, "value": 1000, "globalDefault": True}
    )
    assert verdicts(POLICY, [default, _trainer(), scoped]) == []
    other = node(PC, "gpu-baseline", {"metadata": {"name": "gpu-baseline"}, "value": 1000})
    assert verdicts(POLICY, [other, _trainer(), scoped]) == [
        _outside("Job 'pretrain'", "'gpu-quota' (scopes: PriorityClass In [gpu-baseline])")
    ]


def test_each_workload_needs_a_quota_that_matches_it() -> None:
    baseline = _trainer({"priorityClassName": "gpu-baseline"}, name="pretrain")
    burst = _trainer({"priorityClassName": "gpu-burst"}, name="finetune")
    scoped = _scoped(**_selector("PriorityClass", "In", "gpu-baseline"))
    assert verdicts(POLICY, [baseline, burst, scoped]) == [
        (*_outside("Job 'finetune'", "'gpu-quota' (scopes: PriorityClass In [gpu-baseline])")[:3], "finetune")
    ]
    burst_quota = _scoped("burst-quota", **_selector("PriorityClass", "In", "gpu-burst"))
    assert verdicts(POLICY, [baseline, burst, scoped, burst_quota]) == []
