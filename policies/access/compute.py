"""Compute resources of a stack (instances, templates, scaling groups) and which of them run GPUs.

Instances name their type, or take it from a launch template; scaling groups take it from their
template/configuration or from per-group overrides. A launch template or scaling configuration
without a type of its own is a GPU template when a GPU group or instance uses it, because every
instance launched from it is a GPU instance. The index below joins users to templates once per stack:

- by value: the reference (`launchTemplate.id`, `configurationId`, ...) equals the target's `id`,
  `arn` or name input;
- by `propertyDependencies` of the referencing property (what the engine sends when the reference
  is another resource's output, unknown at preview);
- by plain `dependencies`, only when the reference is unknown and nothing else matched.

A reference that matches nothing in the stack (a template created elsewhere) leaves the GPU question
open: rules report it as "could not be judged" instead of guessing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_union
from gpufleet.policies.access.links import Link
from gpufleet.policies.gpu import cloud_of, is_gpu_ami_type, is_gpu_family_or_type, is_gpu_type
from gpufleet.policies.props import get_ref, is_unknown, shared_plain
from gpufleet.policies.rule import judge

# Each cloud's compute facts (`gpufleet.policies.access.<cloud>`): `LABELS`, `TYPE_PATHS`, `LINKS`, and
# where the cloud has them `REQUIREMENT_PATHS`, `FAMILY_TYPES`, `GPU_IMAGE_TYPES`, `OWN_TYPES_ONLY`.
PARTS = cloud_parts("gpufleet.policies.access")
LABELS: dict[str, str] = part_merged(PARTS, "LABELS")
# Where each kind keeps its own instance types ("*" walks a list).
_TYPE_PATHS: dict[str, tuple[str, ...]] = part_merged(PARTS, "TYPE_PATHS")
_REQUIREMENT_PATHS: dict[str, tuple[str, ...]] = part_merged(PARTS, "REQUIREMENT_PATHS")
# user -> the resources it takes its launch settings from
_LINKS: dict[str, tuple[Link, ...]] = part_merged(PARTS, "LINKS")
_FAMILY_TYPES = part_union(PARTS, "FAMILY_TYPES")
_GPU_IMAGE_TYPES = part_union(PARTS, "GPU_IMAGE_TYPES")
_OWN_TYPES_ONLY = part_union(PARTS, "OWN_TYPES_ONLY")

# Props under which a resource is referred to by others.
_KEY_PROPS = (
    "id",
    "arn",
    "name",
    "launchTemplateName",
    "scalingGroupName",
    "configurationName",
    "instanceProfileName",
    "roleName",
)

COMPUTE_TYPES = frozenset(_TYPE_PATHS)


class NotJudgeable(Exception):
    """A join that the stack cannot resolve (a reference to something defined elsewhere)."""


def judge_resource(report: ReportViolation, urn: str, check: Callable[[], None]) -> None:
    """`gpufleet.policies.rule.judge`, plus a readable report for joins that cannot be resolved."""

    def guarded() -> None:
        try:
            check()
        except NotJudgeable as error:
            report(f"could not be judged: {error}", urn)

    judge(urn, guarded)


def values_at(obj: Any, path: str) -> list[Any]:
    """Every value at a dotted path, `*` expanding lists; unknown sentinels are kept, None dropped."""
    current: list[Any] = [obj]
    for part in path.split("."):
        following: list[Any] = []
        for item in current:
            if is_unknown(item):
                following.append(item)
            elif part == "*":
                if isinstance(item, list):
                    following.extend(item)
            elif isinstance(item, Mapping):
                if part in item:
                    following.append(item[part])
            elif isinstance(item, list) and part.isdigit() and int(part) < len(item):
                following.append(item[int(part)])
        current = following
    return [value for value in current if value is not None and value != ""]


def display(value: Any) -> str:
    return "(unknown at preview)" if is_unknown(value) else str(value)


class StackIndex:
    """Plain props and reference lookups over one stack's resources (built once per validation)."""

    def __init__(self, resources: Iterable[PolicyResource]) -> None:
        self.resources = list(resources)
        self.props: dict[str, dict[str, Any]] = {}
        self.by_type: dict[str, list[PolicyResource]] = defaultdict(list)
        self._keys: dict[tuple[str, str], list[PolicyResource]] = defaultdict(list)
        for resource in self.resources:
            props = shared_plain(resource.props) if resource.props is not None else {}
            self.props[resource.urn] = props if isinstance(props, dict) else {}
            self.by_type[resource.resource_type].append(resource)
            for key in _KEY_PROPS:
                value = self.props[resource.urn].get(key)
                if isinstance(value, str) and value and not is_unknown(value):
                    self._keys[(resource.resource_type, value)].append(resource)

    def of_type(self, *types: str) -> list[PolicyResource]:
        return [resource for token in types for resource in self.by_type.get(token, [])]

    def p(self, resource: PolicyResource) -> dict[str, Any]:
        return self.props[resource.urn]

    def lookup(self, targets: Iterable[str], value: str) -> list[PolicyResource]:
        return [resource for token in targets for resource in self._keys.get((token, value), [])]

    def follow(self, resource: PolicyResource, link: Link) -> tuple[list[PolicyResource], list[Any]]:
        """The targets `resource` references through `link`, and the reference values that matched none."""
        values = [v for path in link.paths for v in values_at(self.p(resource), path)]
        found: list[PolicyResource] = []
        dangling: list[Any] = []
        for value in values:
            if is_unknown(value) or not isinstance(value, str):
                continue
            matched = self.lookup(link.targets, value)
            found.extend(matched)
            if not matched:
                dangling.append(value)
        deps = (resource.property_dependencies or {}).get(link.prop_key, [])
        found.extend(dep for dep in deps if dep.resource_type in link.targets)
        unknown = [value for value in values if is_unknown(value)]
        if unknown and not found:
            found.extend(dep for dep in resource.dependencies or [] if dep.resource_type in link.targets)
            if not found:
                dangling.extend(unknown)
        unique = list({target.urn: target for target in found}.values())
        return unique, ([] if unique else dangling)


