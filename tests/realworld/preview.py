"""Replay a recorded graph as a first `pulumi preview` sees it, for programs on any cloud.

What a first preview does not know, on Alibaba Cloud and Tencent Cloud as on AWS: the id of every
resource the program creates (`vpc-...`, `vsw-...`, `sg-...`, `i-...`/`ins-...`, `asg-...`, KMS key
ids, CAM role and policy ids, log set and topic ids) and every output the cloud computes rather than
echoes from the inputs (RAM role and policy ARNs `acs:ram::...`, KMS key ARNs, OSS endpoints, COS
bucket URLs, names the cloud generates when the program gives none). An input built from one of them
is unknown too: a whole string (`Output.concat`, `apply` returning a string, a JSON document built with
`json.dumps` inside `Output.all(...).apply(...)`), or the one element of a list or object that holds it.

What a first preview does know: the inputs a resource was given, which the provider echoes as its
outputs (`checkpoints.bucket` of an OSS or COS bucket named by the program, `role.role_name`,
`node_policy.policy_name`, `role.name`), and invoke results (`get_zones`, the Tencent account's appid).

The engine's mocks give some resources an id equal to their name (an OSS or COS bucket, a RAM role or
policy), so a reference to `bucket.id` and one to `bucket.bucket` look alike in the recorded graph.
`first_preview` reads such a value as the known name, as the programs here write it; `strict=True`
reads it as the unknown id, which is what `tests.realworld.aws.harness.as_preview` does for every
cloud and is the harder case for the pack (joins by `bucket` then rely on property dependencies).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph
from tests.realworld.aws.harness import DOCUMENT_INPUTS, _blank, _computed, _contains

# Alibaba Cloud RAM documents (`policyDocument`, `assumeRolePolicyDocument`) and Tencent Cloud CAM and
# COS ones (`document`, `policy`) are typed as strings: a document built from an unknown is unknown whole.
CN_DOCUMENT_INPUTS = DOCUMENT_INPUTS | {"policyDocument", "assumeRolePolicyDocument"}


def unknown_at_preview(resource: Resource, *, strict: bool = False) -> set[str]:
    """The output strings of `resource` that a first preview does not know (see the module docstring)."""
    computed = _computed(resource)
    if strict:
        return computed
    echoed = {value for value in resource.inputs.values() if isinstance(value, str)}
    return computed - echoed


def _echoed(resource: Resource) -> set[str]:
    """Input strings of `resource` long enough to recognise a reference to them in another input."""
    return {value for value in resource.inputs.values() if isinstance(value, str) and len(value) >= 3}


def first_preview(
    graph: ResourceGraph, *, keep_known: Iterable[str] = (), strict: bool = False
) -> ResourceGraph:
    """`graph` as a first preview sends it to the policy pack: outputs removed, and each input that
    references an output unknown at preview replaced by the unknown sentinel.

    `keep_known` names resources whose outputs stay known (one that already exists), to isolate one
    unknown reference at a time.
    """
    by_urn = {r.urn: r for r in graph.resources}
    kept = set(keep_known)
    preview: list[Resource] = []
    for resource in graph.resources:
        inputs = dict(resource.inputs)
        for key, deps in resource.property_dependencies.items():
            if key not in inputs:
                continue
            value = inputs[key]
            unknown: set[str] = set()
            untraced = False
            for urn in deps:
                dep = by_urn.get(urn)
                if dep is None or not dep.custom or dep.name in kept:
                    continue
                dep_unknown = unknown_at_preview(dep, strict=strict)
                unknown |= dep_unknown
                untraced = untraced or not _contains(value, dep_unknown | _echoed(dep))
            whole = isinstance(value, str) or key in CN_DOCUMENT_INPUTS
            if unknown and _contains(value, unknown):
                inputs[key] = UNKNOWN_STRING if whole else _blank(value, unknown)
            elif whole and untraced:
                # `Output.all(bucket.bucket, key.id).apply(...)` is unknown as a whole even when the
                # document only uses the known name: nothing of the key shows in the recorded value.
                inputs[key] = UNKNOWN_STRING
        preview.append(dataclasses.replace(resource, inputs=inputs, outputs={}))
    return ResourceGraph(project=graph.project, stack=graph.stack, resources=preview, config=graph.config)


def unknown_inputs(graph: ResourceGraph) -> dict[str, list[str]]:
    """Resource name -> dotted paths of its inputs that are unknown (for assertions and debugging)."""

    def paths(value: object, prefix: str) -> Iterable[str]:
        if value == UNKNOWN_STRING:
            yield prefix
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from paths(item, f"{prefix}.{key}" if prefix else str(key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from paths(item, f"{prefix}.{index}")

    found = {r.name: sorted(paths(r.inputs, "")) for r in graph.resources}
    return {name: keys for name, keys in found.items() if keys}
