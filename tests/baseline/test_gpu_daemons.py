"""The on-prem baseline's two GPU daemons and their NetworkPolicies, exactly as registered: what checkov's
Kubernetes checks ask of them, and the per-object skips (with reasons) for what cannot be fixed."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from gpufleet.components.baseline.kubernetes import OnPremBaseline, OnPremBaselineArgs, skip_annotations
from gpufleet.components.spec import SpecError, parse_fleet
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.components.conftest import RecordingMocks, Registration, Runner
from tests.project_policy import project_policy_config

FLEET = "lab"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
PLUGIN_SELECTOR = {"app.kubernetes.io/name": "lab-nvidia-device-plugin", "gpufleet.io/fleet": FLEET}
EXPORTER_SELECTOR = {"app.kubernetes.io/name": "lab-dcgm-exporter", "gpufleet.io/fleet": FLEET}
LABELS = {"project": "vision", "gpufleet.io/fleet": FLEET}
PLUGIN_ROOT = (
    "CKV_K8S_{}=the device plugin creates its registration socket in the kubelet's root-owned "
    "/var/lib/kubelet/device-plugins directory, so it runs as root (all capabilities dropped, "
    "no privilege escalation, read-only root file system)"
)
EXPORTER_ROOT = (
    "CKV_K8S_{}=the exporter connects to the kubelet's root-only pod-resources socket to attribute GPUs "
    "to pods, and DCGM's embedded host engine expects root, so it runs as root (all capabilities "
    "dropped, no SYS_ADMIN, no privilege escalation, read-only root file system)"
)
EXPORTER_ALL_GPUS = (
    "CKV_GPUF_7=a monitoring daemon: the DCGM exporter reads every GPU of its node to report on it and "
    "allocates none (no nvidia.com/gpu request); the image sets NVIDIA_VISIBLE_DEVICES to all in any case"
)
ROOT_POD_SECURITY = {
    "runAsUser": 0,
    "runAsGroup": 0,
    "runAsNonRoot": False,
    "seccompProfile": {"type": "RuntimeDefault"},
}
CONTAINER_SECURITY = {
    "privileged": False,
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def onprem(**changes: Any) -> dict[str, Any]:
    section: dict[str, Any] = {
        "cluster": {"kubeconfig_context": "lab-admin"},
        "node_cidrs": ["192.168.16.0/20"],
        "pod_cidrs": ["10.244.0.0/16"],
        "service_cidrs": ["10.96.0.0/16"],
        "gpu_nodes": {"names": ["gpu-01"], "gpus_per_node": 8, "gpu_model": "A100"},
        "namespaces": {"training": {"gpus": 8}},
    }
    section.update(changes)
    return section


def fleet(section: dict[str, Any]) -> dict[str, Any]:
    return {
        "environment": "prod",
        "tags": {"project": "vision", "team": "ml", "cost-center": "cc-1"},
        "budget": {"monthly": 1000},
        "pools": {
            "burst": {
                "instance_types": ["p4d.24xlarge"],
                "workload": {"image_reads_queue": True},
                "size": {"max": 2},
            }
        },
        "onprem": section,
    }


def build(section: dict[str, Any]) -> Callable[[], None]:
    def program() -> None:
        spec = parse_fleet(fleet(section)).onprem
        assert spec is not None
        OnPremBaseline("lab", OnPremBaselineArgs(fleet=FLEET, onprem=spec, tags={"project": "vision"}))

    return program


def pod(registration: Registration) -> dict[str, Any]:
    spec: dict[str, Any] = registration.inputs["spec"]["template"]["spec"]
    return spec


def container(registration: Registration) -> dict[str, Any]:
    [only] = pod(registration)["containers"]
    result: dict[str, Any] = only
    return result


@pytest.fixture
def lab(run_pulumi: Runner) -> RecordingMocks:
    return run_pulumi(build(onprem()))


# ----------------------------------------------------------------------------------- device plugin


def test_the_device_plugin_is_probed_through_its_registration_socket(lab: RecordingMocks) -> None:
    plugin = container(lab.one(DAEMON_SET, "lab-device-plugin"))
    probe = {"exec": {"command": ["test", "-S", "/var/lib/kubelet/device-plugins/nvidia-gpu.sock"]}}
    assert plugin["readinessProbe"] == {**probe, "periodSeconds": 10}
    assert plugin["livenessProbe"] == {
        **probe,
        "initialDelaySeconds": 30,
        "periodSeconds": 30,
        "failureThreshold": 3,
    }
    assert "ports" not in plugin


def test_the_device_plugin_is_limited_confined_and_runs_as_root_for_a_stated_reason(
    lab: RecordingMocks,
) -> None:
    daemon = lab.one(DAEMON_SET, "lab-device-plugin")
    plugin = container(daemon)
    assert plugin["resources"] == {
        "requests": {"cpu": "50m", "memory": "64Mi"},
        "limits": {"cpu": "200m", "memory": "256Mi"},
    }
    assert plugin["securityContext"] == CONTAINER_SECURITY
    assert pod(daemon)["securityContext"] == ROOT_POD_SECURITY
    assert pod(daemon)["volumes"] == [
        {
            "name": "device-plugins",
            "hostPath": {"path": "/var/lib/kubelet/device-plugins", "type": "Directory"},
        }
    ]
    assert daemon.inputs["metadata"]["annotations"] == {
        "checkov.io/skip1": PLUGIN_ROOT.format(23),
        "checkov.io/skip2": PLUGIN_ROOT.format(40),
    }
    # The skips ride on the DaemonSet, where checkov reads them: the pods carry none.
    assert "annotations" not in daemon.inputs["spec"]["template"]["metadata"]


# ---------------------------------------------------------------------------------- DCGM exporter


def test_the_exporter_is_probed_on_its_health_endpoint(lab: RecordingMocks) -> None:
    exporter = container(lab.one(DAEMON_SET, "lab-dcgm-exporter"))
    health = {"httpGet": {"path": "/health", "port": 9400, "scheme": "HTTP"}}
    assert exporter["readinessProbe"] == {**health, "initialDelaySeconds": 45, "periodSeconds": 10}
    assert exporter["livenessProbe"] == {
        **health,
        "initialDelaySeconds": 45,
        "periodSeconds": 30,
        "failureThreshold": 3,
    }
    assert exporter["ports"] == [{"name": "metrics", "containerPort": 9400}]


def test_the_exporter_is_limited_confined_and_writes_only_to_its_scratch_space(lab: RecordingMocks) -> None:
    daemon = lab.one(DAEMON_SET, "lab-dcgm-exporter")
    exporter = container(daemon)
    assert exporter["resources"] == {
        "requests": {"cpu": "100m", "memory": "128Mi"},
        "limits": {"cpu": "500m", "memory": "512Mi"},
    }
    assert exporter["securityContext"] == CONTAINER_SECURITY
    assert "SYS_ADMIN" not in str(exporter["securityContext"])
    assert pod(daemon)["securityContext"] == ROOT_POD_SECURITY
    assert pod(daemon)["volumes"] == [
        {
            "name": "pod-resources",
            "hostPath": {"path": "/var/lib/kubelet/pod-resources", "type": "Directory"},
        },
        {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
    ]
    assert exporter["volumeMounts"] == [
        {"name": "pod-resources", "mountPath": "/var/lib/kubelet/pod-resources", "readOnly": True},
        {"name": "tmp", "mountPath": "/tmp"},
    ]
    assert exporter["env"] == [
        {"name": "DCGM_EXPORTER_KUBERNETES", "value": "true"},
        {"name": "DCGM_EXPORTER_LISTEN", "value": ":9400"},
        {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
        {"name": "NO_SETCAP", "value": "true"},
    ]
    assert daemon.inputs["metadata"]["annotations"] == {
        "checkov.io/skip1": EXPORTER_ALL_GPUS,
        "checkov.io/skip2": EXPORTER_ROOT.format(23),
        "checkov.io/skip3": EXPORTER_ROOT.format(40),
    }


# ------------------------------------------------------------------------------- NetworkPolicies


def test_the_device_plugin_gets_no_connection_in_or_out(lab: RecordingMocks) -> None:
    policy = lab.one(NETWORK_POLICY, "lab-device-plugin-netpol")
    assert policy.inputs["metadata"] == {
        "name": "lab-nvidia-device-plugin",
        "namespace": "kube-system",
        "labels": LABELS,
    }
    assert policy.inputs["spec"] == {
        "podSelector": {"matchLabels": PLUGIN_SELECTOR},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [],
        "egress": [],
    }


def test_the_exporter_takes_only_its_metrics_port_from_the_monitoring_namespace(lab: RecordingMocks) -> None:
    policy = lab.one(NETWORK_POLICY, "lab-dcgm-exporter-netpol")
    assert policy.inputs["metadata"] == {
        "name": "lab-dcgm-exporter",
        "namespace": "kube-system",
        "labels": LABELS,
    }
    assert policy.inputs["spec"] == {
        "podSelector": {"matchLabels": EXPORTER_SELECTOR},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [
                    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
                ],
                "ports": [{"protocol": "TCP", "port": 9400}],
            }
        ],
        "egress": [],
    }


def test_the_policies_select_each_daemons_pods_and_nothing_else_of_kube_system(lab: RecordingMocks) -> None:
    for daemon, policy in (
        ("lab-device-plugin", "lab-device-plugin-netpol"),
        ("lab-dcgm-exporter", "lab-dcgm-exporter-netpol"),
    ):
        labels = lab.one(DAEMON_SET, daemon).inputs["spec"]["template"]["metadata"]["labels"]
        selector = lab.one(NETWORK_POLICY, policy).inputs["spec"]["podSelector"]["matchLabels"]
        assert selector.items() <= labels.items()
        # Never the empty selector: that would be a default deny for the whole of kube-system (DNS too).
        assert selector


def test_named_scrapers_narrow_the_exporters_ingress(run_pulumi: Runner) -> None:
    scrapers = {"namespace": "observability", "pod_labels": {"app.kubernetes.io/name": "prometheus"}}
    mocks = run_pulumi(build(onprem(metrics_scrapers=scrapers)))
    [rule] = mocks.one(NETWORK_POLICY, "lab-dcgm-exporter-netpol").inputs["spec"]["ingress"]
    assert rule == {
        "from": [
            {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "observability"}},
                "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
            }
        ],
        "ports": [{"protocol": "TCP", "port": 9400}],
    }


def test_no_daemons_no_policies(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build(onprem(gpu_daemons="existing")))
    assert mocks.of_type(DAEMON_SET) == []
    assert mocks.of_type(NETWORK_POLICY) == []


@pytest.mark.parametrize(
    ("scrapers", "errors"),
    [
        (
            {"namespace": "Monitoring"},
            [
                (
                    "gpufleet:fleet.onprem.metrics_scrapers.namespace",
                    "namespace names must be lower-case letters, digits and '-' (a Kubernetes name, at most "
                    "63 characters, starting and ending with a letter or digit), got 'Monitoring'",
                )
            ],
        ),
        (
            {"pod_labels": {"app": "prom etheus"}},
            [
                (
                    "gpufleet:fleet.onprem.metrics_scrapers.pod_labels",
                    "label 'app' has value 'prom etheus', not a label value",
                )
            ],
        ),
        (
            {"namespaces": "monitoring"},
            [
                (
                    "gpufleet:fleet.onprem.metrics_scrapers",
                    "unknown field 'namespaces'; did you mean 'namespace'? allowed: namespace, pod_labels",
                )
            ],
        ),
    ],
)
def test_bad_scrapers_are_named_field_by_field(
    scrapers: dict[str, Any], errors: list[tuple[str, str]]
) -> None:
    with pytest.raises(SpecError) as caught:
        parse_fleet(fleet(onprem(metrics_scrapers=scrapers)))
    assert caught.value.errors == errors


# ----------------------------------------------------------------------------------- skip values


def test_skip_annotations_are_numbered_in_check_order() -> None:
    assert skip_annotations({"CKV_K8S_40": "b", "CKV_GPUF_7": "a"}) == {
        "checkov.io/skip1": "CKV_GPUF_7=a",
        "checkov.io/skip2": "CKV_K8S_40=b",
    }


def test_a_reason_checkov_would_cut_at_its_equals_sign_is_refused() -> None:
    with pytest.raises(ValueError, match="must not contain '='"):
        skip_annotations({"CKV_K8S_23": "uid=0 is needed"})


# ------------------------------------------------------------------------ our rules, unchanged


def graph_of(mocks: RecordingMocks) -> ResourceGraph:
    graph = ResourceGraph(project="gpufleet", stack="lab")
    for r in mocks.registrations:
        urn = f"urn:pulumi:lab::gpufleet::{r.type}::{r.name}"
        graph.add(Resource(urn, r.type, r.name, r.custom, copy.deepcopy(r.inputs)))
    return graph


def k8s_rules(graph: ResourceGraph) -> list[tuple[str, str]]:
    result = evaluate_stack(graph, list(default_registry()), project_policy_config())
    return sorted((v.rule_id, v.message) for v in result.violations if v.rule_id.startswith("GF-K8S"))


def test_the_scratch_space_keeps_the_kubelet_directory_exception_exact(lab: RecordingMocks) -> None:
    graph = graph_of(lab)
    assert k8s_rules(graph) == []
    [exporter] = graph.named("lab-dcgm-exporter")
    # The exporter's /tmp from the host instead of an emptyDir: GF-K8S-003 allows the two kubelet paths only.
    exporter.inputs["spec"]["template"]["spec"]["volumes"][1] = {"name": "tmp", "hostPath": {"path": "/tmp"}}
    assert k8s_rules(graph) == [
        (
            "GF-K8S-003",
            "DaemonSet 'lab-dcgm-exporter' mounts hostPath volume 'tmp' (/tmp); use a persistentVolumeClaim, "
            "emptyDir, configMap or secret volume instead",
        )
    ]
