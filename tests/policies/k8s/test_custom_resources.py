"""Pod templates inside custom resources (Kubeflow, Ray, Volcano, JobSet, LeaderWorkerSet, Argo) and GPU
requests by every resource name, judged by GF-K8S-001..005: each class must fire, and a compliant
look-alike beside it must not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.policies.k8s import gpu_namespace_quota as k8s002
from gpufleet.policies.k8s import gpu_priority_disruption as k8s004
from gpufleet.policies.k8s import gpu_taint_toleration as k8s001
from gpufleet.policies.k8s import no_plain_cloud_credentials as k8s005
from gpufleet.policies.k8s import pod_host_isolation as k8s003
from gpufleet.policies.k8s.templates import api_of, pod_templates, runs_pods

from .helpers import UNKNOWN_STRING_VALUE, res, run_resource, run_stack

TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
PYTORCH = "kubernetes:kubeflow.org/v1:PyTorchJob"
TFJOB = "kubernetes:kubeflow.org/v1:TFJob"
MPIJOB = "kubernetes:kubeflow.org/v2beta1:MPIJob"
RAYCLUSTER = "kubernetes:ray.io/v1:RayCluster"
RAYJOB = "kubernetes:ray.io/v1:RayJob"
VOLCANO = "kubernetes:batch.volcano.sh/v1alpha1:Job"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
WORKFLOW = "kubernetes:argoproj.io/v1alpha1:Workflow"
CRON_WORKFLOW = "kubernetes:argoproj.io/v1alpha1:CronWorkflow"
GENERIC = "kubernetes:apiextensions.k8s.io:CustomResource"
QUOTA = "kubernetes:core/v1:ResourceQuota"
PDB = "kubernetes:policy/v1:PodDisruptionBudget"
PRIORITY = "kubernetes:scheduling.k8s.io/v1:PriorityClass"


def gpu(
    name: str = "main", resource: str = "nvidia.com/gpu", limit: bool = True, **extra: Any
) -> dict[str, Any]:
    section = "limits" if limit else "requests"
    return {"name": name, "image": "trainer:1", "resources": {section: {resource: "1"}}, **extra}


def pod(*containers: dict[str, Any], tolerate: bool = True, **fields: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": list(containers), **fields}
    if tolerate:
        spec["tolerations"] = TOLERATE
    return {"metadata": {"labels": {"app": "train"}}, "spec": spec}


def pytorch(worker: dict[str, Any], master: dict[str, Any] | None = None) -> dict[str, Any]:
    replicas = {"Worker": {"replicas": 4, "template": worker}}
    if master is not None:
        replicas["Master"] = {"replicas": 1, "template": master}
    return {"metadata": {"name": "llm", "namespace": "train"}, "spec": {"pytorchReplicaSpecs": replicas}}


def ray_cluster(worker: dict[str, Any], head: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "rc", "namespace": "train"},
        "spec": {
            "headGroupSpec": {"rayStartParams": {}, "template": head or pod(gpu(resource="cpu"))},
            "workerGroupSpecs": [{"groupName": "gpu-workers", "replicas": 2, "template": worker}],
        },
    }


def volcano(task: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": "vj", "namespace": "train"},
        "spec": {"schedulerName": "volcano", "tasks": [{"name": "trainer", "replicas": 2, "template": task}]},
    }


def workflow(template: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "wf", "namespace": "train"},
        "spec": {"entrypoint": "train", "templates": [{"name": "steps", "steps": []}, template], **spec},
    }


# ------------------------------------------------------------------------------- where templates hide


def test_every_custom_resource_kind_yields_its_pod_templates() -> None:
    worker = pod(gpu())
    cases = {
        PYTORCH: (pytorch(worker, pod(gpu())), ["replica Worker", "replica Master"]),
        TFJOB: ({"spec": {"tfReplicaSpecs": {"PS": {"template": worker}, "Chief": {"template": worker}}}},
                ["replica PS", "replica Chief"]),
        MPIJOB: ({"spec": {"mpiReplicaSpecs": {"Launcher": {"template": worker}}}}, ["replica Launcher"]),
        RAYCLUSTER: (ray_cluster(worker), ["head group", "worker group 'gpu-workers'"]),
        RAYJOB: ({"spec": {"rayClusterSpec": ray_cluster(worker)["spec"], "submitterPodTemplate": worker}},
                 ["head group", "worker group 'gpu-workers'", "submitter"]),
        VOLCANO: (volcano(worker), ["task 'trainer'"]),
        JOBSET: ({"spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": worker}}}]}},
                 ["replicated job 'w'"]),
        LWS: ({"spec": {"leaderWorkerTemplate": {"leaderTemplate": worker, "workerTemplate": worker}}},
              ["leader", "worker"]),
        WORKFLOW: (workflow({"name": "train", "container": gpu()}), ["template 'train'"]),
        CRON_WORKFLOW: ({"spec": {"workflowSpec": workflow({"name": "t", "script": gpu()})["spec"]}},
                        ["template 't'"]),
    }  # fmt: skip
    for resource_type, (props, wheres) in cases.items():
        assert runs_pods(resource_type), resource_type
        assert [t.where for t in pod_templates(resource_type, props)] == wheres, resource_type


def test_generic_custom_resource_takes_group_and_kind_from_its_properties() -> None:
    props = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", **pytorch(pod(gpu()))}
    assert api_of(GENERIC, props) == ("kubeflow.org", "PyTorchJob")
    assert [t.where for t in pod_templates(GENERIC, props)] == ["replica Worker"]


def test_look_alike_kinds_are_not_read_as_built_in_workloads() -> None:
    # Volcano's Job is not batch/v1 Job; an unrelated CRD kind runs no pods the rules know.
    assert [t.where for t in pod_templates(VOLCANO, volcano(pod(gpu())))] == ["task 'trainer'"]
    assert pod_templates(VOLCANO, {"spec": {"template": pod(gpu())}}) == []
    assert not runs_pods("kubernetes:monitoring.coreos.com/v1:ServiceMonitor")
    assert not runs_pods("kubernetes:argoproj.io/v1alpha1:Application")


def test_argo_pod_spec_patch_is_applied_over_the_template() -> None:
    patch = json.dumps({"containers": [{"name": "main", "securityContext": {"privileged": True}}]})
    props = workflow({"name": "train", "container": gpu(), "podSpecPatch": patch}, hostNetwork=True)
    (template,) = pod_templates(WORKFLOW, props)
    assert template.spec["hostNetwork"] is True
    (container,) = template.spec["containers"]
    assert container["securityContext"] == {"privileged": True}
    assert container["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    yaml_patch = "hostPID: true\n"
    props = workflow({"name": "train", "container": gpu()}, podSpecPatch=yaml_patch)
    assert pod_templates(WORKFLOW, props)[0].spec["hostPID"] is True


# ------------------------------------------------------------------------------------ GF-K8S-001


@pytest.mark.parametrize(
    ("resource_type", "props", "message"),
    [
        (PYTORCH, pytorch(pod(gpu()), pod(gpu(), tolerate=False)),
         "PyTorchJob 'llm' (replica Master) uses nvidia.com/gpu but does not tolerate"),
        (RAYCLUSTER, ray_cluster(pod(gpu(), tolerate=False)),
         "RayCluster 'rc' (worker group 'gpu-workers') uses nvidia.com/gpu but does not tolerate"),
        (VOLCANO, volcano(pod(gpu(resource="nvidia.com/mig-1g.5gb"), tolerate=False)),
         "Job 'vj' (task 'trainer') uses nvidia.com/mig-1g.5gb but does not tolerate"),
        (WORKFLOW, workflow({"name": "train", "container": gpu(resource="nvidia.com/gpu.shared")}),
         "Workflow 'wf' (template 'train') uses nvidia.com/gpu.shared but does not tolerate"),
    ],
)  # fmt: skip
def test_untolerated_gpu_templates_fire(resource_type: str, props: dict[str, Any], message: str) -> None:
    (found,) = run_stack(k8s001.POLICY, [res(resource_type, props["metadata"]["name"], props)])
    assert found[0].startswith(message)


def test_tolerating_templates_pass_and_argo_tolerations_count() -> None:
    assert run_stack(k8s001.POLICY, [res(PYTORCH, "llm", pytorch(pod(gpu()), pod(gpu())))]) == []
    assert run_stack(k8s001.POLICY, [res(RAYCLUSTER, "rc", ray_cluster(pod(gpu())))]) == []
    tolerated = workflow({"name": "train", "container": gpu()}, tolerations=TOLERATE)
    assert run_stack(k8s001.POLICY, [res(WORKFLOW, "wf", tolerated)]) == []
    # A CPU-only template beside the GPU one needs no toleration.
    assert run_stack(k8s001.POLICY, [res(VOLCANO, "vj", volcano(pod({"name": "cpu"}, tolerate=False)))]) == []


def test_a_mig_request_without_its_limit_fires_and_amd_needs_no_nvidia_toleration() -> None:
    props = volcano(pod(gpu(resource="nvidia.com/mig-2g.10gb", limit=False)))
    assert run_stack(k8s001.POLICY, [res(VOLCANO, "vj", props)]) == [
        (
            "Job 'vj' task 'trainer' container 'main' requests nvidia.com/mig-2g.10gb without a limit; "
            "set resources.limits['nvidia.com/mig-2g.10gb']",
            res(VOLCANO, "vj", props).urn,
        )
    ]
    amd = pytorch(pod(gpu(resource="amd.com/gpu"), tolerate=False))
    assert run_stack(k8s001.POLICY, [res(PYTORCH, "llm", amd)]) == []


# ------------------------------------------------------------------------------------ GF-K8S-002


def quota(*keys: str) -> Any:
    return res(
        QUOTA, "gpu-quota", {"metadata": {"namespace": "train"}, "spec": {"hard": dict.fromkeys(keys, "8")}}
    )


def test_custom_resource_gpu_work_needs_a_quota() -> None:
    job = res(PYTORCH, "llm", pytorch(pod(gpu())))
    assert run_stack(k8s002.POLICY, [job]) == [
        (
            "Namespace 'train' runs GPU workloads (PyTorchJob 'llm') but has no ResourceQuota with hard "
            "requests.nvidia.com/gpu; add one to cap the namespace's GPUs",
            job.urn,
        )
    ]
    assert run_stack(k8s002.POLICY, [job, quota("requests.nvidia.com/gpu")]) == []


def test_mig_slices_need_their_own_quota_name() -> None:
    job = res(VOLCANO, "vj", volcano(pod(gpu(resource="nvidia.com/mig-1g.5gb"))))
    # A quota on whole GPUs does not cap MIG slices.
    assert run_stack(k8s002.POLICY, [job, quota("requests.nvidia.com/gpu")]) == [
        (
            "Namespace 'train' runs GPU workloads (Job 'vj') but has no ResourceQuota with hard "
            "requests.nvidia.com/mig-1g.5gb; add one to cap the namespace's GPUs",
            job.urn,
        )
    ]
    assert run_stack(k8s002.POLICY, [job, quota("requests.nvidia.com/mig-1g.5gb")]) == []


def test_a_limits_key_is_not_a_gpu_quota() -> None:
    job = res(RAYCLUSTER, "rc", ray_cluster(pod(gpu())))
    assert len(run_stack(k8s002.POLICY, [job, quota("limits.nvidia.com/gpu")])) == 1


# ------------------------------------------------------------------------------------ GF-K8S-003


@pytest.mark.parametrize(
    ("resource_type", "props", "message"),
    [
        (PYTORCH, pytorch(pod(gpu(securityContext={"privileged": True}))),
         "PyTorchJob 'llm' replica Worker container 'main' is privileged; remove securityContext.privileged"),
        (RAYCLUSTER, ray_cluster(pod(gpu(), hostNetwork=True)),
         "RayCluster 'rc' (worker group 'gpu-workers') uses the host network (hostNetwork: true); remove "
         "hostNetwork"),
        (VOLCANO, volcano(pod(gpu(), volumes=[{"name": "dev", "hostPath": {"path": "/dev"}}])),
         "Job 'vj' (task 'trainer') mounts hostPath volume 'dev' (/dev); use a persistentVolumeClaim, "
         "emptyDir, configMap or secret volume instead"),
        (WORKFLOW, workflow({"name": "train", "container": gpu()}, hostPID=True),
         "Workflow 'wf' (template 'train') uses the host PID namespace (hostPID: true); remove hostPID"),
        (WORKFLOW, workflow({"name": "train", "container": gpu(),
                             "podSpecPatch": '{"hostNetwork": true}'}),
         "Workflow 'wf' (template 'train') uses the host network (hostNetwork: true); remove hostNetwork"),
    ],
)  # fmt: skip
def test_host_access_in_custom_resources_fires(
    resource_type: str, props: dict[str, Any], message: str
) -> None:
    assert run_resource(k8s003.POLICY, resource_type, props, name=props["metadata"]["name"]) == [message]


def test_isolated_custom_resources_pass() -> None:
    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    assert run_resource(k8s003.POLICY, PYTORCH, pytorch(pod(gpu(), volumes=volumes)), name="llm") == []
    assert (
        run_resource(k8s003.POLICY, RAYCLUSTER, ray_cluster(pod(gpu(), hostNetwork=False)), name="rc") == []
    )
    props = workflow({"name": "train", "container": gpu(), "podSpecPatch": '{"hostNetwork": false}'})
    assert run_resource(k8s003.POLICY, WORKFLOW, props, name="wf") == []


def test_unknown_pod_spec_patch_is_not_judged_at_preview() -> None:
    props = workflow({"name": "train", "container": gpu(), "podSpecPatch": UNKNOWN_STRING_VALUE})
    (message,) = run_resource(k8s003.POLICY, WORKFLOW, props, name="wf")
    assert message.startswith("could not be judged at preview")


# ------------------------------------------------------------------------------------ GF-K8S-004


def budget(name: str, labels: dict[str, str]) -> Any:
    return res(PDB, name, {"metadata": {"namespace": "train"}, "spec": {"selector": {"matchLabels": labels}}})


def test_operator_labels_let_a_budget_select_kubeflow_and_volcano_pods() -> None:
    job = res(PYTORCH, "llm", pytorch(pod(gpu())))
    selecting = budget("llm", {"training.kubeflow.org/job-name": "llm"})
    assert run_stack(k8s004.POLICY, [res(PRIORITY, "hi", {}), job, selecting]) == []
    task = res(VOLCANO, "vj", volcano(pod(gpu())))
    by_task = budget("vj", {"volcano.sh/job-name": "vj", "volcano.sh/task-spec": "trainer"})
    assert run_stack(k8s004.POLICY, [res(PRIORITY, "hi", {}), task, by_task]) == []
    other = budget("other", {"training.kubeflow.org/job-name": "x"})
    assert run_stack(k8s004.POLICY, [res(PRIORITY, "hi", {}), job, other]) == [
        (
            "PyTorchJob 'llm' runs GPU work but no PodDisruptionBudget in namespace 'train' selects its "
            "replica Worker pods; add one whose selector matches its pod template labels",
            job.urn,
        )
    ]


# ------------------------------------------------------------------------------------ GF-K8S-005


def test_credentials_in_custom_resource_env_fire_and_secret_refs_pass() -> None:
    plain_env = [{"name": "AWS_SECRET_ACCESS_KEY", "value": "x" * 40}]
    props = ray_cluster(pod(gpu(env=plain_env)))
    assert run_resource(k8s005.POLICY, RAYCLUSTER, props, name="rc") == [
        "RayCluster 'rc' worker group 'gpu-workers' container 'main' sets env AWS_SECRET_ACCESS_KEY as a "
        "plain value with a cloud credential name; use valueFrom.secretKeyRef or a workload identity"
    ]
    from_secret = [
        {"name": "AWS_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}
    ]
    assert run_resource(k8s005.POLICY, RAYCLUSTER, ray_cluster(pod(gpu(env=from_secret))), name="rc") == []
    argo = workflow({"name": "train", "container": gpu(env=plain_env)})
    assert len(run_resource(k8s005.POLICY, WORKFLOW, argo, name="wf")) == 1
