from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.k8s.gpu_taint_toleration import POLICY, RULE
from gpufleet.policies.rule import GfStackPolicy

from .helpers import UNKNOWN_STRING_VALUE, res, run_stack

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
JOB = "kubernetes:batch/v1:Job"
CRONJOB = "kubernetes:batch/v1:CronJob"
EKS = "aws:eks/nodeGroup:NodeGroup"
ACK = "alicloud:cs/nodePool:NodePool"
TKE = "tencentcloud:Kubernetes/nodePool:NodePool"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
NO_TOLERATION = (
    "Deployment 'trainer' uses nvidia.com/gpu but does not tolerate the nvidia.com/gpu=present:NoSchedule "
    "taint; add a toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"
)


def run_resource(
    policy: GfStackPolicy, resource_type: str, props: Mapping[str, Any], *, name: str, proxy: bool = False
) -> list[str]:
    """Judge one resource as a stack of one; every finding must be at that resource's URN."""
    resource = res(resource_type, name, props, proxy=proxy)
    found = run_stack(policy, [resource])
    assert not isinstance(found, str), found
    assert {urn for _, urn in found} <= {resource.urn}, found
    return [message for message, _ in found]


def pod(**changes: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {"name": "train", "image": "trainer:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
        ],
        "tolerations": [TOLERATION],
    }
    spec.update(changes)
    return spec


def deployment(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"namespace": "train"},
        "spec": {"template": {"metadata": {"labels": {"app": "t"}}, "spec": spec}},
    }


def test_metadata() -> None:
    assert RULE.id == "GF-K8S-001"
    assert RULE.clouds == ("kubernetes",)


def test_gpu_deployment_with_limit_and_toleration() -> None:
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod()), name="trainer") == []
    equal = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod(tolerations=[equal])), name="trainer") == []


def test_cpu_workload_needs_nothing() -> None:
    spec = {"containers": [{"name": "web", "image": "nginx"}]}
    assert run_resource(POLICY, DEPLOYMENT, deployment(spec), name="web") == []


def test_missing_toleration() -> None:
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod(tolerations=[])), name="trainer") == [
        NO_TOLERATION
    ]
    wrong_effect = {**TOLERATION, "effect": "NoExecute"}
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod(tolerations=[wrong_effect])), name="trainer") == [
        NO_TOLERATION
    ]


def test_request_without_limit() -> None:
    spec = pod(containers=[{"name": "train", "resources": {"requests": {"nvidia.com/gpu": 2}}}])
    assert run_resource(POLICY, DEPLOYMENT, deployment(spec), name="trainer") == [
        "Deployment 'trainer' container 'train' requests nvidia.com/gpu without a limit; "
        "set resources.limits['nvidia.com/gpu']"
    ]


