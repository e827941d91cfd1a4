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

import base64
import binascii
import re
from functools import partial
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule

ALI_KEY_PAIR_ATTACHMENT = "alicloud:ecs/keyPairAttachment:KeyPairAttachment"
ALI_ECS_KEY_PAIR_ATTACHMENT = "alicloud:ecs/ecsKeyPairAttachment:EcsKeyPairAttachment"

RULE = Rule(
    id="GF-ACC-002",
    name="gpu-no-login-credentials",
    description="GPU instances and launch templates carry no SSH key pair or login password.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Remove login credentials from GPU instances and everything that launches them, and connect "
        "through a session manager. AWS: unset `keyName` on the Instance, LaunchTemplate, "
        "LaunchConfiguration or spot fleet launch specification, `remoteAccess` on EKS node groups and "
        "`computeResources.ec2KeyPair` on Batch compute environments. Alibaba: unset "
        "`keyName`/`keyPairName`, `password` and `kmsEncryptedPassword` on the ecs Instance, "
        "EcsInstanceSet, LaunchTemplate, ess ScalingConfiguration or cs NodePool, and drop "
        "KeyPairAttachments to GPU instances. Tencent: unset `keyIds`, "
        "`keyName` and `password` on the Instance, As ScalingConfig, Cvm LaunchTemplate `loginSettings` or "
        "Kubernetes NodePool `autoScalingConfig`, and keep CVM's random password away: `keepImageLogin` "
        "with a hardened image, or user data that runs `passwd -l root`."
    ),
    url="https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager.html",
)

_KEY = "SSH key pair"
_PASSWORD = "login password"
# `passwordInherit: true` logs in with the password preset in the image: a credential all the same.
_INHERITED = ("passwordInherit", "login password inherited from the image", False)

# (prop path, what it is, whether its value may be shown)
_CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    c.AWS_INSTANCE: (("keyName", _KEY, True),),
    c.AWS_SPOT_INSTANCE: (("keyName", _KEY, True),),
    c.AWS_LAUNCH_TEMPLATE: (("keyName", _KEY, True),),
    c.AWS_LAUNCH_CONFIGURATION: (("keyName", _KEY, True),),
    c.ALI_INSTANCE: (
        ("keyName", _KEY, True),
        ("password", _PASSWORD, False),
        ("kmsEncryptedPassword", _PASSWORD, False),
        _INHERITED,
    ),
    c.ALI_INSTANCE_SET: (("keyPairName", _KEY, True), ("password", _PASSWORD, False), _INHERITED),
    c.ALI_LAUNCH_TEMPLATE: (("keyPairName", _KEY, True), _INHERITED),
    c.ALI_ECS_LAUNCH_TEMPLATE: (("keyPairName", _KEY, True), _INHERITED),
    c.ALI_SCALING_CONFIGURATION: (
        ("keyName", _KEY, True),
        ("password", _PASSWORD, False),
        ("kmsEncryptedPassword", _PASSWORD, False),
        _INHERITED,
    ),
    c.TC_INSTANCE: (("keyIds", _KEY, True), ("keyName", _KEY, True), ("password", _PASSWORD, False)),
    c.TC_INSTANCE_SET: (("keyName", _KEY, True), ("password", _PASSWORD, False)),
    c.TC_SCALING_CONFIG: (("keyIds", _KEY, True), ("password", _PASSWORD, False)),
    c.TC_LAUNCH_TEMPLATE: (
        ("loginSettings.keyIds", _KEY, True),
        ("loginSettings.password", _PASSWORD, False),
    ),
    c.AWS_BATCH_COMPUTE: (("computeResources.ec2KeyPair", _KEY, True),),
    c.AWS_EKS_NODE_GROUP: (("remoteAccess.ec2SshKey", _KEY, True),),
    c.ALI_NODE_POOL: (
        ("keyName", _KEY, True),
        ("password", _PASSWORD, False),
        ("kmsEncryptedPassword", _PASSWORD, False),
    ),
    c.TC_NODE_POOL: (
        ("autoScalingConfig.keyIds", _KEY, True),
        ("autoScalingConfig.password", _PASSWORD, False),
    ),
}

_EXPECTED = "GPU instances carry no SSH key or login password: connect through a session manager"

