"""The AWS side of the baseline's burst signal: the role the on-prem exporter publishes under.

The burst order (:mod:`gpufleet.components.pools.burst`) gates each AWS pool's scale-out on the
``gpufleet/Baseline`` ``FreeGpusAhead`` metric of its site. The exporter runs next to the baseline, on
premises, and gets short-lived credentials for this role through IAM Roles Anywhere (an X.509
certificate from the team's trust anchor; no access key is ever issued). The role trusts the anchor
only for the exporter's own certificate: Roles Anywhere tags each session with the certificate's
subject, and the trust policy requires ``aws:PrincipalTag/x509Subject/CN`` to be the exporter's CN
(``client_cn``), so no other certificate the on-prem CA issued opens a session. The role may do one thing:
``cloudwatch:PutMetricData`` into ``gpufleet/Baseline``. This role is also what GF-OPS-001 finds as the
metric's publisher in the stack.

The trust anchor is the team's existing one (``trust_anchor_arn``), or built here from the on-prem CA's
PEM bundle (``ca_certificate``: an ``aws.rolesanywhere.TrustAnchor`` of source ``CERTIFICATE_BUNDLE``).
Either way a Roles Anywhere ``Profile`` names the signal role and no other, with one-hour sessions:
``aws_signing_helper`` needs the anchor, the profile and the role ARNs to open a session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.pools.burst import SIGNAL_NAMESPACE
from gpufleet.components.spec.onprem import TRUST_ANCHOR_FORM, TRUST_ANCHOR_RE
from gpufleet.components.tags import check_cost_tags

ROLES_ANYWHERE = "rolesanywhere.amazonaws.com"
SESSION_SECONDS = 3600  # the role's and the profile's longest session: one hour


@dataclass(frozen=True, kw_only=True)
class BaselineSignalArgs:
    """Exactly one of ``trust_anchor_arn`` (the team's existing Roles Anywhere trust anchor holding the
    on-prem CA) or ``ca_certificate`` (that CA's PEM bundle: the component builds the anchor)."""

    tags: Mapping[str, str]
    client_cn: str
    trust_anchor_arn: str | None = None
    ca_certificate: pulumi.Input[str] | None = None
    region: str | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if (self.trust_anchor_arn is None) == (self.ca_certificate is None):
            problems.append(
                "give exactly one of trust_anchor_arn (an existing trust anchor) or ca_certificate (the "
                "on-prem CA's PEM bundle, to build one)"
            )
        elif self.trust_anchor_arn is not None and not TRUST_ANCHOR_RE.match(self.trust_anchor_arn):
            problems.append(
                f"trust_anchor_arn: {self.trust_anchor_arn!r} is not an IAM Roles Anywhere trust anchor ARN "
                f"({TRUST_ANCHOR_FORM})"
            )
        if not self.client_cn or "*" in self.client_cn:
            problems.append(f"client_cn: {self.client_cn!r} must be the exporter certificate's subject CN")
        if problems:
            raise ValueError("BaselineSignalArgs: " + "; ".join(problems))


def trust_statements(trust_anchor_arn: pulumi.Input[str], client_cn: str) -> list[Statement]:
    """Only sessions Roles Anywhere opens through the team's trust anchor, for the certificate whose
    subject CN is the exporter's, may assume the role (any other certificate of the CA is refused)."""
    return [
        Statement(
            sid="RolesAnywhereTrustAnchor",
            actions=["sts:AssumeRole", "sts:TagSession", "sts:SetSourceIdentity"],
            principals={"Service": [ROLES_ANYWHERE]},
            conditions={
                "ArnEquals": {"aws:SourceArn": trust_anchor_arn},
                "StringEquals": {"aws:PrincipalTag/x509Subject/CN": client_cn},
            },
        )
    ]


def publish_statements() -> list[Statement]:
    """PutMetricData into the signal's namespace and no other (PutMetricData takes no resource ARN)."""
    return [
        Statement(
            sid="PublishBaselineSignal",
            actions=["cloudwatch:PutMetricData"],
            resources=["*"],
            conditions={"StringEquals": {"cloudwatch:namespace": SIGNAL_NAMESPACE}},
        )
    ]


class BaselineSignal(pulumi.ComponentResource):
    """Children: ``-signal-anchor`` (only with ``ca_certificate``: the trust anchor built from the CA
    bundle), ``-signal-role`` (trusted by Roles Anywhere through that one anchor, for the certificate
    of subject CN ``client_cn`` only), ``-signal-publish``
    (its only permission: PutMetricData into ``gpufleet/Baseline``) and ``-signal-profile`` (the Roles
    Anywhere profile naming the role and no other, one-hour sessions).

    Outputs: ``role_arn``, ``profile_arn`` and ``trust_anchor_arn``: the three ARNs the exporter's
    ``aws_signing_helper credential-process`` takes."""

    role_arn: pulumi.Output[str]
    profile_arn: pulumi.Output[str]
    trust_anchor_arn: pulumi.Output[str]

    def __init__(
        self, name: str, args: BaselineSignalArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:baseline:BaselineSignal", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        if args.trust_anchor_arn is not None:
            anchor_arn: pulumi.Output[str] = pulumi.Output.from_input(args.trust_anchor_arn)
        else:
            anchor = aws.rolesanywhere.TrustAnchor(
                f"{name}-signal-anchor",
                name=f"{name}-signal",
                enabled=True,
                source={
                    "source_type": "CERTIFICATE_BUNDLE",
                    "source_data": {"x509_certificate_data": args.ca_certificate},
                },
                tags=tags,
                opts=child,
            )
            anchor_arn = anchor.arn
        role = aws.iam.Role(
            f"{name}-signal-role",
            description="gpufleet baseline exporter: publishes the burst-order signal",
            assume_role_policy=document(trust_statements(anchor_arn, args.client_cn)),
            max_session_duration=SESSION_SECONDS,
            tags=tags,
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-signal-publish",
            role=role.name,
            policy=document(publish_statements()),
            opts=child,
        )
        profile = aws.rolesanywhere.Profile(
            f"{name}-signal-profile",
            name=f"{name}-signal",
            enabled=True,
            role_arns=[role.arn],
            duration_seconds=SESSION_SECONDS,
            tags=tags,
            opts=child,
        )
        self.role_arn = role.arn
        self.profile_arn = profile.arn
        self.trust_anchor_arn = anchor_arn
        self.register_outputs(
            {"role_arn": self.role_arn, "profile_arn": self.profile_arn, "trust_anchor_arn": anchor_arn}
        )
