"""Run a realistic program once per variant and judge it with the whole policy pack.

Variants are chosen through the program's own stack config (`break`), so each one is the program a
user would write with that one mistake. `replaced` rewrites one input of one resource in a recorded
graph: at preview the ids and ARNs of resources created in the same program are unknown, which the
offline engine's mocks never show.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import unjudgeable_system_disk

# Alibaba Cloud has no budget resource: the stack's budget is declared in the pack's config.
POLICY_CONFIG: Mapping[str, Any] = {
    "stack-has-budget-alert": {"budgets": {"monthly": 20000, "currency": "CNY"}}
}


@cache
def graph_of(project: Path, variant: str = "") -> ResourceGraph:
    return run_program(project, "dev", config_overrides={"break": variant} if variant else None)


def judge(graph: ResourceGraph) -> StackResult:
    return evaluate_stack(graph, list(default_registry()), POLICY_CONFIG)


@cache
def result_of(project: Path, variant: str = "") -> StackResult:
    return judge(graph_of(project, variant))


def mandatory(result: StackResult) -> list[Finding]:
    return result.mandatory_violations


# Advice a program gets on its first deployment however it is written: an Alibaba Cloud key of origin
# EXTERNAL has no material until it is imported outside Pulumi, so the OSS bucket the gpu_stack
# program encrypts with it cannot be created in the same deployment (GF-OPS-005, advisory; the
# runbook deploys the key first). Variants are judged on what they add to it.
FIRST_DEPLOY_ADVICE = frozenset({("GF-OPS-005", "datasets")})


def first_deploy_advice(finding: Finding) -> bool:
    return (finding.rule_id, finding.urn.rsplit("::", 1)[-1]) in FIRST_DEPLOY_ADVICE


def ids(result: StackResult) -> set[str]:
    return {
        finding.rule_id
        for finding in result.violations
        if not first_deploy_advice(finding) and not unjudgeable_system_disk(finding)
    }


def of_rule(result: StackResult, rule_id: str) -> list[Finding]:
    return [finding for finding in result.violations if finding.rule_id == rule_id]


def replaced(graph: ResourceGraph, name: str, path: str, value: Any) -> ResourceGraph:
    """A copy of `graph` whose resource `name` has `value` at the dotted input `path` (None removes
    nothing: it sets the value to null, as an unset optional input arrives)."""
    resources = []
    found = False
    keys = path.split(".")
    for resource in graph.resources:
        if resource.name != name or not resource.custom:
            resources.append(resource)
            continue
        found = True
        # Stack policies see the inputs overlaid with the outputs: change both alike.
        outputs = _set(resource.outputs, keys, value) if keys[0] in resource.outputs else resource.outputs
        inputs = _set(resource.inputs, keys, value)
        resources.append(dataclasses.replace(resource, inputs=inputs, outputs=outputs))
    if not found:
        raise KeyError(f"no resource named {name!r} in the graph")
    return ResourceGraph(project=graph.project, stack=graph.stack, resources=resources, config=graph.config)


def _set(obj: Any, keys: list[str], value: Any) -> Any:
    if not keys:
        return value
    head, rest = keys[0], keys[1:]
    if isinstance(obj, list):
        copy = list(obj)
        copy[int(head)] = _set(copy[int(head)], rest, value)
        return copy
    copy_map = dict(obj or {})
    copy_map[head] = _set(copy_map.get(head), rest, value)
    return copy_map
