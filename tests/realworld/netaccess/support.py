"""Run the network and access fixtures once per variant and judge them with the whole pack."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.realworld.aws.harness import Outcome, run_variant

HERE = Path(__file__).resolve().parent
AWS_FLEET = HERE / "aws_fleet"
CN_FLEET = HERE / "cn_fleet"
STACK = "prod"
# Alibaba Cloud has no budget resource: the stack's budget is declared in the pack config instead.
CN_CONFIG: dict[str, Any] = {"stack-has-budget-alert": {"budgets": {"monthly": 50000, "currency": "CNY"}}}


def judge(graph: ResourceGraph, config: Mapping[str, Any] | None = None) -> Outcome:
    return Outcome(graph, evaluate_stack(graph, list(default_registry()), config))


def graph_of(project: Path, variant: str = "none") -> ResourceGraph:
    return run_variant(project, variant, STACK)


@cache
def _outcome(project: Path, variant: str, config_json: str) -> Outcome:
    return judge(graph_of(project, variant), json.loads(config_json) or None)


def outcome(project: Path, variant: str = "none", config: Mapping[str, Any] | None = None) -> Outcome:
    return _outcome(project, variant, json.dumps(config or {}, sort_keys=True))
