"""AWS's cluster-autoscaler provider (see :mod:`gpufleet.components.baseline.autoscalers`).

It finds the fleet's groups by auto-discovery tags (:func:`discovery_flag`) and signs in through a Roles
Anywhere signing helper beside it (:class:`AwsAccess`, :func:`signing_helper`): the helper serves an
instance-metadata endpoint on localhost, which the autoscaler's AWS SDK reads as it would on EC2.

Endpoints: the provider calls Auto Scaling and EC2 (cloudprovider/aws/aws_wrapper.go:
DescribeAutoScalingGroups, SetDesiredCapacity, DescribeLaunchTemplateVersions, DescribeInstanceTypes) on
the SDK's regional endpoints; the signing helper opens the Roles Anywhere session (CreateSession) in its
trust anchor's region (rolesanywhere.<region>.amazonaws.com).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline.autoscaler_common import SYSTEM_NAMESPACE, restricted

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gpufleet.components.baseline.autoscaler import SiteAutoscaler
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs

PROVIDER = "aws"
ENDPOINTS = (
    "autoscaling.{region}.amazonaws.com",
    "ec2.{region}.amazonaws.com",
    "rolesanywhere.{region}.amazonaws.com",
)
SIGNING_HELPER_PORT = 9911


@dataclass(frozen=True, kw_only=True)
class AwsAccess:
    """What the AWS autoscaler's signing helper needs: the client certificate and key (secrets), and the
    Roles Anywhere trust anchor, profile and role ARNs."""

    image: str
    client_certificate: pulumi.Input[str]
    client_key: pulumi.Input[str]
    trust_anchor_arn: pulumi.Input[str]
    profile_arn: pulumi.Input[str]
    role_arn: pulumi.Input[str]


def discovery_flag(cluster: str) -> str:
    tags = f"k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/{cluster}"
    return f"--node-group-auto-discovery=asg:tag={tags}"


def _access(args: BurstSchedulingArgs) -> AwsAccess | None:
    """The signing helper's inputs (``args.access["aws"]``), or None when the fleet built none. Anything
    else there is a program error, said rather than leaving the autoscaler without credentials."""
    found = args.access.get(PROVIDER)
    if found is None or isinstance(found, AwsAccess):
        return found
    raise TypeError(
        f"BurstSchedulingArgs.access[{PROVIDER!r}]: must be an AwsAccess (or absent), got "
        f"{type(found).__name__}"
    )


def command(flags: list[str], args: BurstSchedulingArgs, site: SiteAutoscaler) -> pulumi.Input[list[str]]:
    """The common flags, then auto-discovery of the fleet's tagged groups."""
    return [*flags, discovery_flag(args.fleet)]


def env(args: BurstSchedulingArgs, site: SiteAutoscaler) -> list[dict[str, Any]]:
    """The region; with a signing helper, the metadata endpoint it serves."""
    found: list[dict[str, Any]] = [{"name": "AWS_REGION", "value": site.region}]
    if _access(args) is not None:
        found.append(
            {
                "name": "AWS_EC2_METADATA_SERVICE_ENDPOINT",
                "value": f"http://127.0.0.1:{SIGNING_HELPER_PORT}",
            }
        )
    return found


def sidecars(
    base: str, app: str, args: BurstSchedulingArgs, labels: Mapping[str, str], opts: pulumi.ResourceOptions
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[pulumi.Resource]]:
    """With :class:`AwsAccess`: the client certificate's Secret, the signing helper and its volume."""
    access = _access(args)
    if access is None:
        return [], [], []
    secret = k8s.core.v1.Secret(
        f"{base}-client",
        metadata={"name": f"{app}-client", "namespace": SYSTEM_NAMESPACE, "labels": labels},
        type="kubernetes.io/tls",
        string_data={"tls.crt": access.client_certificate, "tls.key": access.client_key},
        opts=opts,
    )
    volume = {"name": "client", "secret": {"secretName": f"{app}-client", "defaultMode": 0o440}}
    return [signing_helper(access)], [volume], [secret]


def signing_helper(access: AwsAccess) -> dict[str, Any]:
    """``aws_signing_helper serve``: an instance-metadata endpoint on localhost handing out the Roles
    Anywhere session's credentials, which the autoscaler's AWS SDK reads as it would on EC2."""
    client = "/var/run/gpufleet/client"
    return {
        "name": "signing-helper",
        "image": access.image,
        "command": pulumi.Output.all(access.trust_anchor_arn, access.profile_arn, access.role_arn).apply(
            lambda arns: [
                "aws_signing_helper",
                "serve",
                "--port",
                str(SIGNING_HELPER_PORT),
                "--certificate",
                f"{client}/tls.crt",
                "--private-key",
                f"{client}/tls.key",
                "--trust-anchor-arn",
                arns[0],
                "--profile-arn",
                arns[1],
                "--role-arn",
                arns[2],
            ]
        ),
        "volumeMounts": [{"name": "client", "mountPath": client, "readOnly": True}],
        # The helper answers the SDK's metadata calls on its port: open means serving.
        "livenessProbe": {"tcpSocket": {"port": SIGNING_HELPER_PORT}, "periodSeconds": 30},
        "readinessProbe": {"tcpSocket": {"port": SIGNING_HELPER_PORT}, "periodSeconds": 10},
        "resources": {
            "requests": {"cpu": "10m", "memory": "32Mi"},
            "limits": {"cpu": "100m", "memory": "64Mi"},
        },
        "securityContext": restricted(),
    }
