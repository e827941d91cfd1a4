"""GF-ACC-004 on AWS: `metadataOptions` of instances, spot instance requests, launch templates and
launch configurations, and the account-wide `aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults`
(see the package for what is judged and what an unset `httpTokens` takes its value from)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from gpufleet.policies.context import resource_region
from gpufleet.policies.props import as_int, get, get_ref, is_set, is_unknown
from gpufleet.policies.rule import judge

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_INSTANCE = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_METADATA_DEFAULTS = "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults"
AWS_IMAGES = frozenset(
    {"aws:ec2/ami:Ami", "aws:ec2/amiCopy:AmiCopy", "aws:ec2/amiFromInstance:AmiFromInstance"}
)
AL2023_SSM_PREFIX = "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-"

LABELS = {
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_INSTANCE: "EC2 spot instance request",
    AWS_LAUNCH_TEMPLATE: "EC2 launch template",
    AWS_LAUNCH_CONFIGURATION: "EC2 launch configuration",
    AWS_METADATA_DEFAULTS: "EC2 instance metadata defaults",
}
# Where each launching kind names its image.
_IMAGE_PROP = {
    AWS_INSTANCE: "ami",
    AWS_SPOT_INSTANCE: "ami",
    AWS_LAUNCH_TEMPLATE: "imageId",
    AWS_LAUNCH_CONFIGURATION: "imageId",
}

SUBJECT_TEXT = "EC2 instance, launch template, launch configuration or metadata defaults"
REMEDIATION = (
    "Set `metadataOptions: {httpTokens: required, httpPutResponseHopLimit: 2}` (hop limit 1 or 2) on "
    "aws.ec2.Instance, aws.ec2.LaunchTemplate and aws.ec2.LaunchConfiguration, or once per region "
    "`httpTokens: required` on aws.ec2.InstanceMetadataDefaults in the same stack. An Amazon Linux "
    "2023 image requires IMDSv2 by itself, but only an image named as "
    "`resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-...` shows it: an id looked up "
    "with aws.ec2.get_ami is just an id to the policy."
)
URL = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-new-instances.html"
CHECKOV = ("CKV_AWS_79", "CKV_AWS_341")


@dataclass(frozen=True)
class Default:
    """An account default in a region (None = not known): it requires tokens, or whether it does is
    not known at preview (`unknown`)."""

    name: str
    region: str | None
    unknown: bool = False

    def covers(self, region: str | None) -> bool:
        return self.region is None or region is None or self.region == region


def _account_defaults(resources: list[PolicyResource], max_hop: int) -> list[Default]:
    found = []
    for resource in resources:
        if resource.resource_type != AWS_METADATA_DEFAULTS:
            continue
        tokens = get_ref(resource.props, "httpTokens")
        limit = get_ref(resource.props, "httpPutResponseHopLimit")
        region = resource_region(resource.props, resource.provider)
        if is_unknown(tokens) or is_unknown(limit):
            found.append(Default(resource.name, region, unknown=True))
            continue
        if str(tokens or "").lower() != "required":
            continue
        if as_int(limit) is not None and (as_int(limit) or 0) > max_hop:
            continue
        found.append(Default(resource.name, region))
    return found


def _v2_images(resources: list[PolicyResource]) -> dict[str, PolicyResource]:
    """AMIs in the stack registered with `imdsSupport: v2.0`, by urn and by known id."""
    found: dict[str, PolicyResource] = {}
    for resource in resources:
        if resource.resource_type not in AWS_IMAGES:
            continue
        support = get_ref(resource.props, "imdsSupport")
        if isinstance(support, str) and not is_unknown(support) and support.strip().lower() == "v2.0":
            found[resource.urn] = resource
            image_id = get_ref(resource.props, "id")
            if isinstance(image_id, str) and image_id and not is_unknown(image_id):
                found[image_id] = resource
    return found


def _image_requires_tokens(resource: PolicyResource, images: Mapping[str, PolicyResource]) -> str | None:
    """Why the resource's image requires IMDSv2 by itself, or None when the stack cannot show it."""
    prop = _IMAGE_PROP[resource.resource_type]
    image = get_ref(resource.props, prop)
    if isinstance(image, str) and not is_unknown(image):
        if image.strip().startswith(AL2023_SSM_PREFIX) and resource.resource_type != AWS_LAUNCH_CONFIGURATION:
            return f"its image is Amazon Linux 2023 ({prop} {image.strip()})"
        if image in images:
            return f"its image '{images[image].name}' is registered with imdsSupport v2.0"
    for dependency in (resource.property_dependencies or {}).get(prop, []) or []:
        if dependency.urn in images:
            return f"its image '{dependency.name}' is registered with imdsSupport v2.0"
    return None