# Tencent: what keeps CVM's random password away, per kind: (keepImageLogin path, user data paths).
_TC_LOGIN: dict[str, tuple[str, tuple[str, ...]]] = {
    c.TC_INSTANCE: ("keepImageLogin", ("userData", "userDataRaw")),
    c.TC_SCALING_CONFIG: ("keepImageLogin", ("userData",)),
    c.TC_LAUNCH_TEMPLATE: ("loginSettings.keepImageLogin", ("userData",)),
}
_LOCKS_ROOT = re.compile(r"\b(?:passwd\s+(?:-l|--lock)|usermod\s+(?:-L|--lock))\s+root\b")


def _script(value: Any) -> str:
    """User data as text: base64-decoded when it decodes, else as written."""
    text = str(value)
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return text


def _random_password(index: c.ComputeIndex, resource: Any) -> str | None:
    """Why a Tencent GPU launcher without key or password still gets a login password, or None."""
    keep_path, data_paths = _TC_LOGIN[resource.resource_type]
    props = index.p(resource)
    keep = c.values_at(props, keep_path)
    if keep and is_unknown(keep[0]):
        raise UnknownValueError(str(keep[0]), keep_path.split("."))
    if keep and keep[0] is True:
        return None
    for path in data_paths:
        for value in c.values_at(props, path):
            if is_unknown(value):
                raise UnknownValueError(str(value), [path])
            if _LOCKS_ROOT.search(_script(value)):
                return None
    return (
        f"neither a key nor a password, so CVM sets a random login password, and it neither keeps the "
        f"image's login ({keep_path}) nor locks the root password in its user data "
        f"({' or '.join(data_paths)})"
    )


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
        report(f"{index.describe(resource)} has {' and '.join(found)}; {_EXPECTED}", resource.urn)
    elif not found and resource.resource_type in _TC_LOGIN and index.is_gpu(resource):
        why = _random_password(index, resource)
        if why is not None:
            report(f"{index.describe(resource)} has {why}; {_EXPECTED}", resource.urn)


def _judge_spot_fleet(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    specs = index.p(resource).get("launchSpecifications")
    if is_unknown(specs):
        raise UnknownValueError(str(specs), ["launchSpecifications"])
    for number, spec in enumerate(specs if isinstance(specs, list) else [], start=1):
        key = spec.get("keyName") if isinstance(spec, dict) else None
        instance_type = spec.get("instanceType") if isinstance(spec, dict) else None
        if key in (None, ""):
            continue
        if is_unknown(instance_type):
            raise UnknownValueError(str(instance_type), [f"launchSpecifications.{number - 1}.instanceType"])
        if isinstance(instance_type, str) and is_gpu_type("aws", instance_type):
            report(
                f"EC2 spot fleet request '{resource.name}' launch specification {number} ({instance_type}) "
                f"has {_KEY} {c.display(key)!r} (keyName); {_EXPECTED}",
                resource.urn,
            )


def _judge_attachment(index: c.ComputeIndex, resource: Any, report: ReportViolation) -> None:
    link = c.Link(("instanceIds.*",), "instanceIds", (c.ALI_INSTANCE,))
    instances, _ = index.follow(resource, link)
    gpu = [instance for instance in instances if index.is_gpu(instance)]
    if gpu:
        key = c.values_at(index.p(resource), "keyPairName") or c.values_at(index.p(resource), "keyName")
        key_text = repr(c.display(key[0])) if key else "(unnamed)"
        names = ", ".join(index.describe(instance) for instance in gpu)
        report(
            f"ECS key pair attachment '{resource.name}' binds {_KEY} {key_text} to {names}; {_EXPECTED}",
            resource.urn,
        )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    for token in _CREDENTIALS:
        for resource in index.of_type(token):
            c.judge_resource(report, resource.urn, partial(_judge_subject, index, resource, report))
    for resource in index.of_type(c.AWS_SPOT_FLEET):
        c.judge_resource(report, resource.urn, partial(_judge_spot_fleet, index, resource, report))
    for resource in index.of_type(ALI_KEY_PAIR_ATTACHMENT, ALI_ECS_KEY_PAIR_ATTACHMENT):
        c.judge_resource(report, resource.urn, partial(_judge_attachment, index, resource, report))


POLICY = GfStackPolicy(RULE, validate)
