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

from functools import partial
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import cloud_parts, part_merged, part_values
from gpufleet.policies.access import compute as c
from gpufleet.policies.access.gpu_no_public_ip.words import BANDWIDTH, BOOL, EXPECTED
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_int, is_unknown, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule
from gpufleet.policies.rule_facts import chained, joined, sole

# Each cloud's part of the rule: `PUBLIC` and `POOL_PUBLIC` (per kind: (path, BOOL or BANDWIDTH)),
# `BINDINGS` (what binds a public IP to an instance), `REMEDIATION`, and where the cloud has them
# `judge_launches` and `judge_interfaces` (the subnets' defaults, network interfaces' addresses).
PARTS = cloud_parts(__name__)

RULE = Rule(
    id="GF-ACC-005",
    name="gpu-no-public-ip",
    description="GPU instances get no public IP.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Keep GPU instances private and reach the internet through a NAT gateway. "
        f"{joined(PARTS, 'REMEDIATION', ' ')} GPU EKS node groups and Batch compute "
        "environments: launch into subnets without `mapPublicIpOnLaunch`."
    ),
    url=sole(PARTS, "URL"),
    checkov=chained(PARTS, "CHECKOV"),
)

# Instances and what launches them first, then managed pools (the order findings come in).
_PUBLIC: dict[str, tuple[tuple[str, str], ...]] = {
    **part_merged(PARTS, "PUBLIC"),
    **part_merged(PARTS, "POOL_PUBLIC"),
}
# (type, label, link to the instance): what binds a public IP to an instance, cloud by cloud
_BINDINGS: tuple[tuple[str, str, c.Link], ...] = tuple(
    binding for bindings in part_values(PARTS, "BINDINGS").values() for binding in bindings
)


def _public_settings(index: c.ComputeIndex, resource: Any) -> list[str]:
    found = []
    for path, kind in _PUBLIC[resource.resource_type]:
        for value in c.values_at(index.p(resource), path):
            if is_unknown(value):
                raise UnknownValueError(value, [path])
            if kind == BOOL and truthy(value):
                found.append(f"{path} is {str(value).lower()}")
            elif kind == BANDWIDTH and (as_int(value) or 0) > 0:
                found.append(f"{path} is {as_int(value)} (a public IP with outbound bandwidth)")
    return list(dict.fromkeys(found))


def _judge_subject(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    found = _public_settings(index, resource)
    if found and index.is_gpu(resource):
        report(f"{index.describe(resource)} gets a public IP ({'; '.join(found)}); {EXPECTED}", resource.urn)


def _judge_binding(
    index: c.ComputeIndex, resource: Any, label: str, link: c.Link, report: ReportViolation
) -> None:
    instances, _ = index.follow(resource, link)
    gpu = [instance for instance in instances if index.is_gpu(instance)]
    if gpu:
        names = ", ".join(index.describe(instance) for instance in gpu)
        report(f"{label} '{resource.name}' gives {names} a public IP; {EXPECTED}", resource.urn)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    for token in _PUBLIC:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subject, index, resource, report))
    for judge in part_values(PARTS, "judge_launches").values():
        judge(index, report)
    for token, label, link in _BINDINGS:
        for resource in index.of_type(token):
            c.judge_resource(
                report, resource.urn, partial(_judge_binding, index, resource, label, link, report)
            )
    for judge in part_values(PARTS, "judge_interfaces").values():
        judge(index, report)


POLICY = GfStackPolicy(RULE, validate)
