"""The whole policy pack, offline, on this repository's own stacks: dev and prod report nothing."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import project_policy_config

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _graph(stack: str) -> ResourceGraph:
    return run_program(ROOT, stack)


def _check(stack: str) -> StackResult:
    return evaluate_stack(_graph(stack), list(default_registry()), project_policy_config())


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_stack_has_no_violation_at_all(stack: str) -> None:
    result = _check(stack)
    assert [(v.rule_id, v.urn, v.message) for v in result.violations] == []


def test_prod_resilience_rules_judged_the_replica_and_the_second_region() -> None:
    result = _check("prod")
    skipped = {n["rule_id"] for n in result.not_applicable}
    resilience = {"GF-DR-001", "GF-DR-002", "GF-COST-008", "GF-STOR-002"}
    # A rule missing from the pack is neither skipped nor violated: make sure all four were run.
    assert resilience <= set(default_registry().ids())
    assert resilience.isdisjoint(skipped)
    assert [v.rule_id for v in result.violations if v.rule_id in resilience] == []


def test_prod_without_its_second_region_is_reported_by_both_resilience_rules() -> None:
    # The negative control: the same pack flags prod as it was before the second region.
    fleet = dict(_graph("prod").config["gpufleet:fleet"])
    fleet["storage"] = {**fleet["storage"], "checkpoints": dict(fleet["storage"]["checkpoints"])}
    del fleet["storage"]["checkpoints"]["replicate_to"]
    fleet["pools"] = {k: v for k, v in fleet["pools"].items() if k != "burst-a10g-west"}
    fleet["network"] = {k: v for k, v in fleet["network"].items() if k != "regions"}
    result = evaluate_stack(
        run_program(ROOT, "prod", config_overrides={"gpufleet:fleet": fleet}),
        list(default_registry()),
        project_policy_config(),
    )
    assert sorted(v.rule_id for v in result.violations) == ["GF-DR-001", "GF-DR-002"]


def test_replication_waits_for_versioning_and_its_permissions() -> None:
    graph = _graph("prod")
    urn = {r.name: r.urn for r in graph}
    versioning_and_permissions = {
        urn["gpufleet-prod-storage-versioning"],
        urn["gpufleet-prod-us-west-2-storage-versioning"],
        urn["gpufleet-prod-replication-permissions"],
    }
    configs = graph.of_type("aws:s3/bucketReplicationConfig:BucketReplicationConfig")
    assert sorted(c.name for c in configs) == [
        "gpufleet-prod-replication-to-primary",
        "gpufleet-prod-replication-to-replica",
    ]
    for config in configs:
        assert versioning_and_permissions <= set(config.dependencies), config.name
    site = graph.named("gpufleet-prod-us-west-2")[0]
    assert site.type == "gpufleet:fleet:RegionalSite"
    # The region's RegionalSite and the replication are children of the region's AWS site.
    aws_site = graph.get(site.parent or "")
    assert aws_site is not None and aws_site.name == "gpufleet-prod-aws-us-west-2"
    assert aws_site.type == "gpufleet:sites:AwsSite"
    assert graph.get(aws_site.parent or "") is graph.of_type("gpufleet:fleet:HybridGpuFleet")[0]
    replication = graph.named("gpufleet-prod-replication")[0]
    assert replication.parent == aws_site.urn
