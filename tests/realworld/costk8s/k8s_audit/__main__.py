"""GPU workloads on a cluster the platform team already runs (every workload kind that can ask for
`nvidia.com/gpu`), a Karpenter GPU NodePool, and the account's audit trail and log groups.

`gpu-k8s:break` selects one mistake; `none` is compliant.
"""

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "search", "team": "ranking", "cost-center": "cc-512", "env": "dev"}

kube = k8s.Provider("ranking", kubeconfig="~/.kube/config", namespace="ranking")
kopts = ResourceOptions(provider=kube)


def meta(name: str, **extra: object) -> dict:
    return {"name": name, "namespace": "ranking", "labels": dict(TAGS), **extra}


ns = k8s.core.v1.Namespace("ranking", metadata={"name": "ranking", "labels": TAGS}, opts=kopts)
if BREAK != "no-quota":
    k8s.core.v1.ResourceQuota(
        "ranking-gpus",
        metadata=meta("gpus"),
        spec={"hard": {"requests.nvidia.com/gpu": "4", "limits.nvidia.com/gpu": "4"}},
        opts=ResourceOptions(provider=kube, depends_on=[ns]),
    )
for name, value in (("gpu-baseline", 100000), ("gpu-burst", 1000)):
    k8s.scheduling.v1.PriorityClass(name, metadata={"name": name, "labels": TAGS}, value=value, opts=kopts)

TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]


def pod_spec(image: str, *, gpu: bool = True, **overrides: object) -> dict:
    resources = {"limits": {"nvidia.com/gpu": "1"}} if gpu else {"limits": {"cpu": "1"}}
    if gpu and BREAK == "requests-only":
        resources = {"requests": {"nvidia.com/gpu": "1"}}
    spec: dict = {
        "priorityClassName": "gpu-burst",
        "containers": [
            {
                "name": "main",
                "image": image,
                "resources": resources,
                "env": [
                    {
                        "name": "AWS_SECRET_ACCESS_KEY",
                        "valueFrom": {"secretKeyRef": {"name": "s3-creds", "key": "secret"}},
                    }
                ],
            }
        ],
        "tolerations": TOLERATE if gpu else None,
        "restartPolicy": "Never",
    }
    spec.update(overrides)
    return spec


