"""OnPremBaseline under the recording mocks: the exact Kubernetes objects, and the policy pack over them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpufleet.components.baseline.kubernetes import TYPE, OnPremBaseline, OnPremBaselineArgs, label_value
from gpufleet.components.spec import parse_fleet
from gpufleet.components.spec.onprem import DCGM_EXPORTER_IMAGE, DEVICE_PLUGIN_IMAGE
from gpufleet.engine import run_program
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import Resource, ResourceGraph, make_secret
from gpufleet.policies.registry import default_registry
from tests.components.conftest import RecordingMocks, Registration, Runner
from tests.project_policy import project_policy_config

FLEET = "gpufleet-prod"
SQS = "https://sqs.eu-west-1.amazonaws.com/123456789012/gpu-jobs"
TAGS = {"project": "vision", "team": "ml platform", "cost-center": "cc-042", "env": "prod"}
LABELS = {
    "project": "vision",
    "team": "ml-platform",
    "cost-center": "cc-042",
    "env": "prod",
    "gpufleet.io/fleet": FLEET,
}
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
K8S_RULES = ("GF-K8S-001", "GF-K8S-002", "GF-K8S-003", "GF-K8S-004", "GF-K8S-005")


def onprem(**changes: Any) -> dict[str, Any]:
    section: dict[str, Any] = {
        "cluster": {"kubeconfig_context": "lab-admin"},
        "node_cidrs": ["192.168.16.0/20"],
        "pod_cidrs": ["10.244.0.0/17", "10.244.128.0/17"],
        "service_cidrs": ["10.96.0.0/16"],
        "gpu_nodes": {"names": ["gpu-01", "gpu-02"], "gpus_per_node": 8, "gpu_model": "A100"},
        "namespaces": {"training": {"gpus": 12}, "inference": {"gpus": 4}},
        "queue_scaler": {"queue": SQS, "queue_threshold": 5, "cooldown": "10m", "max_replicas": 16},
    }
    section.update(changes)
    return section


def spec_of(section: dict[str, Any]) -> Any:
    raw = {
        "environment": "prod",
        "tags": {k: v for k, v in TAGS.items() if k != "env"},
        "budget": {"monthly": 20000},
        "pools": {
            "burst": {
                "instance_types": ["p4d.24xlarge"],
                "size": {"max": 4},
                "workload": {"image_reads_queue": True},
            }
        },
        "onprem": section,
    }
    return parse_fleet(raw).onprem


def build(section: dict[str, Any], *, worker: bool = False) -> Callable[[], None]:
    def program() -> None:
        baseline = OnPremBaseline(
            "baseline", OnPremBaselineArgs(fleet=FLEET, onprem=spec_of(section), tags=TAGS)
        )
        if worker:
            _team_worker(baseline)

    return program


def _team_worker(baseline: OnPremBaseline) -> None:
    """The job workers' Deployment as a team declares it beside the baseline: GPU limits, the taint
    tolerated, the baseline priority class, the training label the disruption budget selects."""
    labels = {**LABELS, "app": "gpu-worker", "gpufleet.io/workload": "training"}
    spec: Any = {
        "selector": {"matchLabels": {"app": "gpu-worker"}},
        "template": {
            "metadata": {"labels": labels, "annotations": {"karpenter.sh/do-not-disrupt": "true"}},
            "spec": {
                "priorityClassName": baseline.priority_class_names["baseline"],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [
                    {
                        "name": "worker",
                        "image": "registry.example.com/worker@sha256:" + "1" * 64,
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
            },
        },
    }
    k8s.apps.v1.Deployment(
        "gpu-worker",
        metadata={"name": "gpu-worker", "namespace": "training", "labels": labels},
        spec=spec,
        opts=pulumi.ResourceOptions(provider=baseline.provider),
    )


def pod_spec(registration: Registration) -> dict[str, Any]:
    spec: dict[str, Any] = registration.inputs["spec"]["template"]["spec"]
    return spec


# -------------------------------------------------------------------------------------------- objects


def test_every_object_by_kind_and_name(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    assert mocks.names_by_type() == sorted(
        [
            (TYPE, "baseline"),
            ("pulumi:providers:kubernetes", "baseline-cluster"),
            ("kubernetes:core/v1:Namespace", "baseline-ns-training"),
            ("kubernetes:core/v1:Namespace", "baseline-ns-inference"),
            ("kubernetes:core/v1:ResourceQuota", "baseline-quota-training"),
            ("kubernetes:core/v1:ResourceQuota", "baseline-quota-inference"),
            ("kubernetes:policy/v1:PodDisruptionBudget", "baseline-training-training"),
            ("kubernetes:policy/v1:PodDisruptionBudget", "baseline-training-inference"),
            ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "baseline-priority-baseline"),
            ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "baseline-priority-burst"),
            ("kubernetes:core/v1:ConfigMap", "baseline-address-plan"),
            ("kubernetes:core/v1:NodePatch", "baseline-node-gpu-01"),
            ("kubernetes:core/v1:NodePatch", "baseline-node-gpu-02"),
            (DAEMON_SET, "baseline-device-plugin"),
            (DAEMON_SET, "baseline-dcgm-exporter"),
            (NETWORK_POLICY, "baseline-device-plugin-netpol"),
            (NETWORK_POLICY, "baseline-dcgm-exporter-netpol"),
            (SCALED_OBJECT, "baseline-workers"),
        ]
    )


def test_the_provider_is_the_named_context_with_server_side_apply(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    provider = mocks.one("pulumi:providers:kubernetes", "baseline-cluster")
    assert provider.inputs == {"context": "lab-admin", "enableServerSideApply": "true"}


def test_a_secret_kubeconfig_comes_from_stack_config(run_pulumi: Runner) -> None:
    pulumi.runtime.set_config("gpufleet:onpremKubeconfig", "apiVersion: v1\nkind: Config\n")
    mocks = run_pulumi(build(onprem(cluster={"kubeconfig_secret": "onpremKubeconfig"})))
    provider = mocks.one("pulumi:providers:kubernetes", "baseline-cluster")
    # The kubeconfig stays a secret on its way to the provider.
    assert provider.inputs["kubeconfig"] == make_secret("apiVersion: v1\nkind: Config\n")
    assert "context" not in provider.inputs
    # Every Kubernetes object goes through that provider, none through the ambient kubeconfig.
    assert all(r.type.startswith(("kubernetes:", "pulumi:", "gpufleet:")) for r in mocks.registrations)


def test_namespaces_quotas_and_training_budgets(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    for namespace, gpus in (("training", "12"), ("inference", "4")):
        created = mocks.one("kubernetes:core/v1:Namespace", f"baseline-ns-{namespace}")
        assert created.inputs["metadata"] == {
            "name": namespace,
            "labels": {
                **LABELS,
                "pod-security.kubernetes.io/enforce": "baseline",
                "pod-security.kubernetes.io/warn": "restricted",
            },
        }
        quota = mocks.one("kubernetes:core/v1:ResourceQuota", f"baseline-quota-{namespace}")
        assert quota.inputs["metadata"] == {"name": "gpu-quota", "namespace": namespace, "labels": LABELS}
        assert quota.inputs["spec"] == {"hard": {"requests.nvidia.com/gpu": gpus}}
        budget = mocks.one("kubernetes:policy/v1:PodDisruptionBudget", f"baseline-training-{namespace}")
        assert budget.inputs["metadata"]["namespace"] == namespace
        assert budget.inputs["spec"] == {
            "maxUnavailable": 0,
            "selector": {"matchLabels": {"gpufleet.io/workload": "training"}},
        }


def test_priority_classes_rank_baseline_above_burst(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem(priorities={"baseline": 50000, "burst": 100})))
    baseline = mocks.one("kubernetes:scheduling.k8s.io/v1:PriorityClass", "baseline-priority-baseline")
    burst = mocks.one("kubernetes:scheduling.k8s.io/v1:PriorityClass", "baseline-priority-burst")
    assert (baseline.inputs["metadata"]["name"], baseline.inputs["value"]) == (
        "gpufleet-prod-baseline",
        50000,
    )
    assert (burst.inputs["metadata"]["name"], burst.inputs["value"]) == ("gpufleet-prod-burst", 100)
    assert baseline.inputs["preemptionPolicy"] == "PreemptLowerPriority"
    assert burst.inputs["preemptionPolicy"] == "Never"
    assert baseline.inputs["globalDefault"] is False
    assert burst.inputs["globalDefault"] is False


def test_named_gpu_nodes_are_tainted_and_labelled(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    for node in ("gpu-01", "gpu-02"):
        patch = mocks.one("kubernetes:core/v1:NodePatch", f"baseline-node-{node}")
        assert patch.inputs["metadata"] == {
            "name": node,
            "labels": {
                "nvidia.com/gpu.present": "true",
                "gpufleet.io/gpu-model": "A100",
                "gpufleet.io/capacity": "baseline",
            },
        }
        assert patch.inputs["spec"] == {
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        }


def test_selected_gpu_nodes_are_not_patched_and_the_daemons_follow_the_selector(run_pulumi: Runner) -> None:
    nodes = {
        "selector": {"node.example.com/gpu": "a100"},
        "count": 4,
        "gpus_per_node": 8,
        "gpu_model": "A100",
    }
    mocks = run_pulumi(build(onprem(gpu_nodes=nodes)))
    assert mocks.of_type("kubernetes:core/v1:NodePatch") == []
    for daemon in mocks.of_type(DAEMON_SET):
        assert pod_spec(daemon)["nodeSelector"] == {"node.example.com/gpu": "a100"}


def test_gpu_daemons_are_pinned_unprivileged_and_mount_one_kubelet_directory(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    expected = {
        "baseline-device-plugin": (
            "gpufleet-prod-nvidia-device-plugin",
            DEVICE_PLUGIN_IMAGE,
            {
                "name": "device-plugins",
                "hostPath": {"path": "/var/lib/kubelet/device-plugins", "type": "Directory"},
            },
            {"name": "device-plugins", "mountPath": "/var/lib/kubelet/device-plugins"},
        ),
        "baseline-dcgm-exporter": (
            "gpufleet-prod-dcgm-exporter",
            DCGM_EXPORTER_IMAGE,
            {
                "name": "pod-resources",
                "hostPath": {"path": "/var/lib/kubelet/pod-resources", "type": "Directory"},
            },
            {"name": "pod-resources", "mountPath": "/var/lib/kubelet/pod-resources", "readOnly": True},
        ),
    }
    for name, (object_name, image, volume, mount) in expected.items():
        daemon = mocks.one(DAEMON_SET, name)
        assert daemon.inputs["metadata"]["name"] == object_name
        assert daemon.inputs["metadata"]["namespace"] == "kube-system"
        spec = pod_spec(daemon)
        assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
        assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
        assert spec["priorityClassName"] == "system-node-critical"
        assert spec["automountServiceAccountToken"] is False
        assert "hostNetwork" not in spec
        assert "hostPID" not in spec
        # The one kubelet directory; beside it only the exporter's emptyDir scratch space (tests/baseline).
        assert [v for v in spec["volumes"] if "hostPath" in v] == [volume]
        [container] = spec["containers"]
        assert container["image"] == image
        assert container["volumeMounts"][0] == mount
        assert container["securityContext"] == {
            "privileged": False,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        }
        assert "nvidia.com/gpu" not in container["resources"]["limits"]
        selector = daemon.inputs["spec"]["selector"]["matchLabels"]
        assert selector == {"app.kubernetes.io/name": object_name, "gpufleet.io/fleet": FLEET}
        assert daemon.inputs["spec"]["template"]["metadata"]["labels"] == {**LABELS, **selector}


def test_a_cluster_with_its_own_gpu_daemons_gets_none_from_the_baseline(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem(gpu_daemons="existing")))
    assert mocks.of_type(DAEMON_SET) == []
    # Quotas, priorities, taints and the scaler do not depend on who runs the daemons.
    assert len(mocks.of_type("kubernetes:core/v1:NodePatch")) == 2
    assert len(mocks.of_type(SCALED_OBJECT)) == 1


def test_the_scaled_object_carries_the_queue_threshold_and_cooldown(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    scaled = mocks.one(SCALED_OBJECT, "baseline-workers")
    assert scaled.inputs["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled.inputs["kind"] == "ScaledObject"
    assert scaled.inputs["metadata"] == {"name": "gpu-worker", "namespace": "training", "labels": LABELS}
    assert scaled.inputs["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gpu-worker"},
        "pollingInterval": 30,
        "cooldownPeriod": 600,
        "minReplicaCount": 0,
        "maxReplicaCount": 16,
        "advanced": {
            "horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 600}}}
        },
        "triggers": [
            {
                "type": "aws-sqs-queue",
                "metadata": {
                    "queueURL": SQS,
                    "queueLength": "5",
                    "awsRegion": "eu-west-1",
                    "identityOwner": "operator",
                },
            }
        ],
    }


@pytest.mark.parametrize(
    ("scaler", "trigger"),
    [
        (
            {"source": "redis", "queue": "jobs", "host": "redis.queue:6379", "namespace": "inference"},
            {
                "type": "redis",
                "metadata": {"address": "redis.queue:6379", "listName": "jobs", "listLength": "10"},
            },
        ),
        (
            {"source": "rabbitmq", "queue": "jobs", "authentication": "rabbit-auth", "queue_threshold": 3},
            {
                "type": "rabbitmq",
                "metadata": {"protocol": "auto", "queueName": "jobs", "mode": "QueueLength", "value": "3"},
                "authenticationRef": {"name": "rabbit-auth"},
            },
        ),
        (
            {"queue": SQS, "authentication": "sqs-auth"},
            {
                "type": "aws-sqs-queue",
                "metadata": {"queueURL": SQS, "queueLength": "10", "awsRegion": "eu-west-1"},
                "authenticationRef": {"name": "sqs-auth"},
            },
        ),
    ],
)
def test_other_queue_sources(run_pulumi: Runner, scaler: dict[str, Any], trigger: dict[str, Any]) -> None:
    mocks = run_pulumi(build(onprem(queue_scaler=scaler)))
    scaled = mocks.one(SCALED_OBJECT, "baseline-workers")
    assert scaled.inputs["spec"]["triggers"] == [trigger]
    assert scaled.inputs["metadata"]["namespace"] == scaler.get("namespace", "training")


def test_no_queue_scaler_no_scaled_object(run_pulumi: Runner) -> None:
    section = onprem()
    del section["queue_scaler"]
    assert run_pulumi(build(section)).of_type(SCALED_OBJECT) == []


def test_the_address_plan_is_recorded_for_the_network_rule(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem()))
    plan = mocks.one("kubernetes:core/v1:ConfigMap", "baseline-address-plan")
    assert plan.inputs["metadata"]["annotations"] == {
        "gpufleet.io/node-cidr": "192.168.16.0/20",
        "gpufleet.io/pod-cidr": "10.244.0.0/17,10.244.128.0/17",
        "gpufleet.io/service-cidr": "10.96.0.0/16",
    }


def test_outputs(run_pulumi: Runner) -> None:
    built: list[OnPremBaseline] = []

    def program() -> None:
        built.append(
            OnPremBaseline("baseline", OnPremBaselineArgs(fleet=FLEET, onprem=spec_of(onprem()), tags=TAGS))
        )

    run_pulumi(program)
    [baseline] = built
    assert baseline.namespaces == ["training", "inference"]
    assert baseline.priority_class_names == {
        "baseline": "gpufleet-prod-baseline",
        "burst": "gpufleet-prod-burst",
    }
    assert baseline.gpu_count == 16


@pytest.mark.parametrize(
    ("value", "label"), [("ml platform", "ml-platform"), ("--x--", "x"), ("a" * 70, "a" * 63), ("é", "")]
)
def test_label_values(value: str, label: str) -> None:
    assert label_value(value) == label


# ------------------------------------------------------------------------------------- the policy pack


def graph_of(mocks: RecordingMocks) -> ResourceGraph:
    graph = ResourceGraph(project="gpufleet", stack="prod")
    for registration in mocks.registrations:
        urn = f"urn:pulumi:prod::gpufleet::{registration.type}::{registration.name}"
        graph.add(
            Resource(
                urn,
                registration.type,
                registration.name,
                registration.custom,
                copy.deepcopy(registration.inputs),
            )
        )
    return graph


def k8s_findings(graph: ResourceGraph) -> list[tuple[str, str]]:
    result = evaluate_stack(graph, list(default_registry()), project_policy_config())
    return sorted((v.rule_id, v.message) for v in result.violations if v.rule_id.startswith("GF-K8S"))


@pytest.fixture
def recorded(run_pulumi: Runner) -> ResourceGraph:
    return graph_of(run_pulumi(build(onprem(), worker=True)))


def test_the_pack_judges_the_baseline_clean(recorded: ResourceGraph) -> None:
    result = evaluate_stack(recorded, list(default_registry()), project_policy_config())
    assert [(v.rule_id, v.message) for v in result.violations] == []
    skipped = {n["rule_id"] for n in result.not_applicable}
    # Each Kubernetes rule judged something: none was skipped as not applicable.
    assert skipped.isdisjoint(K8S_RULES)


def _inputs(graph: ResourceGraph, name: str) -> dict[str, Any]:
    [resource] = graph.named(name)
    return resource.inputs


def _without(graph: ResourceGraph, *names: str) -> ResourceGraph:
    trimmed = ResourceGraph(project=graph.project, stack=graph.stack)
    for resource in graph:
        if resource.name not in names:
            trimmed.add(resource)
    return trimmed


def test_untolerated_worker_trips_k8s_001(recorded: ResourceGraph) -> None:
    pod_spec_ = _inputs(recorded, "gpu-worker")["spec"]["template"]["spec"]
    pod_spec_["tolerations"] = []
    assert [rule for rule, _ in k8s_findings(recorded)] == ["GF-K8S-001"]


def test_a_missing_quota_trips_k8s_002(recorded: ResourceGraph) -> None:
    findings = k8s_findings(_without(recorded, "baseline-quota-training"))
    assert findings == [
        (
            "GF-K8S-002",
            "Namespace 'training' runs GPU workloads (Deployment 'gpu-worker') but has no ResourceQuota with "
            "hard requests.nvidia.com/gpu; add one to cap the namespace's GPUs",
        )
    ]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda spec: spec["volumes"][0]["hostPath"].update(path="/var/lib/kubelet"),
            "DaemonSet 'baseline-device-plugin' mounts hostPath volume 'device-plugins' "
            "(/var/lib/kubelet); use a persistentVolumeClaim, emptyDir, configMap or secret volume instead",
        ),
        (
            lambda spec: spec["containers"][0]["securityContext"].update(privileged=True),
            "DaemonSet 'baseline-device-plugin' container 'nvidia-device-plugin' is privileged; "
            "remove securityContext.privileged",
        ),
    ],
)
def test_host_access_beyond_the_device_plugin_directory_trips_k8s_003(
    recorded: ResourceGraph, mutate: Callable[[dict[str, Any]], None], message: str
) -> None:
    mutate(_inputs(recorded, "baseline-device-plugin")["spec"]["template"]["spec"])
    assert k8s_findings(recorded) == [("GF-K8S-003", message)]


def test_writable_pod_resources_trips_k8s_003(recorded: ResourceGraph) -> None:
    container = _inputs(recorded, "baseline-dcgm-exporter")["spec"]["template"]["spec"]["containers"][0]
    container["volumeMounts"][0]["readOnly"] = False
    assert [rule for rule, _ in k8s_findings(recorded)] == ["GF-K8S-003"]


def test_no_training_budget_trips_k8s_004(recorded: ResourceGraph) -> None:
    findings = k8s_findings(_without(recorded, "baseline-training-training"))
    assert findings == [
        (
            "GF-K8S-004",
            "Deployment 'gpu-worker' runs GPU work but no PodDisruptionBudget in namespace 'training' "
            "selects its pods; add one whose selector matches its pod template labels",
        )
    ]


def test_no_priority_classes_trips_k8s_004(recorded: ResourceGraph) -> None:
    findings = k8s_findings(_without(recorded, "baseline-priority-baseline", "baseline-priority-burst"))
    assert [rule for rule, _ in findings] == ["GF-K8S-004"]


def test_a_plain_credential_in_a_daemon_trips_k8s_005(recorded: ResourceGraph) -> None:
    container = _inputs(recorded, "baseline-dcgm-exporter")["spec"]["template"]["spec"]["containers"][0]
    container["env"].append({"name": "AWS_SECRET_ACCESS_KEY", "value": "not-a-real-secret"})
    assert [rule for rule, _ in k8s_findings(recorded)] == ["GF-K8S-005"]


# ------------------------------------------------------------------------------- as a real program

PROGRAM = """
import pulumi
from gpufleet.components.spec import load_fleet_from_config
from gpufleet.components.baseline.kubernetes import OnPremBaseline, OnPremBaselineArgs

