"""`check` builds the pack's `PolicyResource` objects once per stack: pricing (pool discovery) and the
stack policies read the same list (building them twice cost about 40% of an evaluation)."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet import evaluate
from gpufleet.cli import stack_cost, with_estimates
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.registry import default_registry

STACK = "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"


def _graph() -> ResourceGraph:
    return ResourceGraph(
        project="p",
        stack="dev",
        config={"aws:region": "us-east-1"},
        resources=[
            Resource(urn=STACK, type="pulumi:pulumi:Stack", name="p-dev", custom=False, inputs={}),
            Resource(
                urn="urn:pulumi:dev::p::aws:ec2/instance:Instance::gpu",
                type="aws:ec2/instance:Instance",
                name="gpu",
                custom=True,
                inputs={"instanceType": "g5.xlarge", "ami": "ami-1"},
                parent=STACK,
            ),
        ],
    )


def test_pricing_and_judging_share_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = evaluate.build_policy_resources

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(evaluate, "build_policy_resources", counted)
    graph = _graph()
    block, estimates = stack_cost(graph, "Pulumi.dev.yaml")
    result = evaluate.evaluate_stack(graph, list(default_registry()), with_estimates({}, estimates))
    assert len(calls) == 1
    assert block["hourly_max"] > 0
    assert "GF-COST-001" in {f.rule_id for f in result.violations}


def test_a_resource_added_later_is_seen() -> None:
    graph = _graph()
    first = evaluate.stack_policy_resources(graph)
    assert evaluate.stack_policy_resources(graph) is first
    graph.add(
        Resource(
            urn="urn:pulumi:dev::p::aws:s3/bucket:Bucket::b",
            type="aws:s3/bucket:Bucket",
            name="b",
            custom=True,
            inputs={},
            parent=STACK,
        )
    )
    again = evaluate.stack_policy_resources(graph)
    assert again is not first
    assert [r.name for r in again if r.resource_type == "aws:s3/bucket:Bucket"] == ["b"]
