from __future__ import annotations

from typing import Any

from policies.k8s.gpu_namespace_quota import POLICY, RULE

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