def _judge_defaults(resource: PolicyResource, max_hop: int, report: ReportViolation) -> None:
    props = resource.props
    label = f"{LABELS[AWS_METADATA_DEFAULTS]} '{resource.name}'"
    endpoint = get(props, "httpEndpoint")
    if isinstance(endpoint, str) and endpoint.lower() == "disabled":
        return
    problems = []
    tokens = get(props, "httpTokens")
    if tokens in (None, "", "no-preference"):
        problems.append(f"leaves httpTokens at {tokens or 'no-preference'!r}")
    elif str(tokens).lower() != "required":
        problems.append(f"allows IMDSv1 (httpTokens is {tokens})")
    limit = as_int(get(props, "httpPutResponseHopLimit"))
    if limit is not None and limit > max_hop:
        problems.append(f"has metadata hop limit {limit}")
    if problems:
        report(_message(label, problems, max_hop), resource.urn)


def _message(label: str, problems: list[str], max_hop: int) -> str:
    return (
        f"{label} {' and '.join(problems)}; require IMDSv2 tokens (httpTokens: required) "
        f"with a hop limit of at most {max_hop}"
    )


def _judge_launch(
    resource: PolicyResource,
    max_hop: int,
    defaults: list[Default],
    images: Mapping[str, PolicyResource],
    report: ReportViolation,
) -> None:
    props = resource.props
    if (
        resource.resource_type in (AWS_INSTANCE, AWS_SPOT_INSTANCE)
        and get(props, "metadataOptions") is None
        and is_set(props, "launchTemplate")
    ):
        return  # metadata options come from the instance's launch template, judged on its own
    endpoint = get(props, "metadataOptions.httpEndpoint")
    if isinstance(endpoint, str) and endpoint.lower() == "disabled":
        return
    label = f"{LABELS[resource.resource_type]} '{resource.name}'"
    problems = []
    tokens = get(props, "metadataOptions.httpTokens")
    if tokens in (None, ""):
        region = resource_region(props, resource.provider)
        covering = [d for d in defaults if d.covers(region)]
        if not any(not d.unknown for d in covering) and _image_requires_tokens(resource, images) is None:
            pending = next((d for d in covering if d.unknown), None)
            if pending is not None:
                # Whether the account default requires tokens is known only once it is created.
                raise UnknownValueError(
                    UNKNOWN_STRING_VALUE, [f"httpTokens of instance metadata defaults '{pending.name}'"]
                )
            problems.append("allows IMDSv1 (httpTokens is unset (optional))")
    elif str(tokens).lower() != "required":
        problems.append(f"allows IMDSv1 (httpTokens is {tokens})")
    limit = as_int(get(props, "metadataOptions.httpPutResponseHopLimit"))
    if limit is not None and limit > max_hop:
        problems.append(f"has metadata hop limit {limit}")
    if problems:
        report(_message(label, problems, max_hop), resource.urn)


def judge_stack(resources: list[PolicyResource], max_hop: int, report: ReportViolation) -> None:
    """Judge the launches and account defaults among `resources`."""
    subjects = [r for r in resources if r.resource_type in LABELS]
    defaults: list[Default] = []
    images: dict[str, PolicyResource] = {}
    judge(None, lambda: defaults.extend(_account_defaults(resources, max_hop)))
    judge(None, lambda: images.update(_v2_images(resources)))
    for resource in subjects:
        if resource.resource_type == AWS_METADATA_DEFAULTS:
            judge(resource.urn, partial(_judge_defaults, resource, max_hop, report))
        else:
            judge(resource.urn, partial(_judge_launch, resource, max_hop, defaults, images, report))