class ComputeIndex(StackIndex):
    """StackIndex plus the template joins and GPU classification of compute resources."""

    def __init__(self, resources: Iterable[PolicyResource]) -> None:
        super().__init__(resources)
        self.templates: dict[str, list[PolicyResource]] = {}
        self.dangling: dict[str, list[Any]] = {}
        self.users: dict[str, list[PolicyResource]] = defaultdict(list)
        for resource in self.resources:
            links = _LINKS.get(resource.resource_type, ())
            targets: list[PolicyResource] = []
            dangling: list[Any] = []
            for link in links:
                found, missing = self.follow(resource, link)
                targets.extend(found)
                dangling.extend(missing)
            self.templates[resource.urn] = targets
            self.dangling[resource.urn] = dangling
            for target in targets:
                self.users[target.urn].append(resource)
        self._gpu: dict[str, bool] = {}

    def own_types(self, resource: PolicyResource) -> list[Any]:
        paths = _TYPE_PATHS.get(resource.resource_type, ())
        return [value for path in paths for value in values_at(self.p(resource), path)]

    def _types_gpu(self, resource: PolicyResource, types: list[Any]) -> bool:
        cloud = cloud_of(resource.resource_type)
        for value in types:
            if is_unknown(value):
                raise UnknownValueError(value, ["instanceType"])
        if resource.resource_type in _FAMILY_TYPES:
            return any(isinstance(value, str) and is_gpu_family_or_type(cloud, value) for value in types)
        return any(isinstance(value, str) and is_gpu_type(cloud, value) for value in types)

    def _template_types(self, resource: PolicyResource) -> list[Any]:
        own = self.own_types(resource)
        if own:
            return own
        if resource.resource_type in _OWN_TYPES_ONLY:
            return []
        return [value for target in self.templates[resource.urn] for value in self.own_types(target)]

    def is_gpu(self, resource: PolicyResource) -> bool:
        """Whether `resource` launches GPU instances; raises when that cannot be told."""
        if resource.urn in self._gpu:
            return self._gpu[resource.urn]
        types = self._template_types(resource)
        if (
            self._types_gpu(resource, types)
            or self._asks_for_gpu(resource)
            or any(self._asks_for_gpu(target) for target in self.templates[resource.urn])
            or self._used_by_gpu(resource)
        ):
            result = True
        elif not types and self.dangling[resource.urn]:
            label = LABELS.get(resource.resource_type, resource.resource_type)
            refs = ", ".join(repr(display(v)) for v in self.dangling[resource.urn])
            raise NotJudgeable(
                f"{label} '{resource.name}' names no instance type and takes it from {refs}, "
                "which is not defined in this stack"
            )
        else:
            result = False
        self._gpu[resource.urn] = result
        return result

    def _used_by_gpu(self, resource: PolicyResource) -> bool:
        for user in self.users.get(resource.urn, []):
            if self._types_gpu(user, self.own_types(user)) or self._asks_for_gpu(user):
                return True
        return False

    def _asks_for_gpu(self, resource: PolicyResource) -> bool:
        """An image type that ships GPU drivers (EKS `amiType`), or attribute-based selection that
        asks for GPUs (AWS `instanceRequirements.acceleratorTypes` includes "gpu")."""
        if resource.resource_type in _GPU_IMAGE_TYPES:
            ami_type = self.p(resource).get("amiType")
            if is_unknown(ami_type):
                raise UnknownValueError(str(ami_type), ["amiType"])
            if is_gpu_ami_type(ami_type):
                return True
        paths = _REQUIREMENT_PATHS.get(resource.resource_type, ())
        for path in paths:
            for value in values_at(self.p(resource), path):
                if is_unknown(value):
                    raise UnknownValueError(value, [path])
                if str(value).lower() == "gpu":
                    return True
        return False

    def gpu_types(self, resource: PolicyResource) -> list[str]:
        """The known instance types that make `resource` a GPU resource (for messages)."""
        cloud = cloud_of(resource.resource_type)
        types = self._template_types(resource)
        if not types:
            types = [t for user in self.users.get(resource.urn, []) for t in self.own_types(user)]
        check = is_gpu_family_or_type if resource.resource_type in _FAMILY_TYPES else is_gpu_type
        found = [t for t in types if isinstance(t, str) and check(cloud, t)]
        ami_type = self.p(resource).get("amiType") if resource.resource_type in _GPU_IMAGE_TYPES else None
        if not found and isinstance(ami_type, str) and is_gpu_ami_type(ami_type):
            found = [ami_type]
        return found

    def describe(self, resource: PolicyResource) -> str:
        """`EC2 instance 'train' (p4d.24xlarge)` for messages."""
        label = LABELS.get(resource.resource_type, resource.resource_type)
        types = self.gpu_types(resource)
        suffix = f" ({', '.join(dict.fromkeys(types))})" if types else ""
        return f"{label} '{resource.name}'{suffix}"


def reference_text(obj: Mapping[str, Any], path: str) -> str:
    value = get_ref(obj, path)
    return display(value)


__all__ = [
    "COMPUTE_TYPES",
    "LABELS",
    "PARTS",
    "ComputeIndex",
    "Link",
    "NotJudgeable",
    "StackIndex",
    "display",
    "judge_resource",
    "reference_text",
    "values_at",
]
