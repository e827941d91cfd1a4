"""A policy document naming one key twice is unparseable for every rule that reads it: the cloud
rejects it or reads one of the two, so the pack never picks the last (or the first) one."""

from __future__ import annotations

import json

import pytest

from gpufleet.policies.documents import DocumentError, parse_document
from gpufleet.policies.iam.no_wildcard_actions import POLICY as WILDCARD_ACTIONS
from gpufleet.policies.iam.trust_specific_principals import POLICY as TRUST
from gpufleet.policies.kms.key_policy_no_wildcard import POLICY as KEY_POLICY
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_BUCKET_POLICY
from gpufleet.policies.storage.bucket_tls_only import POLICY as TLS_ONLY
from tests.policies.support import UNKNOWN_STRING_VALUE, res, run_resource, run_stack

# A Deny read first, then an Allow of everything: a last-wins reader sees the Allow, a first-wins one
# the Deny.
TWO_EFFECTS = (
    '{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Effect":"Allow","Action":"*","Resource":"*"}]}'
)
TWO_PRINCIPALS = (
    '{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
    '"Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Principal":"*","Action":"sts:AssumeRole"}]}'
)


def _quoted(text: str) -> str:
    return json.dumps(text)


def test_identity_policy_with_a_duplicate_key_is_a_mandatory_finding() -> None:
    assert WILDCARD_ACTIONS.enforcement_level.value == "mandatory"
    assert run_resource(WILDCARD_ACTIONS, "aws:iam/policy:Policy", {"policy": TWO_EFFECTS}, name="p") == [
        f"cannot be parsed: IAM policy 'p': the document at .policy has duplicate key \"Effect\", "
        f"{_quoted(TWO_EFFECTS)}"
    ]


def test_key_policy_with_a_duplicate_key_is_a_finding() -> None:
    assert run_resource(KEY_POLICY, "aws:kms/key:Key", {"policy": TWO_EFFECTS}, name="k") == [
        f"cannot be parsed: AWS KMS key 'k': the document at .policy has duplicate key \"Effect\", "
        f"{_quoted(TWO_EFFECTS)}"
    ]


def test_trust_policy_with_a_duplicate_principal_is_a_finding() -> None:
    assert run_resource(TRUST, "aws:iam/role:Role", {"assumeRolePolicy": TWO_PRINCIPALS}, name="r") == [
        f"cannot be parsed: IAM role 'r': the document at .assumeRolePolicy has duplicate key \"Principal\", "
        f"{_quoted(TWO_PRINCIPALS)}"
    ]


def test_bucket_policy_with_a_duplicate_key_is_a_finding() -> None:
    document = (
        '{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*",'
        '"Condition":{"Bool":{"aws:SecureTransport":"false"}},"Condition":{}}]}'
    )
    bucket = res(AWS_BUCKET, "ckpt")
    policy = res(
        AWS_BUCKET_POLICY,
        "ckpt-policy",
        {"bucket": UNKNOWN_STRING_VALUE, "policy": document},
        prop_deps={"bucket": [bucket]},
    )
    found = run_stack(TLS_ONLY, [bucket, policy])
    assert [message for message, _ in found if "duplicate key" in message] == [
        f'cannot be parsed: the document at .policy has duplicate key "Condition", {_quoted(document)}'
    ]


def test_two_spellings_of_one_key_are_a_duplicate() -> None:
    document = {"Statement": [{"Effect": "Deny", "effect": "Allow", "Action": "*", "Resource": "*"}]}
    with pytest.raises(DocumentError, match=r'policy\.Statement\.0 has duplicate key "effect"'):
        parse_document(document)


def test_the_same_key_in_different_objects_is_no_duplicate() -> None:
    document = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"},
                {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b"},
            ],
        }
    )
    parsed = parse_document(document)
    assert parsed is not None and len(parsed.statements) == 2
    assert run_resource(WILDCARD_ACTIONS, "aws:iam/policy:Policy", {"policy": document}, name="p") == []
