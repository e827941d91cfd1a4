"""GPU training on an existing cluster through its operators, as raw `pulumi_kubernetes`: a Kubeflow
PyTorchJob, a Ray cluster, a Volcano job on MIG slices and an Argo workflow, each an
`apiextensions.CustomResource` (registered as `kubernetes:<group>/<version>:<Kind>`), with the
namespace's quotas, a PriorityClass and disruption budgets selecting the labels each operator puts
on its pods.

`training-crds:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_kubernetes as k8s

BREAK = pulumi.Config().get("break") or "none"
LABELS = {"project": "llm", "team": "research", "cost-center": "cc-777", "env": "dev"}
TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
NS = "training"


def meta(name: str) -> dict[str, object]:
    return {"name": name, "namespace": NS, "labels": LABELS}


def trainer(resource: str = "nvidia.com/gpu", count: str = "8", **extra: object) -> dict[str, object]:
    resources = {"requests": {resource: count}} if BREAK == "requests-only" else {"limits": {resource: count}}
    return {"name": "trainer", "image": "ghcr.io/example/trainer:2.3", "resources": resources, **extra}


k8s.core.v1.Namespace(NS, metadata={"name": NS, "labels": LABELS})
hard = {"requests.nvidia.com/gpu": "32"}
if BREAK != "no-mig-quota":
    hard["requests.nvidia.com/mig-1g.5gb"] = "14"
k8s.core.v1.ResourceQuota("gpu-quota", metadata=meta("gpu-quota"), spec={"hard": hard})
k8s.scheduling.v1.PriorityClass(
    "gpu-baseline", metadata={"name": "gpu-baseline", "labels": LABELS}, value=1000
)

# Kubeflow PyTorchJob: master and workers, each a pod template.
worker_env = [{"name": "NCCL_DEBUG", "value": "WARN"}]
if BREAK == "env-secret":
    worker_env.append({"name": "AWS_SECRET_ACCESS_KEY", "value": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
k8s.apiextensions.CustomResource(
    "llm-pretrain",
    api_version="kubeflow.org/v1",
    kind="PyTorchJob",
    metadata=meta("llm-pretrain"),
    spec={
        "pytorchReplicaSpecs": {
            "Master": {
                "replicas": 1,
                "restartPolicy": "OnFailure",
                "template": {"spec": {"containers": [trainer()], "tolerations": TOLERATE}},
            },
            "Worker": {
                "replicas": 3,
                "restartPolicy": "OnFailure",
                "template": {
                    "spec": {
                        "containers": [trainer(env=worker_env)],
                        "tolerations": [] if BREAK == "worker-no-toleration" else TOLERATE,
                        "priorityClassName": "gpu-baseline",
                    }
                },
            },
        }
    },
)
k8s.policy.v1.PodDisruptionBudget(
    "llm-pretrain",
    metadata=meta("llm-pretrain"),
    spec={
        "maxUnavailable": 0,
        "selector": {"matchLabels": {"training.kubeflow.org/job-name": "llm-pretrain"}},
    },
)

# Ray: a CPU head and a GPU worker group.
k8s.apiextensions.CustomResource(
    "tuning",
    api_version="ray.io/v1",
    kind="RayCluster",
    metadata=meta("tuning"),
    spec={
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0"},
            "template": {"spec": {"containers": [{"name": "head", "image": "rayproject/ray:2.9.0"}]}},
        },
        "workerGroupSpecs": [
            {
                "groupName": "gpu-workers",
                "replicas": 2,
                "minReplicas": 0,
                "maxReplicas": 4,
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [trainer(count="1")],
                        "tolerations": TOLERATE,
                        "hostNetwork": BREAK == "ray-host-network",
                    }
                },
            }
        ],
    },
)
k8s.policy.v1.PodDisruptionBudget(
    "tuning",
    metadata=meta("tuning"),
    spec={
        "maxUnavailable": 0,
        "selector": {
            "matchLabels": {"ray.io/cluster": "other" if BREAK == "ray-pdb-elsewhere" else "tuning"}
        },
    },
)

# Volcano: an evaluation job on MIG slices.
k8s.apiextensions.CustomResource(
    "eval",
    api_version="batch.volcano.sh/v1alpha1",
    kind="Job",
    metadata=meta("eval"),
    spec={
        "schedulerName": "volcano",
        "minAvailable": 2,
        "tasks": [
            {
                "name": "scorer",
                "replicas": 2,
                "template": {
                    "spec": {
                        "containers": [
                            trainer(
                                "nvidia.com/mig-1g.5gb",
                                "1",
                                securityContext={"privileged": BREAK == "volcano-privileged"},
                            )
                        ],
                        "tolerations": TOLERATE,
                        "restartPolicy": "Never",
                    }
                },
            }
        ],
    },
)
k8s.policy.v1.PodDisruptionBudget(
    "eval",
    metadata=meta("eval"),
    spec={"minAvailable": 2, "selector": {"matchLabels": {"volcano.sh/job-name": "eval"}}},
)

# Argo: a preprocessing workflow whose GPU step is patched at pod level.
patch = {"containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
if BREAK == "argo-patch-host-pid":
    patch["hostPID"] = True
k8s.apiextensions.CustomResource(
    "preprocess",
    api_version="argoproj.io/v1alpha1",
    kind="Workflow",
    metadata=meta("preprocess"),
    spec={
        "entrypoint": "pipeline",
        "tolerations": TOLERATE,
        "templates": [
            {"name": "pipeline", "steps": [[{"name": "tokenize", "template": "tokenize"}]]},
            {
                "name": "tokenize",
                "container": {"image": "ghcr.io/example/tokenize:1.0", "command": ["tokenize"]},
                "podSpecPatch": json.dumps(patch),
            },
        ],
    },
)
k8s.policy.v1.PodDisruptionBudget(
    "preprocess",
    metadata=meta("preprocess"),
    spec={"maxUnavailable": 0, "selector": {"matchLabels": {"workflows.argoproj.io/workflow": "preprocess"}}},
)
