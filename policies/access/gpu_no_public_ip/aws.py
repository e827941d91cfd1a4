"""GF-ACC-005 on AWS: `associatePublicIpAddress` on instances, spot instance requests and launch
configurations, `networkInterfaces[].associatePublicIpAddress` on launch templates, and on spot fleet
`launchSpecifications[]`; Elastic IPs and their associations bound to a GPU instance or to a network
interface a GPU instance uses; and the `mapPublicIpOnLaunch` default of the subnets GPU instances, Auto
Scaling groups, EKS node groups, Batch compute environments and EC2 fleets launch into, unless an
explicit `associatePublicIpAddress` decides instead (Batch ignores launch-template network
interfaces, so only the subnet decides there)."""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from typing import Any

from pulumi_policy import ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.aws import (
    AWS_AUTOSCALING_GROUP,
    AWS_BATCH_COMPUTE,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    AWS_SPOT_INSTANCE,
)
from gpufleet.policies.access.gpu_no_public_ip.words import BOOL, EXPECTED
from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.props import is_unknown, truthy

AWS_EIP = "aws:ec2/eip:Eip"
AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_EIP_ASSOCIATION = "aws:ec2/eipAssociation:EipAssociation"
AWS_ENI = "aws:ec2/networkInterface:NetworkInterface"
AWS_ENI_ATTACHMENT = "aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment"

# (path, kind): a truthy boolean, or a bandwidth above 0
PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    AWS_INSTANCE: (("associatePublicIpAddress", BOOL),),
    AWS_SPOT_INSTANCE: (("associatePublicIpAddress", BOOL),),
    AWS_LAUNCH_CONFIGURATION: (("associatePublicIpAddress", BOOL),),
    AWS_LAUNCH_TEMPLATE: (("networkInterfaces.*.associatePublicIpAddress", BOOL),),
}
# (type, label, link to the instance): what binds a public IP to an instance
BINDINGS = (
    (AWS_EIP, "Elastic IP", c.Link(("instance",), "instance", (AWS_INSTANCE,))),
    (AWS_EIP_ASSOCIATION, "Elastic IP association", c.Link(("instanceId",), "instanceId", (AWS_INSTANCE,))),
)
REMEDIATION = (
    "AWS: set `associatePublicIpAddress: false` on the Instance/LaunchConfiguration and on LaunchTemplate "
    "`networkInterfaces`, and bind no Eip to GPU instances."
)
URL = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-instance-addressing.html"
CHECKOV = ("CKV_AWS_88",)

# Elastic IPs bound to a network interface rather than to the instance itself.
_ENI_BINDINGS = (
    (AWS_EIP, "Elastic IP", c.Link(("networkInterface",), "networkInterface", (AWS_ENI,))),
    (
        AWS_EIP_ASSOCIATION,
        "Elastic IP association",
        c.Link(("networkInterfaceId",), "networkInterfaceId", (AWS_ENI,)),
    ),
)
_INSTANCE_ENI_LINKS = (
    c.Link(("primaryNetworkInterface.networkInterfaceId",), "primaryNetworkInterface", (AWS_ENI,)),
    c.Link(("networkInterfaces.*.networkInterfaceId",), "networkInterfaces", (AWS_ENI,)),
)
_ATTACHMENT_INSTANCE = c.Link(("instanceId",), "instanceId", (AWS_INSTANCE,))
_ATTACHMENT_ENI = c.Link(("networkInterfaceId",), "networkInterfaceId", (AWS_ENI,))

# Where instances are launched, for the subnet's public-IP-on-launch default.
_SUBNET_LINKS = {
    AWS_INSTANCE: c.Link(("subnetId",), "subnetId", (AWS_SUBNET,)),
    AWS_SPOT_INSTANCE: c.Link(("subnetId",), "subnetId", (AWS_SUBNET,)),
    AWS_AUTOSCALING_GROUP: c.Link(("vpcZoneIdentifiers.*",), "vpcZoneIdentifiers", (AWS_SUBNET,)),
    AWS_EKS_NODE_GROUP: c.Link(("subnetIds.*",), "subnetIds", (AWS_SUBNET,)),
    AWS_BATCH_COMPUTE: c.Link(("computeResources.subnets.*",), "computeResources", (AWS_SUBNET,)),
    AWS_FLEET: c.Link(
        ("launchTemplateConfigs.*.overrides.*.subnetId",), "launchTemplateConfigs", (AWS_SUBNET,)
    ),
}
# Settings that, when given at all, decide the address instead of the subnet's default.
_EXPLICIT = {
    AWS_INSTANCE: "associatePublicIpAddress",
    AWS_SPOT_INSTANCE: "associatePublicIpAddress",
    AWS_LAUNCH_CONFIGURATION: "associatePublicIpAddress",
    AWS_LAUNCH_TEMPLATE: "networkInterfaces.*.associatePublicIpAddress",
}


