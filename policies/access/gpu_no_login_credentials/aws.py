"""GF-ACC-002 on AWS: `keyName` on instances, spot instance requests, launch templates and launch
configurations; `remoteAccess.ec2SshKey` of EKS node groups; `computeResources.ec2KeyPair` of Batch
compute environments; and `launchSpecifications[].keyName` of spot fleet requests, judged per
specification. An EC2 fleet has no key of its own: its launch templates are judged as GPU templates
through the fleet's overrides."""

from __future__ import annotations

from typing import Any

from pulumi_policy import ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.aws import (
    AWS_BATCH_COMPUTE,
    AWS_EKS_NODE_GROUP,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    AWS_SPOT_INSTANCE,
)
from gpufleet.policies.access.gpu_no_login_credentials.words import EXPECTED, KEY
from gpufleet.policies.gpu import is_gpu_type
from gpufleet.policies.props import is_unknown

# (prop path, what it is, whether its value may be shown), of instances and what launches them
CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    AWS_INSTANCE: (("keyName", KEY, True),),
    AWS_SPOT_INSTANCE: (("keyName", KEY, True),),
    AWS_LAUNCH_TEMPLATE: (("keyName", KEY, True),),
    AWS_LAUNCH_CONFIGURATION: (("keyName", KEY, True),),
}
# ... and of managed pools
POOL_CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    AWS_BATCH_COMPUTE: (("computeResources.ec2KeyPair", KEY, True),),
    AWS_EKS_NODE_GROUP: (("remoteAccess.ec2SshKey", KEY, True),),
}
REMEDIATION = (
    "AWS: unset `keyName` on the Instance, LaunchTemplate, LaunchConfiguration or spot fleet launch "
    "specification, `remoteAccess` on EKS node groups and `computeResources.ec2KeyPair` on Batch compute "
    "environments."
)
URL = "https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager.html"


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
                f"has {KEY} {c.display(key)!r} (keyName); {EXPECTED}",
                resource.urn,
            )


# resource type -> how to judge it beyond its own credentials
JUDGES = {AWS_SPOT_FLEET: _judge_spot_fleet}
