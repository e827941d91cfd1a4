"""The AWS cluster-autoscaler's identity: an IAM role assumed through IAM Roles Anywhere.

The autoscaler runs on the on-prem cluster, so it has no instance role. It signs in as the burst
signal does (:mod:`gpufleet.components.baseline.aws_signal`): with the exporter's client certificate,
through the same trust anchor, the role trusting that anchor only for the certificate of subject CN
``client_cn``. A Roles Anywhere profile of its own names this role and no other, so a session opened
for the signal's profile never carries the autoscaler's permissions.

What the role may do (cluster-autoscaler's AWS README, "Minimal IAM Permissions Policy", less
``eks:DescribeNodegroup``: no EKS here):

- ``autoscaling:SetDesiredCapacity`` and ``autoscaling:TerminateInstanceInAutoScalingGroup`` on Auto
  Scaling groups of this account and region only, and only on a group tagged
  ``k8s.io/cluster-autoscaler/<cluster> = owned`` and ``k8s.io/cluster-autoscaler/enabled = true``:
  the fleet's joined groups (:func:`gpufleet.components.pools.aws_join.discovery_tags`);
- the reads it documents, which take no resource: ``autoscaling:Describe{AutoScalingGroups,
  AutoScalingInstances,LaunchConfigurations,ScalingActivities,Tags}``, ``ec2:DescribeImages``,
  ``ec2:DescribeInstanceTypes``, ``ec2:DescribeLaunchTemplateVersions`` and
  ``ec2:GetInstanceTypesFromInstanceRequirements``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufleet.components.baseline.aws_signal import SESSION_SECONDS, trust_statements
from gpufleet.components.identity.documents import Statement, document

SCALE_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")
READ_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "autoscaling:DescribeTags",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
)


@dataclass(frozen=True, kw_only=True)
class AutoscalerIdentityArgs:
    cluster: str
    region: str
    client_cn: str
    trust_anchor_arn: pulumi.Input[str]
    tags: Mapping[str, str]


def scale_statements(
    cluster: str, region: str, account_id: pulumi.Input[str], partition: pulumi.Input[str]
) -> list[Statement]:
    """Scale this fleet's groups (by their discovery tags) in this account and region; read the rest."""
    groups = pulumi.Output.concat(
        "arn:",
        partition,
        ":autoscaling:",
        region,
        ":",
        account_id,
        ":autoScalingGroup:*:autoScalingGroupName/*",
    )
    return [
        Statement(
            sid="ScaleFleetGroups",
            actions=list(SCALE_ACTIONS),
            resources=[groups],
            conditions={
                "StringEquals": {
                    f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster}": "owned",
                    "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
                }
            },
        ),
        # These reads take no resource ARN (the Service Authorization Reference lists none for them).
        Statement(sid="ReadGroupsAndTypes", actions=list(READ_ACTIONS), resources=["*"]),
    ]


class AutoscalerIdentity(pulumi.ComponentResource):
    """Children: ``-role`` (trusted by Roles Anywhere through the signal's anchor for ``client_cn``
    only), ``-scale`` (its policy) and ``-profile`` (the Roles Anywhere profile naming the role and no
    other). Outputs: ``role_arn``, ``profile_arn``, ``trust_anchor_arn``."""

    role_arn: pulumi.Output[str]
    profile_arn: pulumi.Output[str]
    trust_anchor_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: AutoscalerIdentityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:baseline:AutoscalerIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOutputOptions(parent=self)
        account_id = aws.get_caller_identity_output(opts=invoke).account_id
        partition = aws.get_partition_output(opts=invoke).partition
        anchor = pulumi.Output.from_input(args.trust_anchor_arn)
        role = aws.iam.Role(
            f"{name}-role",
            description=f"gpufleet cluster-autoscaler of {args.cluster} in {args.region}: its groups only",
            assume_role_policy=document(trust_statements(anchor, args.client_cn)),
            max_session_duration=SESSION_SECONDS,
            tags=dict(args.tags),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-scale",
            role=role.name,
            policy=document(scale_statements(args.cluster, args.region, account_id, partition)),
            opts=child,
        )
        profile = aws.rolesanywhere.Profile(
            f"{name}-profile",
            name=name,
            enabled=True,
            role_arns=[role.arn],
            duration_seconds=SESSION_SECONDS,
            tags=dict(args.tags),
            opts=child,
        )
        self.role_arn = role.arn
        self.profile_arn = profile.arn
        self.trust_anchor_arn = anchor
        self.register_outputs(
            {"role_arn": self.role_arn, "profile_arn": self.profile_arn, "trust_anchor_arn": anchor}
        )
