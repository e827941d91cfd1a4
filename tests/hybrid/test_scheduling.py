"""onprem.scheduler in the hybrid stack: Kueue's flavors in burst order with each site's capacity,
one cluster-autoscaler per cloud site, the safe-to-evict admission policy and KEDA on DCGM."""

from __future__ import annotations

from typing import Any

from gpufleet.components.baseline.autoscaler import KEYS_FROM_ENV, discovery_tags
from gpufleet.components.baseline.autoscaler_pod import api_server_peers, cloud_endpoints
from gpufleet.components.baseline.kueue import plan_flavors
from gpufleet.graph import Resource, ResourceGraph

FLEET = "gpufleet-hybrid"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta1"


def _one(graph: ResourceGraph, token: str, name: str) -> Resource:
    found = [r for r in graph.of_type(token) if r.name == name]
    assert len(found) == 1, (token, name)
    return found[0]


def test_flavors_follow_the_burst_order_with_each_sites_capacity(hybrid: ResourceGraph) -> None:
    flavors = {
        r.inputs["metadata"]["name"]: r.inputs["spec"] for r in hybrid.of_type(f"{KUEUE}:ResourceFlavor")
    }
    assert flavors["onprem"] == {"nodeLabels": {"gpufleet.io/capacity": "baseline"}}
    taint = {"key": "gpufleet.io/site", "value": "aws-us-east-1", "effect": "NoSchedule"}
    assert flavors["aws-us-east-1"] == {
        "nodeLabels": {"gpufleet.io/site": "aws-us-east-1"},
        "nodeTaints": [taint],
        "tolerations": [{**taint, "operator": "Equal"}],
    }
    queue = _one(hybrid, f"{KUEUE}:ClusterQueue", f"{FLEET}-scheduling-cluster-queue").inputs
    assert queue["metadata"]["name"] == f"{FLEET}-gpu"
    (group,) = queue["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu"]
    quotas = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    assert [f["name"] for f in group["flavors"]] == [
        "onprem",
        "aws-us-east-1",
        "alicloud-cn-hangzhou",
        "tencentcloud-ap-guangzhou",
    ]
    # 2 DGX A100 (8 GPUs, 128 cores, 1 TiB); 4 g5.12xlarge (4 A10G, 48 vCPU, 192 GiB); 8 x 1 A10; 8 x 1 T4.
    assert quotas["onprem"] == {"cpu": "256", "memory": "2048Gi", "nvidia.com/gpu": "16"}
    assert quotas["aws-us-east-1"] == {"cpu": "192", "memory": "768Gi", "nvidia.com/gpu": "16"}
    assert quotas["alicloud-cn-hangzhou"]["nvidia.com/gpu"] == "8"
    assert quotas["tencentcloud-ap-guangzhou"]["nvidia.com/gpu"] == "8"
    assert queue["spec"]["flavorFungibility"] == {
        "whenCanBorrow": "Borrow",
        "whenCanPreempt": "TryNextFlavor",
    }
    assert queue["spec"]["preemption"]["withinClusterQueue"] == "LowerPriority"
    locals_ = {
        (r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"]): r.inputs["spec"]
        for r in hybrid.of_type(f"{KUEUE}:LocalQueue")
    }
    assert locals_ == {
        ("training", "gpu"): {"clusterQueue": f"{FLEET}-gpu"},
        ("inference", "gpu"): {"clusterQueue": f"{FLEET}-gpu"},
    }


def test_kueue_comes_from_a_pinned_chart(hybrid: ResourceGraph) -> None:
    release = _one(hybrid, "kubernetes:helm.sh/v3:Release", f"{FLEET}-scheduling-kueue").inputs
    assert (release["chart"], release["version"], release["namespace"]) == (
        "oci://registry.k8s.io/kueue/charts/kueue",
        "0.13.0",
        "kueue-system",
    )


def _command(graph: ResourceGraph, flavor: str) -> tuple[list[str], dict[str, Any]]:
    deployment = _one(
        graph, "kubernetes:apps/v1:Deployment", f"{FLEET}-scheduling-autoscaler-{flavor}-deployment"
    )
    assert deployment.inputs["metadata"]["namespace"] == "kube-system"
    pod = deployment.inputs["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert "@sha256:" in container["image"]
    return container["command"], {e["name"]: e for e in container["env"]}


def test_one_autoscaler_per_cloud_with_the_pools_timing(hybrid: ResourceGraph) -> None:
    common = [
        "--scale-down-unneeded-time=30m",
        "--scale-down-delay-after-add=300s",
        "--expander=least-waste",
        "--skip-nodes-with-local-storage=false",
    ]
    aws, env = _command(hybrid, "aws-us-east-1")
    assert "--cloud-provider=aws" in aws and all(flag in aws for flag in common)
    assert (
        "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,"
        f"k8s.io/cluster-autoscaler/{FLEET}" in aws
    )
    assert f"--leader-elect-resource-name={FLEET}-autoscaler-aws-us-east-1" in aws
    assert env["AWS_REGION"]["value"] == "us-east-1"
    ali, env = _command(hybrid, "alicloud-cn-hangzhou")
    assert "--cloud-provider=alicloud" in ali and all(flag in ali for flag in common)
    assert [f for f in ali if f.startswith("--nodes=")] and all(
        f.startswith("--nodes=0:8:") for f in ali if f.startswith("--nodes=")
    )
    # Keys from the operator's Secret, never inline.
    assert env["ACCESS_KEY_ID"]["valueFrom"]["secretKeyRef"]["name"] == "cluster-autoscaler-alicloud"
    tencent, env = _command(hybrid, "tencentcloud-ap-guangzhou")
    assert "--cloud-provider=tencentcloud" in tencent and all(flag in tencent for flag in common)
    assert env["SECRET_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "cluster-autoscaler-tencentcloud"
    roles = {
        r.inputs["metadata"]["name"]
        for r in hybrid.of_type("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
    }
    assert {
        f"{FLEET}-autoscaler-{f}"
        for f in ("aws-us-east-1", "alicloud-cn-hangzhou", "tencentcloud-ap-guangzhou")
    } <= roles


def test_queued_jobs_must_not_be_evictable(hybrid: ResourceGraph) -> None:
    policy = _one(
        hybrid,
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy",
        f"{FLEET}-scheduling-not-evictable",
    ).inputs["spec"]
    (validation,) = policy["validations"]
    assert "cluster-autoscaler.kubernetes.io/safe-to-evict" in validation["expression"]
    assert "kueue.x-k8s.io/queue-name" in policy["matchConditions"][0]["expression"]


def test_serving_scales_on_dcgm_utilisation(hybrid: ResourceGraph) -> None:
    scaled = _one(
        hybrid, "kubernetes:keda.sh/v1alpha1:ScaledObject", f"{FLEET}-scheduling-serving-inference-llm-server"
    ).inputs
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "prometheus"
    assert trigger["metadata"]["threshold"] == "70"
    assert "DCGM_FI_DEV_GPU_UTIL" in trigger["metadata"]["query"] and "[5m]" in trigger["metadata"]["query"]


def test_discovery_tags_an_aws_pool_needs() -> None:
    import yaml

    from gpufleet.components.spec import parse_fleet
    from tests.hybrid.conftest import ROOT

    stack = yaml.safe_load((ROOT / "stacks/Pulumi.hybrid.yaml").read_text())
    flavors = plan_flavors(
        parse_fleet(stack["config"]["gpufleet:fleet"]),
        {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"},
    )
    tags = discovery_tags(FLEET, flavors[1], 4)
    assert tags == {
        "k8s.io/cluster-autoscaler/enabled": "true",
        f"k8s.io/cluster-autoscaler/{FLEET}": "owned",
        "k8s.io/cluster-autoscaler/node-template/label/gpufleet.io/site": "aws-us-east-1",
        "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "4",
        "k8s.io/cluster-autoscaler/node-template/taint/gpufleet.io/site": "aws-us-east-1:NoSchedule",
    }


SITES = ("aws-us-east-1", "alicloud-cn-hangzhou", "tencentcloud-ap-guangzhou")


def test_each_autoscaler_reaches_dns_the_api_server_and_its_cloud_only(hybrid: ResourceGraph) -> None:
    """One NetworkPolicy per autoscaler selecting exactly its pods: no ingress; egress to CoreDNS on 53,
    the control plane (scheduler.control_plane_cidrs) on the API server's port, and 443."""
    for flavor in SITES:
        deployment = _one(
            hybrid, "kubernetes:apps/v1:Deployment", f"{FLEET}-scheduling-autoscaler-{flavor}-deployment"
        )
        policy = _one(
            hybrid,
            "kubernetes:networking.k8s.io/v1:NetworkPolicy",
            f"{FLEET}-scheduling-autoscaler-{flavor}-netpol",
        )
        assert policy.inputs["metadata"]["name"] == f"{FLEET}-autoscaler-{flavor}"
        assert policy.inputs["metadata"]["namespace"] == "kube-system"
        assert policy.inputs["spec"] == {
            "podSelector": {
                "matchLabels": {"app.kubernetes.io/name": "cluster-autoscaler", "gpufleet.io/site": flavor}
            },
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [],
            "egress": [
                {
                    "to": [
                        {
                            "namespaceSelector": {
                                "matchLabels": {"kubernetes.io/metadata.name": "kube-system"}
                            },
                            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
                        }
                    ],
                    "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
                },
                {
                    "to": [{"ipBlock": {"cidr": "192.168.16.10/32"}}],
                    "ports": [{"protocol": "TCP", "port": 6443}],
                },
                {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"protocol": "TCP", "port": 443}]},
            ],
        }
        pod_labels = deployment.inputs["spec"]["template"]["metadata"]["labels"]
        assert policy.inputs["spec"]["podSelector"]["matchLabels"].items() <= pod_labels.items()


def test_each_autoscaler_gets_a_short_lived_api_token_not_the_automount(hybrid: ResourceGraph) -> None:
    for flavor in SITES:
        deployment = _one(
            hybrid, "kubernetes:apps/v1:Deployment", f"{FLEET}-scheduling-autoscaler-{flavor}-deployment"
        )
        pod = deployment.inputs["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False
        [token] = [v for v in pod["volumes"] if v["name"] == "api-token"]
        sources = token["projected"]["sources"]
        # No audience: the API server's own; one hour.
        assert sources[0] == {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}
        assert sources[1]["configMap"] == {
            "name": "kube-root-ca.crt",
            "items": [{"key": "ca.crt", "path": "ca.crt"}],
        }
        assert sources[2]["downwardAPI"]["items"] == [
            {"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}
        ]
        autoscaler, *helpers = pod["containers"]
        assert autoscaler["volumeMounts"] == [
            {
                "name": "api-token",
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "readOnly": True,
            }
        ]
        # The AWS signing helper never sees the API token.
        assert all("api-token" not in str(h.get("volumeMounts")) for h in helpers)
        assert len(helpers) == (1 if flavor.startswith("aws") else 0)


def test_env_keys_are_skipped_with_the_reason_on_alibaba_and_tencent_only(hybrid: ResourceGraph) -> None:
    for flavor in SITES:
        deployment = _one(
            hybrid, "kubernetes:apps/v1:Deployment", f"{FLEET}-scheduling-autoscaler-{flavor}-deployment"
        )
        cloud = flavor.split("-")[0]
        annotations = deployment.inputs["metadata"].get("annotations")
        if cloud == "aws":
            assert annotations is None
        else:
            assert annotations == {"checkov.io/skip1": f"CKV_K8S_35={KEYS_FROM_ENV[cloud]}"}


def test_api_server_peers_default_to_the_joined_address_and_kubeadms_port() -> None:
    assert api_server_peers("10.0.0.5:443", []) == (["10.0.0.5/32"], [443, 6443])
    assert api_server_peers("10.0.0.5:6443", ["10.0.0.0/29"]) == (["10.0.0.0/29"], [6443])
    assert cloud_endpoints("alicloud", "cn-hangzhou") == [
        "ess.cn-hangzhou.aliyuncs.com",
        "location.aliyuncs.com",
        "ecs-cn-hangzhou.aliyuncs.com",
    ]
