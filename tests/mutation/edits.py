"""Edits of a recorded ResourceGraph, made the way a change to the program would show up in it.

Inputs stay in the engine's wire form (camelCase names, IAM documents as JSON strings). A resource a
user adds with the raw SDK at the top of the program gets the URN the engine builds for it
(`urn:pulumi:<stack>::<project>::<type>::<name>`), the stack as its parent, and property
dependencies on the resources whose outputs it takes, exactly as the engine records them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpufleet.graph import Resource, ResourceGraph

COST_TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"}
STACK_TYPE = "pulumi:pulumi:Stack"


def clone(graph: ResourceGraph) -> ResourceGraph:
    """An independent copy: editing it never touches the session's golden graph."""
    return ResourceGraph.from_json(copy.deepcopy(graph.to_json()))


def apply(
    golden: ResourceGraph, mutate: Callable[[ResourceGraph], tuple[ResourceGraph, str]]
) -> tuple[ResourceGraph, str]:
    """Run `mutate` on a copy of `golden`, then settle the outputs of every resource it edited.

    Stack policies see a resource's inputs overlaid with its outputs, and the recorded outputs echo
    the inputs the program gave. A changed program gets outputs that echo its changed inputs, so the
    input keys of each output map are rewritten from the edited inputs; computed state (ids, ARNs) is
    kept, and `tagsAll` follows `tags` (the stacks set no provider default tags).
    """
    graph, name = mutate(clone(golden))
    for resource in graph.resources:
        before = golden.get(resource.urn)
        if before is None or not resource.outputs:
            continue
        state = {
            key: value
            for key, value in resource.outputs.items()
            if key not in before.inputs and key != "tagsAll"
        }
        settled = {**state, **copy.deepcopy(resource.inputs)}
        tags = resource.inputs.get("tags")
        if "tagsAll" in resource.outputs and isinstance(tags, dict):
            settled["tagsAll"] = dict(tags)
        resource.outputs.clear()
        resource.outputs.update(settled)
    return graph, name


def cost_tags(graph: ResourceGraph) -> dict[str, str]:
    """The cost tags the fleet puts on every taggable resource of the stack."""
    return {**COST_TAGS, "env": graph.stack}


def fleet_name(graph: ResourceGraph, suffix: str) -> str:
    """The logical name of a fleet child: `gpufleet-<stack>-<suffix>`."""
    return f"gpufleet-{graph.stack}-{suffix}"


def find(graph: ResourceGraph, suffix: str) -> Resource:
    """The one fleet child named `gpufleet-<stack>-<suffix>`."""
    name = fleet_name(graph, suffix)
    found = graph.named(name)
    if len(found) != 1:
        raise LookupError(f"expected one resource named {name!r} in stack {graph.stack}, found {len(found)}")
    return found[0]


def inputs(graph: ResourceGraph, suffix: str) -> dict[str, Any]:
    """The (mutable) inputs of a fleet child of a cloned graph."""
    return find(graph, suffix).inputs


def without(graph: ResourceGraph, *suffixes: str) -> ResourceGraph:
    """The graph with the named fleet children removed, as if the program no longer declared them."""
    doomed = {find(graph, suffix).urn for suffix in suffixes}
    data = graph.to_json()
    data["resources"] = [r for r in data["resources"] if r["urn"] not in doomed]
    return ResourceGraph.from_json(data)


def add(
    graph: ResourceGraph,
    type_token: str,
    name: str,
    resource_inputs: Mapping[str, Any],
    *,
    references: Mapping[str, Sequence[Resource]] | None = None,
    resource_id: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> Resource:
    """Declare a custom resource at the top of the program. `references` maps each input that takes
    another resource's output to those resources (the engine's property dependencies); `state` is
    what the provider computes (ARNs), recorded as outputs over the echoed inputs as the engine's
    mocks do. Without `state` the resource has no outputs and stack policies see its inputs."""
    stack = next(r for r in graph.resources if r.type == STACK_TYPE)
    property_dependencies = {key: tuple(r.urn for r in refs) for key, refs in (references or {}).items()}
    dependencies = tuple(dict.fromkeys(urn for urns in property_dependencies.values() for urn in urns))
    resource = Resource(
        urn=f"urn:pulumi:{graph.stack}::{graph.project}::{type_token}::{name}",
        type=type_token,
        name=name,
        custom=True,
        inputs=copy.deepcopy(dict(resource_inputs)),
        outputs={**copy.deepcopy(dict(resource_inputs)), **state, "id": resource_id} if state else {},
        parent=stack.urn,
        dependencies=dependencies,
        property_dependencies=property_dependencies,
        id=resource_id,
    )
    graph.add(resource)
    return resource


def rewire(graph: ResourceGraph, suffix: str, key: str, references: Sequence[Resource]) -> ResourceGraph:
    """The graph with input `key` of a fleet child now taking its value from `references`."""
    target = find(graph, suffix)
    data = graph.to_json()
    for item in data["resources"]:
        if item["urn"] != target.urn:
            continue
        dropped = set(item["property_dependencies"].get(key, ()))
        item["property_dependencies"][key] = [r.urn for r in references]
        still = {urn for urns in item["property_dependencies"].values() for urn in urns}
        kept = [urn for urn in item["dependencies"] if urn not in dropped or urn in still]
        item["dependencies"] = list(dict.fromkeys([*kept, *(r.urn for r in references)]))
    return ResourceGraph.from_json(data)


def document(resource: Resource, key: str = "policy") -> dict[str, Any]:
    """An IAM-style JSON document input, decoded."""
    value = resource.inputs[key]
    decoded: dict[str, Any] = json.loads(value) if isinstance(value, str) else copy.deepcopy(value)
    return decoded


def set_document(resource: Resource, doc: Mapping[str, Any], key: str = "policy") -> None:
    """Write a document input back in its wire form (a JSON string)."""
    resource.inputs[key] = json.dumps(doc)


def add_statement(resource: Resource, statement: Mapping[str, Any], key: str = "policy") -> None:
    doc = document(resource, key)
    doc["Statement"] = [*doc["Statement"], dict(statement)]
    set_document(resource, doc, key)


def asg_tag(resource: Resource, key: str, value: str) -> None:
    """Set one tag of an auto scaling group's `tags` list of {key, value, propagateAtLaunch}."""
    tags = resource.inputs["tags"]
    for tag in tags:
        if tag["key"] == key:
            tag["value"] = value
            return
    tags.append({"key": key, "value": value, "propagateAtLaunch": True})
