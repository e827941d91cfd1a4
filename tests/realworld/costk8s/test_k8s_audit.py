"""GPU workloads of every kind (Deployment, Job, CronJob, StatefulSet, bare Pod), a Karpenter GPU
NodePool, a namespace quota, and the account's audit trail and log groups (AWS, and Alibaba SLS /
Tencent CLS in the china-* variants), compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.graph import UNKNOWN_STRING
from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant, with_input

PROGRAM = Path(__file__).resolve().parent / "k8s_audit"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"

# variant -> (mandatory rule ids, resource named, words of the message)
MANDATORY: dict[str, tuple[set[str], str, str]] = {
    "no-quota": ({"GF-K8S-002"}, "ranking", "has no ResourceQuota with hard requests.nvidia.com/gpu"),
    "privileged-init": ({"GF-K8S-003"}, "ranker", "init container 'fetch-model' is privileged"),
    "host-path": ({"GF-K8S-003"}, "ranker", "mounts hostPath volume 'models' (/mnt/models)"),
    "host-network": ({"GF-K8S-003"}, "reindex", "uses the host network (hostNetwork: true)"),
    "host-pid": ({"GF-K8S-003"}, "debug-shell", "uses the host PID namespace"),
    "job-no-toleration": ({"GF-K8S-001"}, "reindex", "does not tolerate the nvidia.com/gpu=present"),
    "nodepool-untainted": ({"GF-K8S-001"}, "gpu-nodes", "is not tainted nvidia.com/gpu=present:NoSchedule"),
    "configmap-key": ({"GF-K8S-005"}, "ranker-settings", "key 'AWS_SECRET_ACCESS_KEY'"),
    "env-value": ({"GF-K8S-005"}, "uploader", "sets env AWS_SECRET_ACCESS_KEY as a plain value"),
    "retention-30": ({"GF-AUD-002"}, "ranker", "keeps logs for 30 days (retentionInDays)"),
}
ADVISORY: dict[str, tuple[str, str, str]] = {
    "single-region-trail": ("GF-AUD-001", "account", "CloudTrail trail 'account' is single-region"),
    "log-unencrypted": ("GF-AUD-003", "ranker", "CloudWatch log group 'ranker' has no kmsKeyId"),
}
# A key-less `operator: Exists` toleration tolerates every taint; unset retention never expires.
STILL_COMPLIANT = ("cron-tolerate-all", "retention-unset")
# The China clouds need their own budget (GF-COST-002), which this AWS-first program does not declare.
CHINA: dict[str, tuple[set[str], str]] = {
    "china-ok": (set(), ""),
    "china-sls-90": ({"GF-AUD-002"}, "SLS logstore 'ranking-audit' keeps logs for 90 days (retentionPeriod)"),
    "china-cls-30": ({"GF-AUD-002"}, "CLS topic 'ranking-audit' keeps logs for 30 days (period)"),
}


def mandatory_ids(variant: str) -> set[str]:
    return {v.rule_id for v in outcome(PROGRAM, variant).mandatory()}


def test_compliant_program_has_no_mandatory_findings() -> None:
    found = outcome(PROGRAM)
    assert found.mandatory() == [], found.summary()
    # A bare Pod has no controller a PodDisruptionBudget could protect: advisory only.
    assert found.ids() == {"GF-K8S-004"}


def test_every_gpu_workload_kind_is_seen() -> None:
    found = outcome(PROGRAM, "requests-only")
    assert mandatory_ids("requests-only") == {"GF-K8S-001"}
    assert sorted(v.urn.rsplit("::", 1)[-1] for v in found.of("GF-K8S-001")) == [
        "debug-shell",
        "nightly-eval",
        "ranker",
        "reindex",
        "vector-index",
    ]


@pytest.mark.parametrize("variant", STILL_COMPLIANT)
def test_settings_that_break_nothing_stay_compliant(variant: str) -> None:
    assert mandatory_ids(variant) == set(), outcome(PROGRAM, variant).summary()


@pytest.mark.parametrize("variant", sorted(MANDATORY))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = MANDATORY[variant]
    found = outcome(PROGRAM, variant)
    assert mandatory_ids(variant) == rule_ids, found.summary()
    matching = [v for v in found.mandatory() if words in v.message]
    assert any(v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in matching), (
        found.summary()
    )


@pytest.mark.parametrize("variant", sorted(ADVISORY))
def test_advisory_breaks(variant: str) -> None:
    rule_id, resource, words = ADVISORY[variant]
    found = outcome(PROGRAM, variant)
    assert found.mandatory() == []
    (finding,) = found.of(rule_id)
    assert finding.urn.endswith(f"::{resource}") and words in finding.message


@pytest.mark.parametrize("variant", sorted(CHINA))
def test_china_log_retention(variant: str) -> None:
    rule_ids, words = CHINA[variant]
    found = outcome(PROGRAM, variant)
    assert mandatory_ids(variant) - {"GF-COST-002"} == rule_ids, found.summary()
    assert all(words in v.message for v in found.of("GF-AUD-002"))


def test_preview_with_unknown_key_arn_stays_compliant() -> None:
    assert judge(as_preview(run_variant(PROGRAM))).mandatory() == []


def test_unknown_retention_could_not_be_judged() -> None:
    graph = with_input(run_variant(PROGRAM), "ranker", LOG_GROUP, "retentionInDays", UNKNOWN_STRING)
    (finding,) = judge(graph).of("GF-AUD-002")
    assert finding.urn.endswith("::ranker") and "could not be judged" in finding.message