def test_cronjob_nesting_and_init_containers() -> None:
    spec = {
        "initContainers": [{"name": "warm", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        "containers": [],
    }
    props = {"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}}
    assert run_resource(POLICY, CRONJOB, props, name="nightly") == [
        "CronJob 'nightly' init container 'warm' requests nvidia.com/gpu without a limit; "
        "set resources.limits['nvidia.com/gpu']",
        "CronJob 'nightly' uses nvidia.com/gpu but does not tolerate the nvidia.com/gpu=present:NoSchedule "
        "taint; add a toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
    ]


def test_node_pools() -> None:
    taint_eks = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
    taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    assert (
        run_resource(POLICY, EKS, {"instanceTypes": ["g5.2xlarge"], "taints": [taint_eks]}, name="gpu") == []
    )
    assert run_resource(POLICY, EKS, {"instanceTypes": ["m5.large"]}, name="cpu") == []
    assert run_resource(POLICY, EKS, {"amiType": "AL2023_x86_64_NVIDIA", "taints": [taint]}, name="gpu") == [
        "GPU node pool 'gpu' is not tainted nvidia.com/gpu=present:NoSchedule; add taint key nvidia.com/gpu, "
        "value present, effect NO_SCHEDULE, so only GPU workloads land on it"
    ]
    assert (
        run_resource(POLICY, ACK, {"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], "taints": [taint]}, name="a")
        == []
    )
    assert run_resource(POLICY, ACK, {"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"]}, name="a") == [
        "GPU node pool 'a' is not tainted nvidia.com/gpu=present:NoSchedule; add taint key nvidia.com/gpu, "
        "value present, effect NoSchedule, so only GPU workloads land on it"
    ]
    tke = {"autoScalingConfig": {"instanceType": "GN7.2XLARGE32"}, "taints": [taint]}
    assert run_resource(POLICY, TKE, tke, name="t") == []
    assert len(run_resource(POLICY, TKE, {**tke, "taints": []}, name="t")) == 1


def test_unknown_gpu_quantity_is_not_a_pass() -> None:
    spec = pod(
        containers=[{"name": "train", "resources": {"limits": {"nvidia.com/gpu": UNKNOWN_STRING_VALUE}}}]
    )
    assert run_resource(POLICY, JOB, {"spec": {"template": {"spec": spec}}}, name="j", proxy=True) == [
        "could not be judged at preview: the string value at "
        ".spec.template.spec.containers.0.resources.limits"
        ".nvidia.com/gpu can't be known during preview"
    ]


def test_proxied_props() -> None:
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod()), name="trainer", proxy=True) == []
    assert run_resource(POLICY, DEPLOYMENT, deployment(pod(tolerations=[])), name="trainer", proxy=True) == [
        NO_TOLERATION
    ]


LT = "aws:ec2/launchTemplate:LaunchTemplate"
UNTAINTED_LT_GROUP = (
    "GPU node pool 'ng' is not tainted nvidia.com/gpu=present:NoSchedule; add taint key nvidia.com/gpu, "
    "value present, effect NO_SCHEDULE, so only GPU workloads land on it"
)


def test_node_group_gpu_type_from_its_launch_template() -> None:
    template = res(LT, "gpu-lt", {"instanceType": "g5.2xlarge"})
    by_reference = res(
        EKS,
        "ng",
        {"launchTemplate": {"id": UNKNOWN_STRING_VALUE, "version": "1"}, "scalingConfig": {"maxSize": 2}},
        prop_deps={"launchTemplate": [template]},
    )
    assert run_stack(POLICY, [template, by_reference]) == [(UNTAINTED_LT_GROUP, by_reference.urn)]
    by_name = res(EKS, "ng", {"launchTemplate": {"name": "gpu-lt", "version": "$Latest"}})
    assert run_stack(POLICY, [template, by_name]) == [(UNTAINTED_LT_GROUP, by_name.urn)]
    taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
    tainted = res(EKS, "ng", {"launchTemplate": {"name": "gpu-lt", "version": "1"}, "taints": [taint]})
    assert run_stack(POLICY, [template, tainted]) == []


def test_node_group_launch_template_cpu_absent_or_unknown_type() -> None:
    cpu = res(LT, "cpu-lt", {"instanceType": "m5.large"})
    group = res(EKS, "ng", {"launchTemplate": {"name": "cpu-lt", "version": "1"}})
    assert run_stack(POLICY, [cpu, group]) == []
    # A template outside the stack cannot be read: the node group is judged by its AMI type only.
    external = res(EKS, "ng", {"launchTemplate": {"id": "lt-0123456789abcdef0", "version": "1"}})
    assert run_stack(POLICY, [external]) == []
    pending = res(LT, "gpu-lt", {"instanceType": UNKNOWN_STRING_VALUE})
    group = res(EKS, "ng", {"launchTemplate": {"name": "gpu-lt", "version": "1"}})
    assert run_stack(POLICY, [pending, group]) == [
        (
            "could not be judged at preview: the string value at .gpu-lt.instanceType can't be known "
            "during preview",
            group.urn,
        )
    ]
