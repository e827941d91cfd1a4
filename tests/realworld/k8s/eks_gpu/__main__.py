"""An EKS cluster with a spot GPU node group and the training workloads that run on it, deployed
through an explicit kubernetes Provider.

`eks-gpu:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "llm", "team": "training", "cost-center": "cc-900", "env": "dev"}
LABELS = {"project": "llm", "team": "training", "cost-center": "cc-900", "env": "dev"}

aws_opts = ResourceOptions(provider=aws.Provider("use2", region="us-east-2", default_tags={"tags": TAGS}))

vpc = aws.ec2.Vpc("eks", cidr_block="10.60.0.0/16", opts=aws_opts)
subnets = [
    aws.ec2.Subnet(
        f"eks-{az}",
        vpc_id=vpc.id,
        cidr_block=f"10.60.{i * 16}.0/20",
        availability_zone=f"us-east-2{az}",
        opts=aws_opts,
    )
    for i, az in enumerate("ab")
]


def assume(service: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
        }
    )


cluster_role = aws.iam.Role("cluster", assume_role_policy=assume("eks.amazonaws.com"), opts=aws_opts)
aws.iam.RolePolicyAttachment(
    "cluster",
    role=cluster_role.name,
    policy_arn="arn:aws:iam::aws:policy/AmazonEKSClusterPolicy",
    opts=aws_opts,
)
cluster = aws.eks.Cluster(
    "llm",
    role_arn=cluster_role.arn,
    version="1.31",
    vpc_config=aws.eks.ClusterVpcConfigArgs(
        subnet_ids=[s.id for s in subnets], endpoint_private_access=True, endpoint_public_access=False
    ),
    enabled_cluster_log_types=["api", "audit"],
    opts=aws_opts,
)
node_role = aws.iam.Role("gpu-nodes", assume_role_policy=assume("ec2.amazonaws.com"), opts=aws_opts)
for short, arn in {
    "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
    "ssm": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
}.items():
    aws.iam.RolePolicyAttachment(f"gpu-nodes-{short}", role=node_role.name, policy_arn=arn, opts=aws_opts)

aws.eks.NodeGroup(
    "gpu-spot",
    cluster_name=cluster.name,
    node_role_arn=node_role.arn,
    subnet_ids=[s.id for s in subnets],
    ami_type="AL2023_x86_64_NVIDIA",
    instance_types=["g5.2xlarge", "g6.2xlarge"],
    capacity_type="ON_DEMAND" if BREAK == "nodes-on-demand" else "SPOT",
    scaling_config=aws.eks.NodeGroupScalingConfigArgs(min_size=0, max_size=6, desired_size=0),
    taints=[]
    if BREAK == "nodes-untainted"
    else [aws.eks.NodeGroupTaintArgs(key="nvidia.com/gpu", value="present", effect="NO_SCHEDULE")],
    remote_access={"ec2_ssh_key": "ops"} if BREAK == "nodes-ssh-key" else None,
    disk_size=200,
    labels={"gpu": "true"},
    opts=aws_opts,
)
aws.budgets.Budget(
    "llm-dev",
    budget_type="COST",
    limit_amount="4000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["llm@example.com"],
        }
    ],
    opts=aws_opts,
)
aws.cloudtrail.Trail("llm", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, opts=aws_opts)

# -- Kubernetes ----------------------------------------------------------------------------------
kube = k8s.Provider("llm", kubeconfig=cluster.endpoint.apply(lambda e: json.dumps({"server": e})))
kopts = ResourceOptions(provider=kube)

k8s.helm.v3.Release(
    "cluster-autoscaler",
    chart="cluster-autoscaler",
    namespace="kube-system",
    repository_opts={"repo": "https://kubernetes.github.io/autoscaler"},
    opts=kopts,
)
ns = k8s.core.v1.Namespace("training", metadata={"name": "training", "labels": LABELS}, opts=kopts)
if BREAK != "no-quota":
    k8s.core.v1.ResourceQuota(
        "training-gpus",
        metadata={"namespace": "training", "name": "gpus"},
        spec={"hard": {"requests.nvidia.com/gpu": "8", "limits.nvidia.com/gpu": "8"}},
        opts=kopts,
    )
if BREAK != "no-priority-class":
    k8s.scheduling.v1.PriorityClass(
        "baseline", metadata={"name": "baseline"}, value=100000, description="on-prem baseline", opts=kopts
    )
    k8s.scheduling.v1.PriorityClass(
        "burst", metadata={"name": "burst"}, value=1000, preemption_policy="Never", opts=kopts
    )

gpu_toleration = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
k8s.batch.v1.Job(
    "finetune",
    metadata={"namespace": "training", "name": "finetune", "labels": LABELS},
    spec={
        "backoff_limit": 2,
        "template": {
            "metadata": {"labels": {**LABELS, "app": "finetune"}},
            "spec": {
                "restart_policy": "Never",
                "priority_class_name": "burst",
                "tolerations": [] if BREAK == "job-no-toleration" else [gpu_toleration],
                "host_network": BREAK == "job-host-network",
                "containers": [
                    {
                        "name": "trainer",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "command": ["torchrun", "train.py"],
                        "env": [
                            {
                                "name": "AWS_SECRET_ACCESS_KEY",
                                "value": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                            }
                        ]
                        if BREAK == "env-secret"
                        else [
                            {
                                "name": "WANDB_API_KEY",
                                "value_from": {"secret_key_ref": {"name": "wandb", "key": "api-key"}},
                            }
                        ],
                        "resources": {"requests": {"nvidia.com/gpu": 1}}
                        if BREAK == "requests-only"
                        else {"limits": {"nvidia.com/gpu": 1, "memory": "60Gi"}, "requests": {"cpu": "6"}},
                        "security_context": {"privileged": BREAK == "privileged", "run_as_non_root": True},
                    }
                ],
            },
        },
    },
    opts=kopts,
)
if BREAK != "no-pdb":
    k8s.policy.v1.PodDisruptionBudget(
        "finetune",
        metadata={"namespace": "training", "name": "finetune"},
        spec={"max_unavailable": 0, "selector": {"match_labels": {"app": "finetune"}}},
        opts=kopts,
    )
k8s.apps.v1.Deployment(
    "embedder",
    metadata={"namespace": "training", "name": "embedder", "labels": LABELS},
    spec=k8s.apps.v1.DeploymentSpecArgs(
        replicas=1,
        selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app": "embedder"}),
        template=k8s.core.v1.PodTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(labels={"app": "embedder"}),
            spec=k8s.core.v1.PodSpecArgs(
                tolerations=[k8s.core.v1.TolerationArgs(key="nvidia.com/gpu", operator="Exists")],
                priority_class_name="baseline",
                containers=[
                    k8s.core.v1.ContainerArgs(
                        name="embedder",
                        image="ghcr.io/example/embedder:1.4",
                        resources=k8s.core.v1.ResourceRequirementsArgs(limits={"nvidia.com/gpu": "1"}),
                        volume_mounts=[k8s.core.v1.VolumeMountArgs(name="models", mount_path="/models")],
                    )
                ],
                volumes=[
                    k8s.core.v1.VolumeArgs(name="models", host_path={"path": "/mnt/models"})
                    if BREAK == "host-path"
                    else k8s.core.v1.VolumeArgs(name="models", empty_dir={})
                ],
            ),
        ),
    ),
    opts=kopts,
)
if BREAK != "no-pdb":
    k8s.policy.v1.PodDisruptionBudget(
        "embedder",
        metadata={"namespace": "training", "name": "embedder"},
        spec={"min_available": 1, "selector": {"match_labels": {"app": "embedder"}}},
        opts=kopts,
    )
k8s.core.v1.ConfigMap(
    "trainer-config",
    metadata={"namespace": "training", "name": "trainer-config"},
    data={"S3_BUCKET": "llm-ckpt", "AWS_REGION": "us-east-2"}
    | (
        {"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": "x" * 40}
        if BREAK == "configmap-keys"
        else {}
    ),
    opts=kopts,
)
