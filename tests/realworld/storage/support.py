"""Runs the storage fixture programs once per variant and judges them with the whole pack.

Alibaba Cloud has no budget resource, so its budget is declared in the policy config, as a pack
user does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.realworld.aws.harness import Outcome, run_variant

MIXED = Path(__file__).resolve().parent / "mixed"
POLICY_CONFIG = {"GF-COST-002": {"budgets": {"monthly": 2000, "currency": "CNY"}}}


def judge(graph: ResourceGraph) -> Outcome:
    return Outcome(graph, evaluate_stack(graph, list(default_registry()), POLICY_CONFIG))


@cache
def outcome(project: Path, variant: str = "none") -> Outcome:
    return judge(run_variant(project, variant))