spec = load_fleet_from_config(
    {
        "gpufleet:fleet": pulumi.Config("gpufleet").require_object("fleet"),
        "aws:region": pulumi.Config("aws").get("region"),
    }
)
baseline = OnPremBaseline("lab", OnPremBaselineArgs(fleet="lab", onprem=spec.onprem, tags=spec.cost_tags))
pulumi.export("gpus", baseline.gpu_count)
"""

STACK = """
config:
  aws:region: us-east-1
  gpufleet:onpremKubeconfig:
    secure: AAABAJk=
  gpufleet:fleet:
    environment: prod
    tags: {project: vision, team: ml-platform, cost-center: cc-042}
    budget: {monthly: 20000}
    pools:
      burst: {instance_types: [p4d.24xlarge], size: {max: 4}, workload: {image_reads_queue: true}}
    onprem:
      cluster: {kubeconfig_secret: onpremKubeconfig}
      node_cidrs: 192.168.16.0/20
      pod_cidrs: [10.244.0.0/16]
      service_cidrs: [10.96.0.0/16]
      gpu_nodes: {names: [gpu-01], gpus_per_node: 8, gpu_model: H100}
      namespaces: {training: {gpus: 8}}
      queue_scaler: {queue: "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"}
"""


def test_the_offline_engine_runs_the_baseline_on_its_own_provider(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: lab\nruntime: python\n", encoding="utf-8")
    (tmp_path / "Pulumi.lab.yaml").write_text(STACK, encoding="utf-8")
    (tmp_path / "__main__.py").write_text(PROGRAM, encoding="utf-8")
    graph = run_program(tmp_path, "lab")
    [provider] = graph.of_type("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == make_secret("[secret: not decrypted offline]")
    objects = [r for r in graph.custom_resources() if r.type.startswith("kubernetes:")]
    assert sorted(r.name for r in objects) == [
        "lab-address-plan",
        "lab-dcgm-exporter",
        "lab-dcgm-exporter-netpol",
        "lab-device-plugin",
        "lab-device-plugin-netpol",
        "lab-node-gpu-01",
        "lab-ns-training",
        "lab-priority-baseline",
        "lab-priority-burst",
        "lab-quota-training",
        "lab-training-training",
        "lab-workers",
    ]
    assert {r.provider for r in objects} == {provider.urn}
    assert graph.outputs["gpus"] == 8
    result = evaluate_stack(graph, list(default_registry()), project_policy_config())
    assert [(v.rule_id, v.message) for v in result.violations] == []
