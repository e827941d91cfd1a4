from __future__ import annotations

from typing import Any

from policies.k8s.pod_host_isolation import POLICY, RULE

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
