"""Run an operability program once per variant and judge it with the operability family.

The programs here are written around what GF-OPS judges (queues, alarms, agents, keys, account
settings); they are judged by the family they exercise, so that each variant shows its one mistake.
`queue-fleet:break`-style config selects the variant; `none` is the program as it should be.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry


@cache
def graph_of(project: Path, variant: str = "none") -> ResourceGraph:
    name = yaml.safe_load((project / "Pulumi.yaml").read_text())["name"]
    return run_program(project, "dev", config_overrides={f"{name}:break": variant})


def judge(graph: ResourceGraph) -> StackResult:
    return evaluate_stack(graph, default_registry().select(families=["ops"]))


@cache
def result_of(project: Path, variant: str = "none") -> StackResult:
    return judge(graph_of(project, variant))


def summary(findings: list[Finding]) -> list[tuple[str, str, str]]:
    """(rule id, enforcement, resource name) of each finding, in report order."""
    return [(f.rule_id, f.enforcement, f.urn.rsplit("::", 1)[-1]) for f in findings]
