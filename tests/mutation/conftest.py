"""The golden stacks, run once per session through the offline engine, and their baseline findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy
from tests.project_policy import project_policy_config

REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN_STACKS = ("dev", "prod")


@pytest.fixture(scope="session")
def policies() -> list[GfPolicy]:
    return list(default_registry())


@pytest.fixture(scope="session")
def golden() -> dict[str, ResourceGraph]:
    return {stack: run_program(REPO_ROOT, stack) for stack in GOLDEN_STACKS}


@pytest.fixture(scope="session")
def baseline(golden: dict[str, ResourceGraph], policies: list[GfPolicy]) -> dict[str, StackResult]:
    return {
        stack: evaluate_stack(graph, policies, project_policy_config()) for stack, graph in golden.items()
    }
