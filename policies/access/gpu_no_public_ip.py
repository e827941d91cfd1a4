"""GF-ACC-005: GPU instances get no public IP.

A stack policy (GPU templates and elastic IP bindings are joins, see `gpufleet.policies.access.compute`):

- AWS: `associatePublicIpAddress` on `aws:ec2/instance:Instance`, `spotInstanceRequest`,
  `launchConfiguration`, spot fleet `launchSpecifications[]`; `networkInterfaces[].associatePublicIpAddress`
  (a string "true") on `aws:ec2/launchTemplate:LaunchTemplate`; `aws:ec2/eip:Eip` (`instance`) and
  `aws:ec2/eipAssociation:EipAssociation` (`instanceId`) bound to a GPU instance, or bound to an
  `aws:ec2/networkInterface:NetworkInterface` (`networkInterface`, `networkInterfaceId`) that a GPU
  instance is launched with (`primaryNetworkInterface`, `networkInterfaces[]`) or that an
  `aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment` attaches to one. A GPU instance or
  Auto Scaling group launched into an `aws:ec2/subnet:Subnet` with `mapPublicIpOnLaunch` true gets a
  public IP too, unless the instance, its launch template's network interfaces or its launch
  configuration set `associatePublicIpAddress` explicitly (false overrides the subnet). The same
  subnet default applies to GPU EKS managed node groups (`subnetIds`; a launch template's network
  interfaces override it) and GPU Batch compute environments (`computeResources.subnets`; Batch
  ignores launch-template network interfaces, so only the subnet decides). An `aws:ec2/fleet:Fleet`
  launches from its launch templates, whose network interfaces are judged as GPU templates, into the
  subnets of its overrides (`launchTemplateConfigs[].overrides[].subnetId`), whose default applies
  unless those templates set `associatePublicIpAddress`.
- Alibaba Cloud: `internetMaxBandwidthOut` > 0 (which allocates a public IP) or the deprecated
  `allocatePublicIp` on `alicloud:ecs/instance:Instance`, `ecsInstanceSet`, the launch templates and
  `alicloud:ess/scalingConfiguration:ScalingConfiguration`; on ACK node pools
  (`alicloud:cs/nodePool:NodePool`) `internetMaxBandwidthOut` > 0 or `scalingConfig.isBondEip` (an EIP
  per node; `internetChargeType` alone is only the billing method and assigns no address);
  `alicloud:ecs/eipAssociation:EipAssociation`
  (`instanceId`) bound to a GPU instance.
- Tencent Cloud: `allocatePublicIp` on `tencentcloud:Instance/instance:Instance` and `Instance/set:Set`
  (bandwidth alone assigns no address), `publicIpAssigned` on `tencentcloud:As/scalingConfig:ScalingConfig`,
  `internetAccessible.publicIpAssigned` on `tencentcloud:Cvm/launchTemplate:LaunchTemplate`,
  `autoScalingConfig.publicIpAssigned` on TKE node pools (`tencentcloud:Kubernetes/nodePool:NodePool`);
  `tencentcloud:Eip/association:Association` (`instanceId`) bound to a GPU instance.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_int, is_unknown, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule

AWS_EIP = "aws:ec2/eip:Eip"
AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_EIP_ASSOCIATION = "aws:ec2/eipAssociation:EipAssociation"
ALI_EIP_ASSOCIATION = "alicloud:ecs/eipAssociation:EipAssociation"
TC_EIP_ASSOCIATION = "tencentcloud:Eip/association:Association"
AWS_ENI = "aws:ec2/networkInterface:NetworkInterface"
AWS_ENI_ATTACHMENT = "aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment"

RULE = Rule(
    id="GF-ACC-005",
    name="gpu-no-public-ip",
    description="GPU instances get no public IP.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Keep GPU instances private and reach the internet through a NAT gateway. AWS: set "
        "`associatePublicIpAddress: false` on the Instance/LaunchConfiguration and on LaunchTemplate "
        "`networkInterfaces`, and bind no Eip to GPU instances. Alibaba: set `internetMaxBandwidthOut: 0` "
        "on the ecs Instance, launch template, ess ScalingConfiguration or cs NodePool (and no "
        "`scalingConfig.isBondEip`) and bind no EIP. Tencent: set "
        "`allocatePublicIp: false` on the Instance, `publicIpAssigned: false` on the As ScalingConfig and "
        "the Cvm LaunchTemplate `internetAccessible` and the Kubernetes NodePool "
        "`autoScalingConfig`, and bind no EIP. GPU EKS node groups and Batch compute environments: "
        "launch into subnets without `mapPublicIpOnLaunch`."
    ),
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-instance-addressing.html",
    checkov=("CKV_AWS_88",),
)

_BOOL = "bool"
_BANDWIDTH = "bandwidth"

# (path, kind): a truthy boolean, or a bandwidth above 0
_PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    c.AWS_INSTANCE: (("associatePublicIpAddress", _BOOL),),
    c.AWS_SPOT_INSTANCE: (("associatePublicIpAddress", _BOOL),),
    c.AWS_LAUNCH_CONFIGURATION: (("associatePublicIpAddress", _BOOL),),
    c.AWS_LAUNCH_TEMPLATE: (("networkInterfaces.*.associatePublicIpAddress", _BOOL),),
    c.ALI_INSTANCE: (("internetMaxBandwidthOut", _BANDWIDTH), ("allocatePublicIp", _BOOL)),
    c.ALI_INSTANCE_SET: (("internetMaxBandwidthOut", _BANDWIDTH),),
    c.ALI_LAUNCH_TEMPLATE: (("internetMaxBandwidthOut", _BANDWIDTH),),
    c.ALI_ECS_LAUNCH_TEMPLATE: (("internetMaxBandwidthOut", _BANDWIDTH),),
    c.ALI_SCALING_CONFIGURATION: (("internetMaxBandwidthOut", _BANDWIDTH),),
    c.TC_INSTANCE: (("allocatePublicIp", _BOOL),),
    c.TC_INSTANCE_SET: (("allocatePublicIp", _BOOL),),
    c.TC_SCALING_CONFIG: (("publicIpAssigned", _BOOL),),
    c.TC_LAUNCH_TEMPLATE: (("internetAccessible.publicIpAssigned", _BOOL),),
    c.ALI_NODE_POOL: (("internetMaxBandwidthOut", _BANDWIDTH), ("scalingConfig.isBondEip", _BOOL)),
    c.TC_NODE_POOL: (("autoScalingConfig.publicIpAssigned", _BOOL),),
}

_BINDINGS = (
    (AWS_EIP, "Elastic IP", c.Link(("instance",), "instance", (c.AWS_INSTANCE,))),
    (AWS_EIP_ASSOCIATION, "Elastic IP association", c.Link(("instanceId",), "instanceId", (c.AWS_INSTANCE,))),
    (ALI_EIP_ASSOCIATION, "EIP association", c.Link(("instanceId",), "instanceId", (c.ALI_INSTANCE,))),
    (TC_EIP_ASSOCIATION, "EIP association", c.Link(("instanceId",), "instanceId", (c.TC_INSTANCE,))),
)

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
_ATTACHMENT_INSTANCE = c.Link(("instanceId",), "instanceId", (c.AWS_INSTANCE,))
_ATTACHMENT_ENI = c.Link(("networkInterfaceId",), "networkInterfaceId", (AWS_ENI,))

_EXPECTED = "GPU instances get no public IP: keep them private behind NAT"

# Where instances are launched, for the subnet's public-IP-on-launch default.
_SUBNET_LINKS = {
    c.AWS_INSTANCE: c.Link(("subnetId",), "subnetId", (AWS_SUBNET,)),
    c.AWS_SPOT_INSTANCE: c.Link(("subnetId",), "subnetId", (AWS_SUBNET,)),
    c.AWS_AUTOSCALING_GROUP: c.Link(("vpcZoneIdentifiers.*",), "vpcZoneIdentifiers", (AWS_SUBNET,)),
    c.AWS_EKS_NODE_GROUP: c.Link(("subnetIds.*",), "subnetIds", (AWS_SUBNET,)),
    c.AWS_BATCH_COMPUTE: c.Link(("computeResources.subnets.*",), "computeResources", (AWS_SUBNET,)),
    c.AWS_FLEET: c.Link(
        ("launchTemplateConfigs.*.overrides.*.subnetId",), "launchTemplateConfigs", (AWS_SUBNET,)
    ),
}
# Settings that, when given at all, decide the address instead of the subnet's default.
_EXPLICIT = {
    c.AWS_INSTANCE: "associatePublicIpAddress",
    c.AWS_SPOT_INSTANCE: "associatePublicIpAddress",
    c.AWS_LAUNCH_CONFIGURATION: "associatePublicIpAddress",
    c.AWS_LAUNCH_TEMPLATE: "networkInterfaces.*.associatePublicIpAddress",
}


def _public_settings(index: c.ComputeIndex, resource: Any) -> list[str]:
    found = []
    for path, kind in _PUBLIC[resource.resource_type]:
        for value in c.values_at(index.p(resource), path):
            if is_unknown(value):
                raise UnknownValueError(value, [path])
            if kind == _BOOL and truthy(value):
                found.append(f"{path} is {str(value).lower()}")
            elif kind == _BANDWIDTH and (as_int(value) or 0) > 0:
                found.append(f"{path} is {as_int(value)} (a public IP with outbound bandwidth)")
    return list(dict.fromkeys(found))


def _judge_subject(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    found = _public_settings(index, resource)
    if found and index.is_gpu(resource):
        report(f"{index.describe(resource)} gets a public IP ({'; '.join(found)}); {_EXPECTED}", resource.urn)


def _sets_address_explicitly(index: c.ComputeIndex, resource: Any) -> bool:
    # AWS Batch ignores a launch template's network interfaces: only the subnet decides there.
    templates = [] if resource.resource_type == c.AWS_BATCH_COMPUTE else index.templates.get(resource.urn, [])
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
        f"{_EXPECTED}",
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
                f"gets a public IP (associatePublicIpAddress is true); {_EXPECTED}",
                resource.urn,
            )


def _judge_binding(
    index: c.ComputeIndex, resource: Any, label: str, link: c.Link, report: ReportViolation
) -> None:
    instances, _ = index.follow(resource, link)
    gpu = [instance for instance in instances if index.is_gpu(instance)]
    if gpu:
        names = ", ".join(index.describe(instance) for instance in gpu)
        report(f"{label} '{resource.name}' gives {names} a public IP; {_EXPECTED}", resource.urn)


def _instances_by_interface(index: c.ComputeIndex) -> dict[str, list[Any]]:
    """Network interface URN -> the instances it is attached to."""
    found: dict[str, list[Any]] = defaultdict(list)
    for instance in index.of_type(c.AWS_INSTANCE):
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
                f"'{interface.name}'; {_EXPECTED}",
                resource.urn,
            )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    for token in _PUBLIC:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subject, index, resource, report))
    for token in _SUBNET_LINKS:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subnet_default, index, resource, report))
    for resource in index.of_type(c.AWS_SPOT_FLEET):
        c.judge_resource(report, resource.urn, partial(_judge_spot_fleet, index, resource, report))
    for token, label, link in _BINDINGS:
        for resource in index.of_type(token):
            c.judge_resource(
                report, resource.urn, partial(_judge_binding, index, resource, label, link, report)
            )
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


POLICY = GfStackPolicy(RULE, validate)
