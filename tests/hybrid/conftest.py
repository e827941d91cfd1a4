"""The hybrid stack (stacks/Pulumi.hybrid.yaml), run once per session through the offline engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.cli import stack_cost, with_estimates
from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import project_policy_config

ROOT = Path(__file__).resolve().parents[2]
FLEET = "gpufleet-hybrid"
ONPREM_NODES = "192.168.16.0/20"


@pytest.fixture(scope="session")
def hybrid() -> ResourceGraph:
    return run_program(ROOT, "hybrid")


def judge(graph: ResourceGraph) -> StackResult:
    """Every rule of the pack, with the project's policy config and the stack's priced estimates and
    declared budget (what GF-COST-002 holds Alibaba Cloud to), as `gpufleet check` runs them."""
    _, estimates = stack_cost(graph, "stacks/Pulumi.hybrid.yaml")
    config = with_estimates(project_policy_config(), estimates)
    return evaluate_stack(graph, list(default_registry()), config)