labels = {"app": "ranker", **TAGS}
k8s.apps.v1.Deployment(
    "ranker",
    metadata=meta("ranker"),
    spec={
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ranker"}},
        "template": {
            "metadata": {"labels": labels},
            "spec": pod_spec(
                "ghcr.io/acme/ranker:1.4",
                restartPolicy="Always",
                initContainers=[
                    {
                        "name": "fetch-model",
                        "image": "ghcr.io/acme/fetch:2",
                        "securityContext": {"privileged": BREAK == "privileged-init"},
                    }
                ],
                volumes=[
                    {"name": "models", "hostPath": {"path": "/mnt/models"}}
                    if BREAK == "host-path"
                    else {"name": "models", "emptyDir": {}}
                ],
            ),
        },
    },
    opts=kopts,
)
k8s.batch.v1.Job(
    "reindex",
    metadata=meta("reindex"),
    spec={
        "backoffLimit": 2,
        "template": {
            "metadata": {"labels": {"app": "reindex", **TAGS}},
            "spec": pod_spec(
                "ghcr.io/acme/reindex:3",
                tolerations=None if BREAK == "job-no-toleration" else TOLERATE,
                hostNetwork=BREAK == "host-network",
            ),
        },
    },
    opts=kopts,
)
k8s.batch.v1.CronJob(
    "nightly-eval",
    metadata=meta("nightly-eval"),
    spec={
        "schedule": "0 2 * * *",
        "jobTemplate": {
            "spec": {
                "template": {
                    "metadata": {"labels": {"app": "eval", **TAGS}},
                    "spec": pod_spec(
                        "ghcr.io/acme/eval:1",
                        tolerations=[{"operator": "Exists"}] if BREAK == "cron-tolerate-all" else TOLERATE,
                    ),
                }
            }
        },
    },
    opts=kopts,
)
k8s.apps.v1.StatefulSet(
    "vector-index",
    metadata=meta("vector-index"),
    spec={
        "serviceName": "vector-index",
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vector-index"}},
        "template": {
            "metadata": {"labels": {"app": "vector-index", **TAGS}},
            "spec": pod_spec("ghcr.io/acme/vindex:5", restartPolicy="Always"),
        },
    },
    opts=kopts,
)
k8s.core.v1.Pod(
    "debug-shell",
    metadata=meta("debug-shell"),
    spec=pod_spec("ghcr.io/acme/cuda-debug:12", hostPID=BREAK == "host-pid"),
    opts=kopts,
)
k8s.core.v1.ConfigMap(
    "ranker-settings",
    metadata=meta("ranker-settings"),
    data={"S3_BUCKET": "ranking-models", "AWS_REGION": "eu-west-1"}
    | (
        {"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
        if BREAK == "configmap-key"
        else {}
    ),
    opts=kopts,
)
for app in ("ranker", "vector-index", "reindex", "eval"):
    k8s.policy.v1.PodDisruptionBudget(
        f"{app}-pdb",
        metadata=meta(f"{app}-pdb"),
        spec={"maxUnavailable": 0, "selector": {"matchLabels": {"app": app}}},
        opts=kopts,
    )
if BREAK == "env-value":
    k8s.apps.v1.Deployment(
        "uploader",
        metadata=meta("uploader"),
        spec={
            "selector": {"matchLabels": {"app": "uploader"}},
            "template": {
                "metadata": {"labels": {"app": "uploader", **TAGS}},
                "spec": {
                    "containers": [
                        {
                            "name": "up",
                            "image": "ghcr.io/acme/up:1",
                            "env": [{"name": "AWS_SECRET_ACCESS_KEY", "value": "wJalrXUtnFEMI/K7MDENG"}],
                        }
                    ]
                },
            },
        },
        opts=kopts,
    )
k8s.apiextensions.CustomResource(
    "gpu-nodes",
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={"name": "gpu", "labels": TAGS},
    spec={
        "template": {
            "spec": {
                "requirements": [
                    {
                        "key": "karpenter.k8s.aws/instance-gpu-name",
                        "operator": "In",
                        "values": ["a10g", "t4"],
                    },
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                ],
                "taints": []
                if BREAK == "nodepool-untainted"
                else [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            }
        },
        "limits": {"nvidia.com/gpu": 8},
        "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "5m"},
    },
    opts=kopts,
)

# -- audit --------------------------------------------------------------------------------------
aws_opts = ResourceOptions(provider=aws.Provider("euw1", region="eu-west-1", default_tags={"tags": TAGS}))
aws.cloudtrail.Trail(
    "account",
    s3_bucket_name="org-audit-trail",
    is_multi_region_trail=BREAK != "single-region-trail",
    include_global_service_events=True,
    enable_log_file_validation=True,
    opts=aws_opts,
)
logs_key = aws.kms.Key("logs", enable_key_rotation=True, deletion_window_in_days=30, opts=aws_opts)
aws.cloudwatch.LogGroup(
    "ranker",
    retention_in_days={"retention-30": 30, "retention-unset": None}.get(BREAK, 3653),
    kms_key_id=None if BREAK == "log-unencrypted" else logs_key.arn,
    opts=aws_opts,
)
aws.budgets.Budget(
    "ranking",
    budget_type="COST",
    limit_amount="1500",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        aws.budgets.BudgetNotificationArgs(
            comparison_operator="GREATER_THAN",
            threshold=75,
            threshold_type="PERCENTAGE",
            notification_type="ACTUAL",
            subscriber_email_addresses=["ranking@example.com"],
        )
    ],
    opts=aws_opts,
)

# Audit logs the team ships to its China-region clouds (only in the china-* variants, since those
# clouds bring their own budget requirement): retention in days on each.
import pulumi_alicloud as alicloud  # noqa: E402
import tencentcloud_iac_pulumi as tencentcloud  # noqa: E402

if BREAK.startswith("china"):
    ali = ResourceOptions(provider=alicloud.Provider("cn-shanghai", region="cn-shanghai"))
    sls = alicloud.log.Project("ranking-audit", project_name="ranking-audit", tags=TAGS, opts=ali)
    alicloud.log.Store(
        "ranking-audit",
        project_name=sls.project_name,
        logstore_name="audit",
        retention_period=90 if BREAK == "china-sls-90" else 365,
        opts=ali,
    )
    tc = ResourceOptions(provider=tencentcloud.Provider("ap-shanghai", region="ap-shanghai"))
    logset = tencentcloud.cls.Logset("ranking-audit", logset_name="ranking-audit", tags=TAGS, opts=tc)
    tencentcloud.cls.Topic(
        "ranking-audit",
        logset_id=logset.id,
        topic_name="audit",
        period=30 if BREAK == "china-cls-30" else 3640,
        tags=TAGS,
        opts=tc,
    )
