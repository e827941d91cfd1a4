"""The resource index: one pass over the stack, resources by URN, by type and by the names and ids
other resources join them by (property dependencies first, then literal names, ids and ARNs)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpufleet.policies.props import as_list, get_ref, is_unknown, shared_plain


@dataclass(frozen=True)
class ResourceView:
    """A resource with plain props (unknowns kept as sentinels, never raised) for joining."""

    resource_type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    provider: Any
    dependency_urns: Mapping[str, tuple[str, ...]]
    original: Any = field(compare=False, repr=False)


def _view(resource: Any) -> ResourceView:
    props = shared_plain(resource.props)
    dependencies = getattr(resource, "property_dependencies", None) or {}
    return ResourceView(
        resource_type=resource.resource_type,
        name=resource.name,
        urn=resource.urn,
        props=props if isinstance(props, Mapping) else {},
        provider=getattr(resource, "provider", None),
        dependency_urns={key: tuple(dep.urn for dep in deps) for key, deps in dependencies.items()},
        original=resource,
    )


class ResourceIndex:
    """One pass over the stack: resources by URN, by type, and by the names/ids they can be joined by.

    The index holds `ResourceView`s: plain copies of the props, so that reading a list that holds an
    unknown element never raises half-way through a join.
    """

    def __init__(self, resources: Sequence[Any]) -> None:
        self.resources = [_view(resource) for resource in resources]
        self.by_urn: dict[str, ResourceView] = {}
        self.by_type: dict[str, list[ResourceView]] = defaultdict(list)
        self._by_key: dict[tuple[str, str], list[ResourceView]] = defaultdict(list)
        for resource in self.resources:
            self.by_urn[resource.urn] = resource
            self.by_type[resource.resource_type].append(resource)
            for key in self._keys(resource):
                self._by_key[(resource.resource_type, key)].append(resource)

    _KEY_PROPS = (
        "name",
        "arn",
        "id",
        "bucket",
        "scalingGroupName",
        "scalingConfigurationName",
        "scalingRuleName",
        "configurationName",
        "policyName",
        "launchTemplateName",
        "roleName",
        "resourceId",
    )

    @classmethod
    def _keys(cls, resource: Any) -> set[str]:
        keys = {resource.name}
        props = resource.props
        # A view's props are a plain dict (unknowns kept as sentinels): read by key, as `get_ref` would.
        read = props.get if type(props) is dict else lambda prop: get_ref(props, prop)
        for prop in cls._KEY_PROPS:
            value = read(prop)
            if isinstance(value, str) and value and not is_unknown(value):
                keys.add(value)
        return keys

    def of_type(self, *types: str) -> list[Any]:
        out: list[Any] = []
        for resource_type in types:
            out.extend(self.by_type.get(resource_type, ()))
        return out

    def refs(self, resource: Any, prop: str, types: Iterable[str], value: Any = None) -> list[Any]:
        """Resources of `types` that `resource.props[prop]` (or `value`) refers to."""
        wanted = tuple(types)
        found: dict[str, Any] = {}
        for dep_urn in resource.dependency_urns.get(prop.split(".", maxsplit=1)[0], ()):
            dep = self.by_urn.get(dep_urn)
            if dep is not None and dep.resource_type in wanted:
                found[dep.urn] = dep
        candidates = as_list(value if value is not None else get_ref(resource.props, prop))
        for candidate in candidates:
            if isinstance(candidate, str) and candidate and not is_unknown(candidate):
                for resource_type in wanted:
                    for target in self._by_key.get((resource_type, candidate), ()):
                        found[target.urn] = target
                    # ARNs and ids built around a name ("arn:...:autoScalingGroupName/NAME").
                    tail = candidate.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
                    if tail != candidate:
                        for target in self._by_key.get((resource_type, tail), ()):
                            found[target.urn] = target
        return list(found.values())
