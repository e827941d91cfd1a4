"""The AWS role the on-prem exporter publishes the burst signal under: exact inputs under the mocks."""

from __future__ import annotations

import json

import pytest

from gpufleet.components.baseline.aws_signal import BaselineSignal, BaselineSignalArgs
from tests.components.builders import TAGS
from tests.components.conftest import Runner

ANCHOR = "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/0a1b2c3d-1111-2222-3333-444455556666"
CN = "gpufleet-exporter.lab.example"


def test_role_trusts_one_trust_anchor_and_publishes_one_namespace(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: BaselineSignal(
            "baseline", BaselineSignalArgs(trust_anchor_arn=ANCHOR, client_cn=CN, tags=TAGS)
        )
    )
    assert mocks.names_by_type() == [
        ("aws:iam/role:Role", "baseline-signal-role"),
        ("aws:iam/rolePolicy:RolePolicy", "baseline-signal-publish"),
        ("aws:rolesanywhere/profile:Profile", "baseline-signal-profile"),
        ("gpufleet:baseline:BaselineSignal", "baseline"),
    ]
    role = mocks.one("aws:iam/role:Role", "baseline-signal-role").inputs
    assert json.loads(role["assumeRolePolicy"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "RolesAnywhereTrustAnchor",
                "Effect": "Allow",
                "Action": ["sts:AssumeRole", "sts:TagSession", "sts:SetSourceIdentity"],
                "Principal": {"Service": ["rolesanywhere.amazonaws.com"]},
                # The anchor, and of the CA's certificates only the exporter's (its subject CN).
                "Condition": {
                    "ArnEquals": {"aws:SourceArn": ANCHOR},
                    "StringEquals": {"aws:PrincipalTag/x509Subject/CN": CN},
                },
            }
        ],
    }
    assert (role["maxSessionDuration"], role["tags"]) == (3600, TAGS)
    policy = mocks.one("aws:iam/rolePolicy:RolePolicy", "baseline-signal-publish").inputs
    assert json.loads(policy["policy"])["Statement"] == [
        {
            "Sid": "PublishBaselineSignal",
            "Effect": "Allow",
            "Action": ["cloudwatch:PutMetricData"],
            "Resource": ["*"],
            "Condition": {"StringEquals": {"cloudwatch:namespace": "gpufleet/Baseline"}},
        }
    ]


@pytest.mark.parametrize(
    ("anchor", "tags", "message"),
    [
        (
            "arn:aws:iam::123456789012:role/x",
            TAGS,
            "BaselineSignalArgs: trust_anchor_arn: 'arn:aws:iam::123456789012:role/x' is not an IAM Roles "
            "Anywhere trust anchor ARN (arn:aws:rolesanywhere:<region>:<account>:trust-anchor/<uuid>)",
        ),
        (
            None,
            TAGS,
            "BaselineSignalArgs: give exactly one of trust_anchor_arn (an existing trust anchor) or "
            "ca_certificate (the on-prem CA's PEM bundle, to build one)",
        ),
        (
            ANCHOR,
            {"project": "vision"},
            "BaselineSignalArgs: tags: missing cost tag 'team'; tags: missing cost tag 'cost-center'; "
            "tags: missing cost tag 'env'",
        ),
    ],
)
def test_bad_args_are_refused(anchor: str | None, tags: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        BaselineSignalArgs(trust_anchor_arn=anchor, client_cn=CN, tags=tags)
    assert str(caught.value) == message


def test_both_anchor_and_bundle_are_refused() -> None:
    with pytest.raises(ValueError, match="give exactly one of trust_anchor_arn"):
        BaselineSignalArgs(trust_anchor_arn=ANCHOR, ca_certificate="PEM", client_cn=CN, tags=TAGS)


def test_the_profile_names_the_signal_role_only_with_one_hour_sessions(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: BaselineSignal(
            "baseline", BaselineSignalArgs(trust_anchor_arn=ANCHOR, client_cn=CN, tags=TAGS)
        )
    )
    profile = mocks.one("aws:rolesanywhere/profile:Profile", "baseline-signal-profile").inputs
    assert profile["name"] == "baseline-signal"
    assert profile["enabled"] is True
    assert profile["durationSeconds"] == 3600
    assert profile["tags"] == TAGS
    # The role's ARN as the recording mocks make it: the profile names that role and no other.
    assert profile["roleArns"] == ["arn:aws:iam:us-east-1:123456789012:role/baseline-signal-role-0a1b2c3"]
    assert "managedPolicyArns" not in profile and "sessionPolicy" not in profile


def test_a_ca_bundle_builds_the_trust_anchor_the_role_trusts(run_pulumi: Runner) -> None:
    pem = "-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n"
    mocks = run_pulumi(
        lambda: BaselineSignal("baseline", BaselineSignalArgs(ca_certificate=pem, client_cn=CN, tags=TAGS))
    )
    assert mocks.names_by_type() == [
        ("aws:iam/role:Role", "baseline-signal-role"),
        ("aws:iam/rolePolicy:RolePolicy", "baseline-signal-publish"),
        ("aws:rolesanywhere/profile:Profile", "baseline-signal-profile"),
        ("aws:rolesanywhere/trustAnchor:TrustAnchor", "baseline-signal-anchor"),
        ("gpufleet:baseline:BaselineSignal", "baseline"),
    ]
    anchor = mocks.one("aws:rolesanywhere/trustAnchor:TrustAnchor", "baseline-signal-anchor").inputs
    assert anchor["source"] == {
        "sourceType": "CERTIFICATE_BUNDLE",
        "sourceData": {"x509CertificateData": pem},
    }
    assert (anchor["name"], anchor["enabled"], anchor["tags"]) == ("baseline-signal", True, TAGS)
    role = mocks.one("aws:iam/role:Role", "baseline-signal-role").inputs
    (statement,) = json.loads(role["assumeRolePolicy"])["Statement"]
    # The built anchor's ARN (as the recording mocks make it), not any other anchor's.
    assert statement["Condition"] == {
        "ArnEquals": {
            "aws:SourceArn": "arn:aws:rolesanywhere:us-east-1:123456789012:trustanchor/baseline-signal"
        },
        "StringEquals": {"aws:PrincipalTag/x509Subject/CN": CN},
    }


def test_args_refuse_a_missing_or_wildcard_common_name() -> None:
    with pytest.raises(ValueError) as raised:
        BaselineSignalArgs(trust_anchor_arn=ANCHOR, client_cn="*.lab.example", tags=TAGS)
    assert str(raised.value) == (
        "BaselineSignalArgs: client_cn: '*.lab.example' must be the exporter certificate's subject CN"
    )
