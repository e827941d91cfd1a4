from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.k8s.pod_host_isolation import POLICY, RULE

from .helpers import UNKNOWN_BOOLEAN_VALUE, run_resource

DS = "kubernetes:apps/v1:DaemonSet"
POD = "kubernetes:core/v1:Pod"
CRONJOB = "kubernetes:batch/v1:CronJob"
PATCH = "kubernetes:apps/v1:DeploymentPatch"


def spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "containers": [{"name": "agent", "image": "a:1", "securityContext": {"privileged": False}}],
        "volumes": [{"name": "cache", "emptyDir": {}}],
    }
    base.update(changes)
    return base


def ds(pod_spec: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"template": {"spec": pod_spec}}}


def test_metadata() -> None:
    assert RULE.id == "GF-K8S-003"
    assert RULE.checkov == ("CKV_K8S_16", "CKV_K8S_19", "CKV_K8S_17", "CKV_K8S_27")


def test_baseline_passes() -> None:
    assert run_resource(POLICY, DS, ds(spec()), name="agent") == []
    assert run_resource(POLICY, POD, {"spec": spec()}, name="p") == []


def test_each_host_access() -> None:
    assert run_resource(POLICY, DS, ds(spec(hostNetwork=True)), name="agent") == [
        "DaemonSet 'agent' uses the host network (hostNetwork: true); remove hostNetwork"
    ]
    assert run_resource(POLICY, DS, ds(spec(hostPID=True)), name="agent") == [
        "DaemonSet 'agent' uses the host PID namespace (hostPID: true); remove hostPID"
    ]
    volumes = [{"name": "dev", "hostPath": {"path": "/dev"}}]
    assert run_resource(POLICY, DS, ds(spec(volumes=volumes)), name="agent") == [
        "DaemonSet 'agent' mounts hostPath volume 'dev' (/dev); use a persistentVolumeClaim, emptyDir, "
        "configMap or secret volume instead"
    ]
    privileged = [{"name": "agent", "securityContext": {"privileged": True}}]
    assert run_resource(POLICY, DS, ds(spec(containers=privileged)), name="agent") == [
        "DaemonSet 'agent' container 'agent' is privileged; remove securityContext.privileged"
    ]


def test_init_and_ephemeral_containers_and_cronjob_nesting() -> None:
    pod_spec = spec(
        initContainers=[{"name": "setup", "securityContext": {"privileged": True}}],
        ephemeralContainers=[{"name": "debug", "securityContext": {"privileged": "true"}}],
    )
    props = {"spec": {"jobTemplate": {"spec": {"template": {"spec": pod_spec}}}}}
    assert run_resource(POLICY, CRONJOB, props, name="nightly") == [
        "CronJob 'nightly' init container 'setup' is privileged; remove securityContext.privileged",
        "CronJob 'nightly' ephemeral container 'debug' is privileged; remove securityContext.privileged",
    ]


def test_patch_variant() -> None:
    assert run_resource(POLICY, PATCH, ds(spec(hostNetwork=True)), name="d") == [
        "Deployment 'd' uses the host network (hostNetwork: true); remove hostNetwork"
    ]


def test_unknown_flag_is_not_a_pass() -> None:
    assert run_resource(POLICY, DS, ds(spec(hostPID=UNKNOWN_BOOLEAN_VALUE)), name="agent", proxy=True) == [
        "could not be judged at preview: the boolean value at .spec.template.spec.hostPID can't be known "
        "during preview"
    ]


def test_proxied_props() -> None:
    assert run_resource(POLICY, DS, ds(spec()), name="agent", proxy=True) == []


def test_patch_without_pod_template_is_not_applicable() -> None:
    assert run_resource(POLICY, PATCH, {"spec": {"replicas": 0}}, name="d") == (
        "N/A: the resource sets no pod template (a patch of other fields)"
    )


