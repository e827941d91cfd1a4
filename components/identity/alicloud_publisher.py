"""The burst gate's publisher on Alibaba Cloud: the on-prem exporter's identity, with no AccessKey.

The exporter runs on premises under a Kubernetes service account whose projected token the cluster's
service-account issuer signs. A RAM OIDC provider (``ims.OidcProvider``) trusts that issuer (by its URL
and its HTTPS certificate's fingerprints) for one client id; the role trusts that provider only, and
only for a token whose ``oidc:iss``, ``oidc:aud`` and ``oidc:sub`` are the issuer, the client id and
the exporter's service account (``AssumeRoleWithOIDC``). Its one policy allows:

- ``cms:PutCustomMetric``: publishing ``GatedBacklog`` and ``FreeGpusAhead`` (CloudMonitor grants the
  action on all resources only: it has no resource-level permission);
- ``cms:DescribeMetricLast``: the gated pools' queue backlog (``acs_mns_new``
  ``NumberOfMessagesVisible``), the gated value's input. MNS is retiring GetQueueAttributes'
  ``ActiveMessages`` in favour of that metric
  (https://www.alibabacloud.com/help/en/mns/developer-reference/api-mns-open-2022-01-19-getqueueattributes);
  CloudMonitor's query actions, like PutCustomMetric, are granted on all resources only, so the role can
  read the account's monitoring data (not its queues' messages).

Nothing else: it cannot read or write a queue, scale a group, or touch an alarm.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.identity.alicloud import MAX_ROLE_NAME, attach_custom_policy
from gpufleet.components.pools.custom.alicloud import ALICLOUD_PUT_ACTION

READ_QUEUE_ACTIONS = ("cms:DescribeMetricLast",)


def issuer_reach_note(issuer_url: str) -> str:
    """The plan note on what the OIDC provider needs of the on-prem cluster (docs/hybrid.md)."""
    return (
        f"the RAM OIDC provider trusts {issuer_url}: Alibaba STS must reach "
        f"{issuer_url.rstrip('/')}/.well-known/openid-configuration and its jwks_uri over the public "
        "internet with the pinned certificate, and the cluster's --service-account-issuer must be that "
        "URL; a private API server publishes both documents elsewhere (docs/hybrid.md)"
    )


def trust_policy(provider_arn: str, *, issuer_url: str, client_id: str, subject: str) -> str:
    """The role's trust: the OIDC provider, for the exporter's service-account token only."""
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Action": "sts:AssumeRole",
                    "Effect": "Allow",
                    "Principal": {"Federated": [provider_arn]},
                    "Condition": {
                        "StringEquals": {
                            "oidc:iss": issuer_url,
                            "oidc:aud": client_id,
                            "oidc:sub": subject,
                        }
                    },
                }
            ],
        },
        sort_keys=True,
    )


def publish_policy(queues: Sequence[tuple[str, str]]) -> str:
    """The role's policy: put custom metrics and, when a pool is gated (``queues``: region and queue
    name), read the latest CloudMonitor datapoints (its queue backlog); CloudMonitor has no
    resource-level permission for either."""
    statements: list[dict[str, object]] = [
        {
            "Sid": "PublishBurstGate",
            "Effect": "Allow",
            "Action": [ALICLOUD_PUT_ACTION],
            "Resource": ["*"],
        }
    ]
    if queues:
        statements.append(
            {
                "Sid": "ReadGatedQueueBacklog",
                "Effect": "Allow",
                "Action": list(READ_QUEUE_ACTIONS),
                "Resource": ["*"],
            }
        )
    return json.dumps({"Version": "1", "Statement": statements}, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class PublisherArgs:
    name: str  # the OIDC provider's, role's and policy's name
    issuer_url: str
    fingerprints: Sequence[str]
    client_id: str
    subject: str
    queues: Sequence[tuple[str, str]]
    tags: Mapping[str, str]

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= MAX_ROLE_NAME:
            raise ValueError(f"PublisherArgs: name {self.name!r} must be 1 to {MAX_ROLE_NAME} characters")


class AlicloudBurstPublisher(pulumi.ComponentResource):
    """``ims.OidcProvider``, a ``ram.Role`` trusting it for one service account, one ``ram.Policy``
    attached to the role."""

    role_arn: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]

    def __init__(self, name: str, args: PublisherArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:identity:AlicloudBurstPublisher", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        pulumi.log.warn(issuer_reach_note(args.issuer_url), resource=self)
        provider = alicloud.ims.OidcProvider(
            f"{name}-oidc",
            oidc_provider_name=args.name,
            issuer_url=args.issuer_url,
            fingerprints=list(args.fingerprints),
            client_ids=[args.client_id],
            description="gpufleet on-prem cluster: the burst-order exporter's service-account tokens",
            opts=child,
        )
        role = alicloud.ram.Role(
            f"{name}-role",
            role_name=args.name,
            assume_role_policy_document=provider.arn.apply(
                lambda arn: trust_policy(
                    arn, issuer_url=args.issuer_url, client_id=args.client_id, subject=args.subject
                )
            ),
            description="gpufleet burst-order exporter: publishes the burst gate",
            max_session_duration=3600,
            tags=dict(args.tags),
            opts=child,
        )
        attach_custom_policy(
            name,
            role,
            role_name=args.name,
            policy_name=f"{args.name}-publish",
            document=publish_policy(args.queues),
            description="put the burst gate's custom metrics; read the gated queues' backlog",
            tags=args.tags,
            opts=child,
        )
        self.role_arn = role.arn
        self.oidc_provider_arn = provider.arn  # AssumeRoleWithOIDC names it with the role
        self.register_outputs({"role_arn": self.role_arn, "oidc_provider_arn": self.oidc_provider_arn})
