"""GF-ACC-002: GPU instances and launch templates carry no SSH key pair or login password.

A stack policy, because a launch template or scaling configuration often names no instance type of
its own: it is judged as a GPU template when a GPU instance or group in the stack uses it (see
`gpufleet.policies.access.compute`), and a template with no GPU type and no GPU user in the stack is left
alone (it launches no GPU instance from this program). Credentials judged:

- AWS: `keyName` on `aws:ec2/instance:Instance`, `aws:ec2/spotInstanceRequest:SpotInstanceRequest`,
  `aws:ec2/launchTemplate:LaunchTemplate`, `aws:ec2/launchConfiguration:LaunchConfiguration`, and
  `launchSpecifications[].keyName` of `aws:ec2/spotFleetRequest:SpotFleetRequest`;
  `remoteAccess.ec2SshKey` of an `aws:eks/nodeGroup:NodeGroup` whose `instanceTypes`, `amiType`
  (`*_GPU`, `*_NVIDIA`) or launch template make it a GPU node group; `computeResources.ec2KeyPair` of
  an `aws:batch/computeEnvironment:ComputeEnvironment` whose `computeResources.instanceTypes` (types
  or bare families such as `g5`) or launch template are GPU. An `aws:ec2/fleet:Fleet` has no key of
  its own: its launch templates are judged as GPU templates through the fleet's overrides.
- Alibaba Cloud: `keyName`/`password`/`kmsEncryptedPassword` on `alicloud:ecs/instance:Instance`
  and `alicloud:ess/scalingConfiguration:ScalingConfiguration`; `keyPairName`/`password` on
  `alicloud:ecs/ecsInstanceSet:EcsInstanceSet`; `keyPairName` on `alicloud:ecs/launchTemplate` and
  `alicloud:ecs/ecsLaunchTemplate`; `passwordInherit: true` (the image's preset password) on all of
  these; `keyName`/`password`/`kmsEncryptedPassword` on ACK node pools
  (`alicloud:cs/nodePool:NodePool`, GPU by `instanceTypes`); and key pairs bound afterwards to GPU
  instances through `alicloud:ecs/keyPairAttachment:KeyPairAttachment` /
  `ecsKeyPairAttachment:EcsKeyPairAttachment`.
- Tencent Cloud: `keyIds`/`keyName`/`password` on `tencentcloud:Instance/instance:Instance`,
  `keyName`/`password` on `tencentcloud:Instance/set:Set`, `keyIds`/`password` on
  `tencentcloud:As/scalingConfig:ScalingConfig`, `loginSettings.keyIds`/`loginSettings.password` on
  `tencentcloud:Cvm/launchTemplate:LaunchTemplate`; `autoScalingConfig.keyIds` and
  `autoScalingConfig.password` on TKE node pools (`tencentcloud:Kubernetes/nodePool:NodePool`, GPU by
  `autoScalingConfig.instanceType` or `backupInstanceTypes`). A Tencent CVM instance, AS launch
  configuration or CVM launch template given neither gets a random login password from CVM: it passes
  only with `keepImageLogin` (`loginSettings.keepImageLogin` on a launch template: the image's own,
  hardened login settings) or with user data (`userData`, base64, or `userDataRaw`) that locks the
  root password (`passwd -l root`, `passwd --lock root`, `usermod -L root` or `usermod --lock root`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union
from gpufleet.policies.access import compute as c
from gpufleet.policies.access.gpu_no_login_credentials.words import EXPECTED
from gpufleet.policies.memo import per_stack
from gpufleet.policies.rule import GfStackPolicy, Rule
from gpufleet.policies.rule_facts import joined, sole

# Each cloud's part of the rule: `CREDENTIALS` and `POOL_CREDENTIALS` (per kind: (prop path, what it
# is, whether its value may be shown)), `REMEDIATION`, and where the cloud has them `JUDGES` (kinds
# judged another way) and `UNSET_LOGIN_TYPES` with `unset_login` (kinds given a login password when
# they name none).
PARTS = cloud_parts(__name__)

RULE = Rule(
    id="GF-ACC-002",
    name="gpu-no-login-credentials",
    description="GPU instances and launch templates carry no SSH key pair or login password.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Remove login credentials from GPU instances and everything that launches them, and connect "
        f"through a session manager. {joined(PARTS, 'REMEDIATION', ' ')}"
    ),
    url=sole(PARTS, "URL"),
)

# Instances and what launches them first, then managed pools (the order findings come in).
_CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    **part_merged(PARTS, "CREDENTIALS"),
    **part_merged(PARTS, "POOL_CREDENTIALS"),
}
_UNSET_LOGIN = part_union(PARTS, "UNSET_LOGIN_TYPES")
_JUDGES = part_merged(PARTS, "JUDGES")


def _found(index: c.ComputeIndex, resource: Any) -> list[str]:
    props = index.p(resource)
    found = []
    for path, what, shown in _CREDENTIALS[resource.resource_type]:
        values = [
            item
            for value in c.values_at(props, path)
            for item in (value if isinstance(value, list) else [value])
            if item is not False and item != "false"  # passwordInherit: false inherits nothing
        ]
        if not values:
            continue
        if shown:
            text = ", ".join(repr(c.display(v)) for v in values)
            found.append(f"{what} {text} ({path})")
        else:
            found.append(f"a {what} ({path})")
    return found


def _judge_subject(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    found = _found(index, resource)
    if found and index.is_gpu(resource):
        report(f"{index.describe(resource)} has {' and '.join(found)}; {EXPECTED}", resource.urn)
    elif not found and resource.resource_type in _UNSET_LOGIN and index.is_gpu(resource):
        part = part_of(PARTS, resource.resource_type)
        why: str | None = part.unset_login(index, resource) if part is not None else None
        if why is not None:
            report(f"{index.describe(resource)} has {why}; {EXPECTED}", resource.urn)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    for token in _CREDENTIALS:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subject, index, resource, report))
    for token, judge in _JUDGES.items():
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(judge, index, resource, report))


POLICY = GfStackPolicy(RULE, validate)