def _sets_address_explicitly(index: c.ComputeIndex, resource: Any) -> bool:
    # AWS Batch ignores a launch template's network interfaces: only the subnet decides there.
    templates = [] if resource.resource_type == AWS_BATCH_COMPUTE else index.templates.get(resource.urn, [])
    for subject in (resource, *templates):
        path = _EXPLICIT.get(subject.resource_type)
        if path and c.values_at(index.p(subject), path):
            return True
    return False


def _judge_subnet_default(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    subnets, _ = index.follow(resource, _SUBNET_LINKS[resource.resource_type])
    public = []
    for subnet in subnets:
        for value in c.values_at(index.p(subnet), "mapPublicIpOnLaunch"):
            if is_unknown(value):
                raise UnknownValueError(value, ["mapPublicIpOnLaunch"])
            if truthy(value):
                public.append(subnet.name)
    if not public or _sets_address_explicitly(index, resource) or not index.is_gpu(resource):
        return
    names = ", ".join(f"'{name}'" for name in dict.fromkeys(public))
    report(
        f"{index.describe(resource)} launches into subnet {names}, which gives every instance a public IP "
        "(mapPublicIpOnLaunch is true), and nothing sets associatePublicIpAddress to false; "
        f"{EXPECTED}",
        resource.urn,
    )


def _judge_spot_fleet(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    specs = index.p(resource).get("launchSpecifications")
    for number, spec in enumerate(specs if isinstance(specs, list) else [], start=1):
        if not isinstance(spec, dict) or not truthy(spec.get("associatePublicIpAddress")):
            continue
        instance_type = spec.get("instanceType")
        if is_unknown(instance_type):
            raise UnknownValueError(str(instance_type), [f"launchSpecifications.{number - 1}.instanceType"])
        if isinstance(instance_type, str) and is_gpu_type("aws", instance_type):
            report(
                f"EC2 spot fleet request '{resource.name}' launch specification {number} ({instance_type}) "
                f"gets a public IP (associatePublicIpAddress is true); {EXPECTED}",
                resource.urn,
            )


def judge_launches(index: c.ComputeIndex, report: ReportViolation) -> None:
    """The subnet defaults GPU launchers inherit, then spot fleets' launch specifications."""
    for token in _SUBNET_LINKS:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subnet_default, index, resource, report))
    for resource in index.of_type(AWS_SPOT_FLEET):
        c.judge_resource(report, resource.urn, partial(_judge_spot_fleet, index, resource, report))


def _instances_by_interface(index: c.ComputeIndex) -> dict[str, list[Any]]:
    """Network interface URN -> the instances it is attached to."""
    found: dict[str, list[Any]] = defaultdict(list)
    for instance in index.of_type(AWS_INSTANCE):
        for link in _INSTANCE_ENI_LINKS:
            for interface in index.follow(instance, link)[0]:
                found[interface.urn].append(instance)
    for attachment in index.of_type(AWS_ENI_ATTACHMENT):
        instances = index.follow(attachment, _ATTACHMENT_INSTANCE)[0]
        for interface in index.follow(attachment, _ATTACHMENT_ENI)[0]:
            found[interface.urn].extend(instances)
    return found


def _judge_interface_binding(
    index: c.ComputeIndex,
    by_interface: dict[str, list[Any]],
    resource: Any,
    *,
    label: str,
    link: c.Link,
    report: ReportViolation,
) -> None:
    for interface in index.follow(resource, link)[0]:
        instances = {i.urn: i for i in by_interface.get(interface.urn, [])}.values()
        gpu = [instance for instance in instances if index.is_gpu(instance)]
        if gpu:
            names = ", ".join(index.describe(instance) for instance in gpu)
            report(
                f"{label} '{resource.name}' gives {names} a public IP through network interface "
                f"'{interface.name}'; {EXPECTED}",
                resource.urn,
            )


def judge_interfaces(index: c.ComputeIndex, report: ReportViolation) -> None:
    """Elastic IPs bound to a network interface a GPU instance uses."""
    by_interface = _instances_by_interface(index)
    for token, label, link in _ENI_BINDINGS:
        for resource in index.of_type(token):
            c.judge_resource(
                report,
                resource.urn,
                partial(
                    _judge_interface_binding,
                    index,
                    by_interface,
                    resource,
                    label=label,
                    link=link,
                    report=report,
                ),
            )
