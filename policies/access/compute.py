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
from dataclasses import dataclass
from typing import Any

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.gpu import cloud_of, is_gpu_ami_type, is_gpu_family_or_type, is_gpu_type
from gpufleet.policies.props import get_ref, is_unknown, plain
from gpufleet.policies.rule import judge

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_INSTANCE = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_LAUNCH_TEMPLATE = "alicloud:ecs/launchTemplate:LaunchTemplate"
ALI_ECS_LAUNCH_TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_INSTANCE_SET = "tencentcloud:Instance/set:Set"
TC_LAUNCH_TEMPLATE = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
AWS_BATCH_COMPUTE = "aws:batch/computeEnvironment:ComputeEnvironment"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

LABELS = {
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_INSTANCE: "EC2 spot instance request",
    AWS_LAUNCH_TEMPLATE: "EC2 launch template",
    AWS_LAUNCH_CONFIGURATION: "EC2 launch configuration",
    AWS_AUTOSCALING_GROUP: "Auto Scaling group",
    AWS_FLEET: "EC2 fleet",
    AWS_SPOT_FLEET: "EC2 spot fleet request",
    ALI_INSTANCE: "ECS instance",
    ALI_INSTANCE_SET: "ECS instance set",
    ALI_LAUNCH_TEMPLATE: "ECS launch template",
    ALI_ECS_LAUNCH_TEMPLATE: "ECS launch template",
    ALI_SCALING_CONFIGURATION: "ESS scaling configuration",
    ALI_SCALING_GROUP: "ESS scaling group",
    TC_INSTANCE: "CVM instance",
    TC_INSTANCE_SET: "CVM instance set",
    TC_LAUNCH_TEMPLATE: "CVM launch template",
    TC_SCALING_CONFIG: "AS launch configuration",
    TC_SCALING_GROUP: "AS scaling group",
    AWS_BATCH_COMPUTE: "Batch compute environment",
    AWS_EKS_NODE_GROUP: "EKS node group",
    ALI_NODE_POOL: "ACK node pool",
    TC_NODE_POOL: "TKE node pool",
}

# Where each kind keeps its own instance types ("*" walks a list).
_TYPE_PATHS: dict[str, tuple[str, ...]] = {
    AWS_INSTANCE: ("instanceType",),
    AWS_SPOT_INSTANCE: ("instanceType",),
    AWS_LAUNCH_TEMPLATE: ("instanceType",),
    AWS_LAUNCH_CONFIGURATION: ("instanceType",),
    AWS_AUTOSCALING_GROUP: ("mixedInstancesPolicy.launchTemplate.overrides.*.instanceType",),
    AWS_FLEET: ("launchTemplateConfigs.*.overrides.*.instanceType",),
    AWS_SPOT_FLEET: (
        "launchSpecifications.*.instanceType",
        "launchTemplateConfigs.*.overrides.*.instanceType",
    ),
    ALI_INSTANCE: ("instanceType",),
    ALI_INSTANCE_SET: ("instanceType",),
    ALI_LAUNCH_TEMPLATE: ("instanceType",),
    ALI_ECS_LAUNCH_TEMPLATE: ("instanceType",),
    ALI_SCALING_CONFIGURATION: ("instanceType", "instanceTypes.*", "instanceTypeOverrides.*.instanceType"),
    ALI_SCALING_GROUP: ("launchTemplateOverrides.*.instanceType",),
    TC_INSTANCE: ("instanceType",),
    TC_INSTANCE_SET: ("instanceType",),
    TC_LAUNCH_TEMPLATE: ("instanceType",),
    TC_SCALING_CONFIG: ("instanceTypes.*",),
    TC_SCALING_GROUP: (),
    # Batch takes instance families ("g5") as well as types ("g5.xlarge"), and "optimal".
    AWS_BATCH_COMPUTE: ("computeResources.instanceTypes.*",),
    AWS_EKS_NODE_GROUP: ("instanceTypes.*",),
    ALI_NODE_POOL: ("instanceTypes.*",),
    TC_NODE_POOL: ("autoScalingConfig.instanceType", "autoScalingConfig.backupInstanceTypes.*"),
}

_REQUIREMENT_PATHS: dict[str, tuple[str, ...]] = {
    AWS_LAUNCH_TEMPLATE: ("instanceRequirements.acceleratorTypes.*",),
    AWS_AUTOSCALING_GROUP: (
        "mixedInstancesPolicy.launchTemplate.overrides.*.instanceRequirements.acceleratorTypes.*",
    ),
    AWS_FLEET: ("launchTemplateConfigs.*.overrides.*.instanceRequirements.acceleratorTypes.*",),
}


