"""GF-K8S-001 on Karpenter NodePools written as CustomResources: a pool that provisions GPU nodes must
taint them like any other GPU node pool."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.k8s.gpu_taint_toleration import POLICY

from .helpers import UNKNOWN_STRING_VALUE
from .test_gpu_taint_toleration import run_resource

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
UNTAINTED = (
    "GPU node pool 'gpu' (spec.template.spec.taints) is not tainted nvidia.com/gpu=present:NoSchedule; "
    "add taint key nvidia.com/gpu, value present, effect NoSchedule, so only GPU workloads land on it"
)


def node_pool(requirements: list[dict[str, Any]], taints: list[Any], limits: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {
            "spec": {
                "requirements": requirements,
                "taints": taints,
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            }
        }
    }
    if limits is not None:
        spec["limits"] = limits
    return {"metadata": {"name": "gpu"}, "spec": spec}


GPU_REQUIREMENTS = {
    "gpu-name": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["a10g"]}],
    "gpu-count": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}],
    "instance-type": [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.2xlarge"]}
    ],
    "family": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}],
    "category": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["g"]}],
}


@pytest.mark.parametrize("selector", sorted(GPU_REQUIREMENTS))
def test_gpu_node_pool_without_the_taint_fails(selector: str) -> None:
    props = node_pool(GPU_REQUIREMENTS[selector], [])
    assert run_resource(POLICY, NODE_POOL, props, name="gpu") == [UNTAINTED]


@pytest.mark.parametrize("selector", sorted(GPU_REQUIREMENTS))
def test_tainted_gpu_node_pool_passes(selector: str) -> None:
    props = node_pool(GPU_REQUIREMENTS[selector], [TAINT])
    assert run_resource(POLICY, NODE_POOL, props, name="gpu", proxy=True) == []


def test_gpu_limit_alone_makes_it_a_gpu_pool() -> None:
    props = node_pool([], [], limits={"cpu": "100", "nvidia.com/gpu": "8"})
    assert run_resource(POLICY, "kubernetes:karpenter.sh/v1beta1:NodePool", props, name="gpu") == [UNTAINTED]


def test_startup_taint_does_not_count() -> None:
    props = node_pool(GPU_REQUIREMENTS["gpu-name"], [])
    props["spec"]["template"]["spec"]["startupTaints"] = [TAINT]
    assert run_resource(POLICY, NODE_POOL, props, name="gpu") == [UNTAINTED]


def test_cpu_node_pool_is_not_judged() -> None:
    cpu: list[dict[str, Any]] = [
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m"]},
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "DoesNotExist"},
    ]
    assert run_resource(POLICY, NODE_POOL, node_pool(cpu, []), name="gpu") == []


def test_unknown_taints_could_not_be_judged() -> None:
    props = node_pool(GPU_REQUIREMENTS["gpu-name"], UNKNOWN_STRING_VALUE)  # type: ignore[arg-type]
    (message,) = run_resource(POLICY, NODE_POOL, props, name="gpu")
    assert message.startswith("could not be judged at preview")
