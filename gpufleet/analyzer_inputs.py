"""What the Pulumi engine sends a policy pack, built offline from a ResourceGraph the same way: the
stack tags, the default providers it creates itself, every value in its protobuf wire form, and the
`PolicyResource` parts of each resource (`gpufleet.evaluate` runs the policies on them)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from typing import Any

from pulumi_policy import PolicyCustomTimeouts, PolicyProviderResource, PolicyResourceOptions
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

from gpufleet.components.clouds import KUBERNETES, KUBERNETES_DISTRIBUTION, PROFILES
from gpufleet.graph import Resource, ResourceGraph

# pkg -> distribution that ships the provider SDK; its version names the default provider.
_PROVIDER_DISTRIBUTIONS = {
    **{p.type_prefix: p.sdk_distribution for p in PROFILES.values()},
    KUBERNETES: KUBERNETES_DISTRIBUTION,
    "random": "pulumi-random",
}


def default_stack_tags(graph: ResourceGraph, *, description: str | None = None) -> dict[str, str]:
    """The stack tags the CLI sends with `ConfigureStack`: project name and runtime, the project's
    description, and every `pulumi:tags` config value (git metadata tags are the caller's to add);
    for a gpufleet stack also `gpufleet:environment`, the fleet spec's `environment`."""
    tags: dict[str, str] = {"pulumi:project": graph.project, "pulumi:runtime": "python"}
    if description:
        tags["pulumi:description"] = description
    configured = _config_object(graph.config.get("pulumi:tags"))
    if isinstance(configured, Mapping):
        tags.update({str(k): str(v) for k, v in configured.items()})
    # The fleet spec's environment is the stack's: the rules read it before any resource's env tag.
    fleet = _config_object(graph.config.get("gpufleet:fleet"))
    environment = fleet.get("environment") if isinstance(fleet, Mapping) else None
    if isinstance(environment, str) and environment:
        tags["gpufleet:environment"] = environment
    return tags


def _config_object(value: Any) -> Any:
    """Structured config arrives JSON-encoded (as the CLI passes it to programs) or already parsed."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if isinstance(value, Mapping) and set(value) == {"value"}:
        return _config_object(value["value"])
    return value


@cache
def provider_version(package: str) -> str | None:
    distribution = _PROVIDER_DISTRIBUTIONS.get(package, f"pulumi-{package}")
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def default_provider_name(package: str) -> str:
    version = provider_version(package)
    return "default_" + version.replace(".", "_").replace("-", "_") if version else "default"


def default_provider(graph: ResourceGraph, package: str) -> Resource:
    """The default provider the engine would create for `package`, configured from the stack's config."""
    name = default_provider_name(package)
    prefix = f"{package}:"
    inputs: dict[str, Any] = {
        key[len(prefix) :]: _config_object(value)
        for key, value in sorted(graph.config.items())
        if key.startswith(prefix)
    }
    version = provider_version(package)
    if version:
        inputs["version"] = version
    token = f"pulumi:providers:{package}"
    return Resource(
        urn=f"urn:pulumi:{graph.stack}::{graph.project}::{token}::{name}",
        type=token,
        name=name,
        custom=True,
        inputs=inputs,
        outputs=dict(inputs),
    )


class _Providers:
    """Resolves each resource's provider: an explicit provider of the graph, else the default one."""

    def __init__(self, graph: ResourceGraph) -> None:
        self.graph = graph
        self.defaults: dict[str, Resource] = {}

    def lookup(self, reference: str) -> Resource | None:
        found = self.graph.get(reference)
        if found is None and "::" in reference:
            # A provider reference is `<urn>::<id>`.
            found = self.graph.get(reference.rsplit("::", 1)[0])
        return found

    def provider_of(self, resource: Resource) -> Resource | None:
        if not resource.custom or resource.is_provider:
            return None
        if resource.provider:
            explicit = self.lookup(resource.provider)
            if explicit is not None:
                return explicit
        package = resource.package
        if package not in self.defaults:
            self.defaults[package] = default_provider(self.graph, package)
        return self.defaults[package]


def wire_form(value: Any) -> Any:
    """A value as it arrives through a protobuf Struct: every number is a float (`22` -> `22.0`).

    The engine sends properties and policy config as Structs, so a policy sees floats in production;
    evaluating offline with the same types keeps `isinstance(x, int)` and `f"{x}"` behaving alike."""
    kind = type(value)
    # Exact-type checks first: this runs over every property of every resource.
    if kind is str or kind is bool or kind is float or value is None:
        return value
    if kind is int:
        return _wire_int(value)
    if kind is dict:
        return {k: wire_form(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [wire_form(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _wire_int(value)
    if isinstance(value, Mapping):
        return {k: wire_form(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire_form(v) for v in value]
    return value


def _wire_int(value: int) -> float | int:
    """An integer as a double; one beyond a double's range (10**400) stays exact: no OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return value


def _deserialized(values: Mapping[str, Any]) -> dict[str, Any]:
    return deserialize_properties(wire_form(values))


def resource_options(resource: Resource) -> PolicyResourceOptions:
    return PolicyResourceOptions(
        protect=resource.protect,
        ignore_changes=[],
        delete_before_replace=None,
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(0, 0, 0),
        additional_secret_outputs=[],
        parent=resource.parent or None,
    )


def provider_resource(provider: Resource | None) -> PolicyProviderResource | None:
    if provider is None:
        return None
    return PolicyProviderResource(
        provider.type,
        unknown_checking_proxy(_deserialized(provider.inputs)),
        provider.urn,
        provider.name,
    )


def analyzed_resources(graph: ResourceGraph) -> tuple[list[Resource], dict[str, Resource | None]]:
    """Every resource the engine would analyze (graph order, then synthesized default providers), with
    each one's provider."""
    providers = _Providers(graph)
    provider_of = {r.urn: providers.provider_of(r) for r in graph.resources}
    defaults = list(providers.defaults.values())
    for provider in defaults:
        provider_of[provider.urn] = None
    return [*graph.resources, *defaults], provider_of


def stack_props(resource: Resource) -> dict[str, Any]:
    """What a stack policy sees of a resource: its inputs overlaid with its (synthetic) outputs."""
    if not resource.outputs:
        return dict(resource.inputs)
    return {**resource.inputs, **resource.outputs}
