"""Run a raw-SDK Pulumi program offline, judge it with the whole pack, and replay it as a preview.

Each fixture program reads `<project>:break` from config and breaks one guardrail for each value;
`none` is the compliant program. Runs are cached per (program, variant), so a test module pays the
engine once per variant however many assertions it makes.

`as_preview` turns a recorded graph into what a first `pulumi preview` sends: outputs computed by the
cloud (ids, ARNs, generated names) are unknown, and so is every input built from them. A JSON
document built with `apply` from an unknown ARN is unknown as a whole, as it is in the real engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, StackResult, evaluate_stack
from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import judged

# Inputs whose whole value is a document usually built with `apply` from other resources' outputs.
DOCUMENT_INPUTS = frozenset({"policy", "assumeRolePolicy", "content", "document", "accessPolicies"})


@dataclass(frozen=True)
class Outcome:
    graph: ResourceGraph
    result: StackResult

    @property
    def violations(self) -> list[Finding]:
        """Every finding but GF-STOR-008's advisory on a Tencent system disk, which no program can clear
        (`tests.project_policy.judged`); `result.violations` keeps them all."""
        return judged(self.result.violations)

    def ids(self) -> set[str]:
        return {v.rule_id for v in self.violations}

    def mandatory(self) -> list[Finding]:
        return self.result.mandatory_violations

    def of(self, rule_id: str) -> list[Finding]:
        return [v for v in self.violations if v.rule_id == rule_id]

    def summary(self) -> list[str]:
        return [f"{v.rule_id} {v.urn.rsplit('::', 1)[-1]}: {v.message}" for v in self.violations]


def project_name(project_dir: Path) -> str:
    return str(yaml.safe_load((project_dir / "Pulumi.yaml").read_text())["name"])


@cache
def run_variant(project_dir: Path, variant: str = "none", stack: str = "dev") -> ResourceGraph:
    overrides = {f"{project_name(project_dir)}:break": variant}
    return run_program(project_dir, stack, config_overrides=overrides)


def judge(graph: ResourceGraph) -> Outcome:
    return Outcome(graph, evaluate_stack(graph, list(default_registry())))


@cache
def outcome(project_dir: Path, variant: str = "none", stack: str = "dev") -> Outcome:
    return judge(run_variant(project_dir, variant, stack))


def _computed(resource: Resource) -> set[str]:
    """Output strings the cloud computes (absent from the inputs): unknown until the resource exists."""
    values = {
        value
        for key, value in resource.outputs.items()
        if isinstance(value, str) and value and resource.inputs.get(key) != value
    }
    if resource.id:
        values.add(resource.id)
    return values


def _contains(value: Any, computed: set[str]) -> bool:
    if isinstance(value, str):
        return any(c in value for c in computed)
    if isinstance(value, Mapping):
        return any(_contains(v, computed) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_contains(v, computed) for v in value)
    return False


def _blank(value: Any, computed: set[str]) -> Any:
    if isinstance(value, str):
        return UNKNOWN_STRING if value in computed or _contains(value, computed) else value
    if isinstance(value, Mapping):
        return {k: _blank(v, computed) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_blank(v, computed) for v in value]
    return value


def as_preview(graph: ResourceGraph, *, keep_known: Iterable[str] = ()) -> ResourceGraph:
    """The graph as a first preview sees it (see the module docstring).

    `keep_known` lists resource names whose computed outputs stay known (e.g. a resource that
    already exists), to isolate one unknown reference at a time.
    """
    by_urn = {r.urn: r for r in graph.resources}
    kept = set(keep_known)
    preview: list[Resource] = []
    for resource in graph.resources:
        inputs = dict(resource.inputs)
        for key, deps in resource.property_dependencies.items():
            computed: set[str] = set()
            for urn in deps:
                dep = by_urn.get(urn)
                if dep is not None and dep.custom and dep.name not in kept:
                    computed |= _computed(dep)
            if key not in inputs or not computed or not _contains(inputs[key], computed):
                continue
            whole = isinstance(inputs[key], str) or key in DOCUMENT_INPUTS
            inputs[key] = UNKNOWN_STRING if whole else _blank(inputs[key], computed)
        preview.append(dataclasses.replace(resource, inputs=inputs, outputs={}))
    return ResourceGraph(project=graph.project, stack=graph.stack, resources=preview, config=graph.config)


def with_input(graph: ResourceGraph, name: str, resource_type: str, path: str, value: Any) -> ResourceGraph:
    """A copy of `graph` with one input (dotted path, list indices as numbers) of one resource replaced."""
    replaced: list[Resource] = []
    found = False
    for resource in graph.resources:
        if resource.name == name and resource.type == resource_type:
            found = True
            inputs = _set(resource.inputs, path.split("."), value)
            outputs = _set(resource.outputs, path.split("."), value) if resource.outputs else {}
            replaced.append(dataclasses.replace(resource, inputs=inputs, outputs=outputs))
        else:
            replaced.append(resource)
    if not found:
        raise KeyError(f"no {resource_type} named {name!r} in the graph")
    return ResourceGraph(project=graph.project, stack=graph.stack, resources=replaced, config=graph.config)


def _set(obj: Any, parts: list[str], value: Any) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(obj, list):
        copy_list = list(obj)
        copy_list[int(head)] = _set(copy_list[int(head)], rest, value) if rest else value
        return copy_list
    copy = dict(obj)
    copy[head] = _set(copy.get(head, {}), rest, value) if rest else value
    return copy
