"""Reading a stack's resource graph, for the network rules and the clouds' network facts: the resources
a property references (by property dependency) and whether a destination is a default route."""

from __future__ import annotations

from pulumi_policy.policy import PolicyResource

DEFAULT_ROUTES = ("0.0.0.0/0", "::/0")


def refs(resource: PolicyResource, prop: str) -> list[str]:
    """The URNs `prop` of `resource` references."""
    return [dep.urn for dep in resource.property_dependencies.get(prop, []) or []]


def is_default(destination: object) -> bool:
    """True for a default route's destination (`0.0.0.0/0`, `::/0`)."""
    return isinstance(destination, str) and destination.strip() in DEFAULT_ROUTES