def test_non_workloads_ignored() -> None:
    assert run_resource(POLICY, "kubernetes:core/v1:Service", {"spec": {"ports": []}}) == []


def system_ds(pod_spec: dict[str, Any], namespace: str = "kube-system") -> dict[str, Any]:
    return {"metadata": {"name": "gpu-agent", "namespace": namespace}, **ds(pod_spec)}


def kubelet_dir(path: str, *, read_only: bool | None = None) -> dict[str, Any]:
    mount: dict[str, Any] = {"name": "kubelet", "mountPath": "/kubelet"}
    if read_only is not None:
        mount["readOnly"] = read_only
    return spec(
        containers=[{"name": "agent", "image": "a@sha256:" + "0" * 64, "volumeMounts": [mount]}],
        volumes=[{"name": "kubelet", "hostPath": {"path": path, "type": "Directory"}}],
    )


def hostpath_finding(what: str, path: str) -> str:
    return (
        f"{what} mounts hostPath volume 'kubelet' ({path}); use a persistentVolumeClaim, emptyDir, "
        "configMap or secret volume instead"
    )


@pytest.mark.parametrize(
    ("path", "read_only"),
    [
        ("/var/lib/kubelet/device-plugins", None),
        ("/var/lib/kubelet/device-plugins/", False),
        ("/var/lib/kubelet/pod-resources", True),
    ],
)
def test_gpu_daemon_in_kube_system_may_mount_its_kubelet_directory(path: str, read_only: bool | None) -> None:
    props = system_ds(kubelet_dir(path, read_only=read_only))
    assert run_resource(POLICY, DS, props, name="agent") == []


@pytest.mark.parametrize(
    ("resource_type", "namespace", "path", "read_only", "what"),
    [
        # Outside kube-system, or not a DaemonSet: no exception.
        (DS, "training", "/var/lib/kubelet/device-plugins", None, "DaemonSet 'agent'"),
        (DS, None, "/var/lib/kubelet/device-plugins", None, "DaemonSet 'agent'"),
        (POD, "kube-system", "/var/lib/kubelet/device-plugins", None, "Pod 'agent'"),
        # Any other path, a parent, a path that climbs out, or pod-resources writable.
        (DS, "kube-system", "/var/lib/kubelet", None, "DaemonSet 'agent'"),
        (DS, "kube-system", "/var/lib/kubelet/device-plugins/..", None, "DaemonSet 'agent'"),
        (DS, "kube-system", "/var/lib/kubelet/device-plugins-x", None, "DaemonSet 'agent'"),
        (DS, "kube-system", "/var/lib/kubelet/pod-resources", None, "DaemonSet 'agent'"),
        (DS, "kube-system", "/var/lib/kubelet/pod-resources", False, "DaemonSet 'agent'"),
        (DS, "kube-system", "/", None, "DaemonSet 'agent'"),
    ],
)
def test_no_other_host_path_or_workload_is_excepted(
    resource_type: str, namespace: str | None, path: str, read_only: bool | None, what: str
) -> None:
    pod_spec = kubelet_dir(path, read_only=read_only)
    props: dict[str, Any] = {"spec": pod_spec} if resource_type == POD else ds(pod_spec)
    if namespace is not None:
        props["metadata"] = {"name": "agent", "namespace": namespace}
    assert run_resource(POLICY, resource_type, props, name="agent") == [hostpath_finding(what, path)]


def test_the_exception_never_covers_privilege_or_host_namespaces() -> None:
    pod_spec = kubelet_dir("/var/lib/kubelet/device-plugins")
    pod_spec["hostNetwork"] = True
    pod_spec["containers"][0]["securityContext"] = {"privileged": True}
    assert run_resource(POLICY, DS, system_ds(pod_spec), name="agent") == [
        "DaemonSet 'agent' container 'agent' is privileged; remove securityContext.privileged",
        "DaemonSet 'agent' uses the host network (hostNetwork: true); remove hostNetwork",
    ]
