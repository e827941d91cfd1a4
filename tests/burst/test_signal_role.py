"""The AWS role the on-prem exporter publishes the burst signal under: exact inputs under the mocks."""

from __future__ import annotations

import json

import pytest

from components.baseline.signal import BaselineSignal, BaselineSignalArgs
from tests.components.builders import TAGS
from tests.components.conftest import Runner

ANCHOR = "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/0a1b2c3d-1111-2222-3333-444455556666"


def test_role_trusts_one_trust_anchor_and_publishes_one_namespace(run_pulumi: Runner) -> None:
    mocks = run_pulumi(
        lambda: BaselineSignal("baseline", BaselineSignalArgs(trust_anchor_arn=ANCHOR, tags=TAGS))
    )
    assert mocks.names_by_type() == [
        ("aws:iam/role:Role", "baseline-signal-role"),
        ("aws:iam/rolePolicy:RolePolicy", "baseline-signal-publish"),
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
                "Condition": {"ArnEquals": {"aws:SourceArn": ANCHOR}},
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
            ANCHOR,
            {"project": "vision"},
            "BaselineSignalArgs: tags: missing cost tag 'team'; tags: missing cost tag 'cost-center'; "
            "tags: missing cost tag 'env'",
        ),
    ],
)
def test_bad_args_are_refused(anchor: str, tags: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        BaselineSignalArgs(trust_anchor_arn=anchor, tags=tags)
    assert str(caught.value) == message