@dataclass(frozen=True)
class Link:
    """A reference from one resource to a template-like resource."""

    paths: tuple[str, ...]
    prop_key: str
    targets: tuple[str, ...]


_ALI_TEMPLATES = (ALI_LAUNCH_TEMPLATE, ALI_ECS_LAUNCH_TEMPLATE)
_AWS_TEMPLATE_LINK = Link(
    ("launchTemplate.id", "launchTemplate.name"), "launchTemplate", (AWS_LAUNCH_TEMPLATE,)
)

# user -> the resources it takes its launch settings from
_LINKS: dict[str, tuple[Link, ...]] = {
    AWS_INSTANCE: (_AWS_TEMPLATE_LINK,),
    AWS_SPOT_INSTANCE: (_AWS_TEMPLATE_LINK,),
    AWS_AUTOSCALING_GROUP: (
        _AWS_TEMPLATE_LINK,
        Link(
            (
                "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification.launchTemplateId",
                "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification.launchTemplateName",
            ),
            "mixedInstancesPolicy",
            (AWS_LAUNCH_TEMPLATE,),
        ),
        Link(("launchConfiguration",), "launchConfiguration", (AWS_LAUNCH_CONFIGURATION,)),
    ),
    AWS_FLEET: (
        Link(
            (
                "launchTemplateConfigs.*.launchTemplateSpecification.launchTemplateId",
                "launchTemplateConfigs.*.launchTemplateSpecification.launchTemplateName",
            ),
            "launchTemplateConfigs",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    AWS_SPOT_FLEET: (
        Link(
            (
                "launchTemplateConfigs.*.launchTemplateSpecification.id",
                "launchTemplateConfigs.*.launchTemplateSpecification.name",
            ),
            "launchTemplateConfigs",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    ALI_INSTANCE: (
        Link(("launchTemplateId",), "launchTemplateId", _ALI_TEMPLATES),
        Link(("launchTemplateName",), "launchTemplateName", _ALI_TEMPLATES),
    ),
    ALI_INSTANCE_SET: (
        Link(("launchTemplateId",), "launchTemplateId", _ALI_TEMPLATES),
        Link(("launchTemplateName",), "launchTemplateName", _ALI_TEMPLATES),
    ),
    ALI_SCALING_GROUP: (Link(("launchTemplateId",), "launchTemplateId", _ALI_TEMPLATES),),
    # A scaling configuration belongs to its group: the group is where instances come from.
    ALI_SCALING_CONFIGURATION: (Link(("scalingGroupId",), "scalingGroupId", (ALI_SCALING_GROUP,)),),
    TC_INSTANCE: (Link(("launchTemplateId",), "launchTemplateId", (TC_LAUNCH_TEMPLATE,)),),
    TC_SCALING_GROUP: (Link(("configurationId",), "configurationId", (TC_SCALING_CONFIG,)),),
    AWS_BATCH_COMPUTE: (
        Link(
            (
                "computeResources.launchTemplate.launchTemplateId",
                "computeResources.launchTemplate.launchTemplateName",
            ),
            "computeResources",
            (AWS_LAUNCH_TEMPLATE,),
        ),
    ),
    AWS_EKS_NODE_GROUP: (_AWS_TEMPLATE_LINK,),
}

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
            props = plain(resource.props) if resource.props is not None else {}
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
        if resource.resource_type == AWS_BATCH_COMPUTE:
            return any(isinstance(value, str) and is_gpu_family_or_type(cloud, value) for value in types)
        return any(isinstance(value, str) and is_gpu_type(cloud, value) for value in types)

    def _template_types(self, resource: PolicyResource) -> list[Any]:
        own = self.own_types(resource)
        if own:
            return own
        if resource.resource_type == ALI_SCALING_CONFIGURATION:
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
        """AWS attribute-based selection: `instanceRequirements.acceleratorTypes` includes "gpu"."""
        if resource.resource_type == AWS_EKS_NODE_GROUP:
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
        check = is_gpu_family_or_type if resource.resource_type == AWS_BATCH_COMPUTE else is_gpu_type
        found = [t for t in types if isinstance(t, str) and check(cloud, t)]
        ami_type = self.p(resource).get("amiType") if resource.resource_type == AWS_EKS_NODE_GROUP else None
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
