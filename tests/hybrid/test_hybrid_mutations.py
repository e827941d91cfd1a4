"""Mutations of the hybrid stack as recorded by the engine: each weakens one thing the fleet built
(a tunnel's crypto, a link route, the private route table, a baseline object, a scale-in policy) and
trips exactly its rule, naming the resource; the stack as built trips none."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from gpufleet.graph import Resource, ResourceGraph
from tests.hybrid.conftest import FLEET, ONPREM_NODES, judge
from tests.mutation.edits import add, apply, find, without
from tests.project_policy import judged

LINK = {
    "aws": f"{FLEET}-aws-us-east-1-link",
    "alicloud": f"{FLEET}-alicloud-cn-hangzhou-link",
    "tencentcloud": f"{FLEET}-tencentcloud-ap-guangzhou-link",
}
SLUG = ONPREM_NODES.replace(".", "-").replace("/", "-")
GPU = "nvidia.com/gpu"
# The baseline's PodDisruptionBudgets protect pods labelled as training work.
WORKER_LABELS = {"app": "gpu-worker", "gpufleet.io/workload": "training"}
COST_LABELS = ("project", "team", "cost-center", "env")


def _named(graph: ResourceGraph, name: str) -> Resource:
    (found,) = graph.named(name)
    return found


def _container(resource: Resource) -> dict[str, Any]:
    container: dict[str, Any] = resource.inputs["spec"]["template"]["spec"]["containers"][0]
    return container


def gpu_worker(graph: ResourceGraph, *, tolerate: bool = True) -> Resource:
    """The team's queue worker in the baseline's training namespace (the Deployment the ScaledObject
    scales), as the team declares it: one GPU, tolerating the GPU taint, at the baseline's priority."""
    namespace = _named(graph, f"{FLEET}-onprem-ns-training")
    spec: dict[str, Any] = {
        "priorityClassName": f"{FLEET}-baseline",
        "containers": [
            {
                "name": "worker",
                "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                "resources": {"limits": {GPU: "1"}, "requests": {GPU: "1"}},
                "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True},
                "env": [],
            }
        ],
    }
    if tolerate:
        spec["tolerations"] = [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]
    return add(
        graph,
        "kubernetes:apps/v1:Deployment",
        "gpu-worker",
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "gpu-worker",
                "namespace": "training",
                "labels": {key: namespace.inputs["metadata"]["labels"][key] for key in COST_LABELS},
            },
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": dict(WORKER_LABELS)},
                "template": {"metadata": {"labels": dict(WORKER_LABELS)}, "spec": spec},
            },
        },
        references={"metadata": [namespace]},
    )


def net_001_aws(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    vpn = _named(graph, f"{LINK['aws']}-vpn")
    vpn.inputs["tunnel1IkeVersions"] = ["ikev1", "ikev2"]
    return graph, vpn.name


def net_001_tencent(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    connection = _named(graph, f"{LINK['tencentcloud']}-ipsec")
    connection.inputs["ikeDhGroupName"] = "GROUP2"
    return graph, connection.name


def net_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # The AWS link routes the Alibaba site's VPC range instead of the on-prem nodes'.
    route = _named(graph, f"{LINK['aws']}-rt0-{SLUG}")
    route.inputs["destinationCidrBlock"] = "10.50.0.0/16"
    return graph, route.name


def net_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    vpc = find(graph, "network-vpc")
    table = find(graph, "network-private-rt")
    gateway = add(
        graph,
        "aws:ec2/internetGateway:InternetGateway",
        "fleet-igw",
        {"vpcId": vpc.id, "tags": dict(vpc.inputs["tags"])},
        references={"vpcId": [vpc]},
        resource_id="igw-0123456789abcdef0",
    )
    route = add(
        graph,
        "aws:ec2/route:Route",
        "fleet-default-route",
        {"routeTableId": table.id, "destinationCidrBlock": "0.0.0.0/0", "gatewayId": gateway.id},
        references={"routeTableId": [table], "gatewayId": [gateway]},
    )
    return graph, route.name


def k8s_001(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    return graph, gpu_worker(graph, tolerate=False).name


def k8s_002(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    worker = gpu_worker(graph)
    return without(graph, "onprem-quota-training"), worker.name


def k8s_003(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    plugin = find(graph, "onprem-device-plugin")
    _container(plugin)["securityContext"] = {"privileged": True}
    return graph, plugin.name


def cost_006(graph: ResourceGraph) -> tuple[ResourceGraph, str]:
    # A target-tracking policy on the joined pool's group, which cluster-autoscaler alone sizes: two
    # scalers fighting over one desired capacity.
    group = find(graph, "pool-burst-aws-asg")
    policy = add(
        graph,
        "aws:autoscaling/policy:Policy",
        "burst-cpu-target",
        {
            "autoscalingGroupName": group.outputs.get("name") or group.inputs.get("name"),
            "policyType": "TargetTrackingScaling",
            "estimatedInstanceWarmup": 300,
            "targetTrackingConfiguration": {
                "predefinedMetricSpecification": {"predefinedMetricType": "ASGAverageCPUUtilization"},
                "targetValue": 50,
            },
        },
        references={"autoscalingGroupName": [group]},
        resource_id="burst-cpu-target",
        state={"arn": "arn:aws:autoscaling:us-east-1:123456789012:policy/burst-cpu-target"},
    )
    return graph, policy.name


MUTATIONS: dict[str, tuple[str, Callable[[ResourceGraph], tuple[ResourceGraph, str]]]] = {
    "aws tunnel 1 still offers IKEv1": ("GF-NET-001", net_001_aws),
    "Tencent IKE on DH group 2": ("GF-NET-001", net_001_tencent),
    "AWS link routes another site's VPC range": ("GF-NET-002", net_002),
    "private route table routes 0.0.0.0/0 to an internet gateway": ("GF-NET-003", net_003),
    "queue worker does not tolerate the GPU taint": ("GF-K8S-001", k8s_001),
    "training namespace loses its GPU quota": ("GF-K8S-002", k8s_002),
    "device plugin runs privileged": ("GF-K8S-003", k8s_003),
    "a scaling policy on the group cluster-autoscaler sizes": ("GF-COST-006", cost_006),
}


def test_the_queue_worker_alone_keeps_the_stack_clean(hybrid: ResourceGraph) -> None:
    # The positive control for the Kubernetes mutations: a compliant GPU worker trips nothing, and with
    # it the quota rule judges the baseline's namespaces.
    graph, _ = apply(hybrid, lambda g: (g, gpu_worker(g).name))
    result = judge(graph)
    assert [(v.rule_id, v.message) for v in judged(result.violations)] == []
    assert "GF-K8S-002" not in {n["rule_id"] for n in result.not_applicable}


@pytest.mark.parametrize("what", list(MUTATIONS))
def test_mutation_trips_exactly_its_rule(hybrid: ResourceGraph, what: str) -> None:
    rule_id, mutate = MUTATIONS[what]
    before = copy.deepcopy(hybrid.to_json())
    graph, name = apply(hybrid, mutate)
    result = judge(graph)
    assert sorted({v.rule_id for v in judged(result.violations)}) == [rule_id], [
        (v.rule_id, v.message) for v in result.violations
    ]
    # The finding names the mutated resource: as the flagged resource, or in its message (a route
    # named beside the VPC it overlaps, a route table's route beside the pool in its subnet).
    assert any(v.urn.endswith(f"::{name}") or f"'{name}'" in v.message for v in result.violations), [
        (v.urn, v.message) for v in result.violations
    ]
    assert hybrid.to_json() == before
