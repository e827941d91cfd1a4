"""An EKS cluster with a spot GPU node group (GPU AMI type, taint) and GPU workloads deployed through
an explicit kubernetes Provider, compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "eks_gpu"

VARIANTS: dict[str, tuple[set[str], str, str]] = {
    "nodes-on-demand": ({"GF-COST-004"}, "gpu-spot", "runs 0% of its capacity on spot"),
    "nodes-untainted": ({"GF-K8S-001"}, "gpu-spot", "is not tainted nvidia.com/gpu=present:NoSchedule"),
    "nodes-ssh-key": ({"GF-ACC-002"}, "gpu-spot", "has SSH key pair 'ops' (remoteAccess.ec2SshKey)"),
    "no-quota": ({"GF-K8S-002"}, "training", "has no ResourceQuota with hard requests.nvidia.com/gpu"),
    "no-priority-class": ({"GF-K8S-004"}, "", "declares no PriorityClass"),
    "job-no-toleration": ({"GF-K8S-001"}, "finetune", "does not tolerate the nvidia.com/gpu=present"),
    "requests-only": ({"GF-K8S-001"}, "finetune", "requests nvidia.com/gpu without a limit"),
    "job-host-network": ({"GF-K8S-003"}, "finetune", "uses the host network"),
    "privileged": ({"GF-K8S-003"}, "finetune", "container 'trainer' is privileged"),
    "host-path": ({"GF-K8S-003"}, "embedder", "mounts hostPath volume 'models' (/mnt/models)"),
    "no-pdb": ({"GF-K8S-004"}, "finetune", "no PodDisruptionBudget in namespace 'training' selects"),
    "env-secret": ({"GF-K8S-005"}, "finetune", "sets env AWS_SECRET_ACCESS_KEY as a plain value"),
    "configmap-keys": ({"GF-K8S-005"}, "trainer-config", "key 'AWS_SECRET_ACCESS_KEY'"),
}


# The program installs the cluster autoscaler with a Helm v3 Release: the Kubernetes provider installs
# its objects without registering them, so the engine reports it as not inspected (advisory).
RELEASE = (
    "GF-ENGINE-001 cluster-autoscaler: kubernetes:helm.sh/v3:Release 'cluster-autoscaler' could not be "
    "looked inside offline: a Helm release: the Kubernetes provider installs the chart's objects itself "
    "and never registers them as resources, so no policy sees them; no policy judged what it creates"
)


def test_compliant_program_has_no_findings() -> None:
    assert outcome(PROGRAM).summary() == [RELEASE]


def test_workloads_go_through_the_explicit_kubernetes_provider() -> None:
    graph = run_variant(PROGRAM)
    (provider,) = graph.of_type("pulumi:providers:kubernetes")
    (job,) = graph.of_type("kubernetes:batch/v1:Job")
    (group,) = graph.of_type("aws:eks/nodeGroup:NodeGroup")
    assert job.provider is not None and job.provider.startswith(provider.urn)
    assert group.inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    assert group.inputs["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == rule_ids | {"GF-ENGINE-001"}, found.summary()
    matching = [v for v in found.violations if words in v.message]
    assert matching, found.summary()
    if resource:
        assert any(v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in matching)


def test_preview_with_unknown_cluster_and_role_references_stays_compliant() -> None:
    preview = judge(as_preview(run_variant(PROGRAM)))
    assert preview.summary() == [RELEASE]


def test_preview_ssh_key_on_gpu_node_group_is_still_caught() -> None:
    preview = judge(as_preview(run_variant(PROGRAM, "nodes-ssh-key")))
    assert preview.ids() == {"GF-ACC-002", "GF-ENGINE-001"}
