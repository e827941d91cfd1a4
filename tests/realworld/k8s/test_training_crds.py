"""GPU training through operators' custom resources (Kubeflow PyTorchJob, RayCluster, Volcano Job on MIG
slices, Argo Workflow with a podSpecPatch), compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "training_crds"

VARIANTS: dict[str, tuple[str, str, str]] = {
    "worker-no-toleration": (
        "GF-K8S-001",
        "llm-pretrain",
        "PyTorchJob 'llm-pretrain' (replica Worker) uses nvidia.com/gpu but does not tolerate",
    ),
    "no-mig-quota": (
        "GF-K8S-002",
        "training",
        "has no ResourceQuota with hard requests.nvidia.com/mig-1g.5gb",
    ),
    "ray-host-network": (
        "GF-K8S-003",
        "tuning",
        "RayCluster 'tuning' (worker group 'gpu-workers') uses the host network (hostNetwork: true)",
    ),
    "volcano-privileged": (
        "GF-K8S-003",
        "eval",
        "Job 'eval' task 'scorer' container 'trainer' is privileged",
    ),
    "argo-patch-host-pid": (
        "GF-K8S-003",
        "preprocess",
        "Workflow 'preprocess' (template 'tokenize') uses the host PID namespace (hostPID: true)",
    ),
    "ray-pdb-elsewhere": (
        "GF-K8S-004",
        "tuning",
        "RayCluster 'tuning' runs GPU work but no PodDisruptionBudget in namespace 'training' selects its "
        "worker group 'gpu-workers' pods",
    ),
    "env-secret": (
        "GF-K8S-005",
        "llm-pretrain",
        "PyTorchJob 'llm-pretrain' replica Worker container 'trainer' sets env AWS_SECRET_ACCESS_KEY",
    ),
}


def test_compliant_program_has_no_findings() -> None:
    assert outcome(PROGRAM).summary() == []


def test_custom_resources_register_under_their_own_group_and_kind() -> None:
    graph = run_variant(PROGRAM)
    (job,) = graph.of_type("kubernetes:kubeflow.org/v1:PyTorchJob")
    assert set(job.inputs["spec"]["pytorchReplicaSpecs"]) == {"Master", "Worker"}
    assert len(graph.of_type("kubernetes:batch.volcano.sh/v1alpha1:Job")) == 1
    assert graph.of_type("kubernetes:batch/v1:Job") == []


def test_requests_without_limits_fire_in_every_operator() -> None:
    found = outcome(PROGRAM, "requests-only")
    assert found.ids() == {"GF-K8S-001"}, found.summary()
    assert sorted(v.message.split(" requests ")[0] for v in found.of("GF-K8S-001")) == [
        "Job 'eval' task 'scorer' container 'trainer'",
        "PyTorchJob 'llm-pretrain' replica Master container 'trainer'",
        "PyTorchJob 'llm-pretrain' replica Worker container 'trainer'",
        "RayCluster 'tuning' worker group 'gpu-workers' container 'trainer'",
    ]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_id, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == {rule_id}, found.summary()
    (violation,) = found.of(rule_id)
    assert words in violation.message
    assert violation.urn.endswith(f"::{resource}")


def test_preview_stays_compliant() -> None:
    assert judge(as_preview(run_variant(PROGRAM))).summary() == []
