"""One policy judged through the offline engine, as `gpufleet check` judges it: each finding as
(rule id, enforcement, message, resource name), so a test pins the whole verdict and not just the text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.rule import GfPolicy

STACK_URN = "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"

Verdict = tuple[str, str, str, str]


def node(
    resource_type: str,
    name: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    refs: Mapping[str, Sequence[Resource]] | None = None,
) -> Resource:
    """A custom resource of the stack; `refs` are property dependencies (property -> resources)."""
    prop_deps = {key: tuple(r.urn for r in targets) for key, targets in (refs or {}).items()}
    return Resource(
        urn=f"urn:pulumi:dev::p::{resource_type}::{name}",
        type=resource_type,
        name=name,
        custom=True,
        inputs=dict(inputs or {}),
        parent=STACK_URN,
        dependencies=tuple(urn for urns in prop_deps.values() for urn in urns),
        property_dependencies=prop_deps,
    )


def verdicts(
    policy: GfPolicy,
    resources: Sequence[Resource],
    *,
    config: Mapping[str, Any] | None = None,
    stack_config: Mapping[str, Any] | None = None,
) -> list[Verdict]:
    """The findings `policy` reports on a stack of `resources`, as (rule id, enforcement, message, name)."""
    stack = Resource(urn=STACK_URN, type="pulumi:pulumi:Stack", name="p-dev", custom=False, inputs={})
    graph = ResourceGraph(
        project="p", stack="dev", config=dict(stack_config or {}), resources=[stack, *resources]
    )
    policy_config = {policy.name: dict(config)} if config else None
    result = evaluate_stack(graph, [policy], policy_config, engine_rule=False)
    names = {r.urn: r.name for r in graph}
    return [(f.rule_id, f.enforcement, f.message, names.get(f.urn, f.urn)) for f in result.violations]
