from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from gpufleet.policies.kms.aws import AWS_EXTERNAL_KEY, AWS_KEY, AWS_KEY_POLICY
from gpufleet.policies.kms.key_policy_no_wildcard import POLICY, RULE

from .helpers import UNKNOWN, run_resource

ROOT = {
    "Sid": "EnableRoot",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
    "Action": "kms:*",
    "Resource": "*",
}


def doc(*statements: Mapping[str, object]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def test_metadata() -> None:
    assert (RULE.id, RULE.clouds, RULE.severity.value) == ("GF-KMS-002", ("aws",), "high")


@pytest.mark.parametrize("kind", [AWS_KEY, AWS_EXTERNAL_KEY, AWS_KEY_POLICY])
def test_named_principal_passes(kind: str) -> None:
    assert run_resource(POLICY, kind, {"policy": doc(ROOT)}, name="k") == []


@pytest.mark.parametrize("principal", ["*", {"AWS": "*"}, {"AWS": ["*"]}])
def test_wildcard_principal_fails(principal: object) -> None:
    statement = {**ROOT, "Sid": "Open", "Principal": principal}
    assert run_resource(POLICY, AWS_KEY_POLICY, {"keyId": UNKNOWN, "policy": doc(statement)}, name="kp") == [
        "AWS KMS key policy 'kp' policy statement 'Open' allows kms:* to any principal (*); name the "
        "principals "
        "or restrict them with aws:PrincipalAccount or kms:CallerAccount"
    ]


def test_star_action_as_dict_document() -> None:
    statement = {"Effect": "Allow", "Principal": "*", "Action": ["kms:Decrypt", "*"]}
    assert run_resource(POLICY, AWS_KEY, {"policy": {"Statement": [statement]}}, name="k") == [
        "AWS KMS key 'k' policy statement 1 allows * to any principal (*); name the principals or restrict "
        "them with aws:PrincipalAccount or kms:CallerAccount"
    ]


def test_restricting_condition_accepted_and_narrow_actions_pass() -> None:
    restricted = {
        **ROOT,
        "Principal": {"AWS": "*"},
        "Condition": {"StringEquals": {"kms:CallerAccount": "111122223333"}},
    }
    narrow = {"Effect": "Allow", "Principal": "*", "Action": ["kms:DescribeKey", "kms:Get*", "kms:List*"]}
    deny = {"Effect": "Deny", "Principal": "*", "Action": "kms:*"}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(restricted, narrow, deny)}) == []


def test_no_policy_and_other_types() -> None:
    assert run_resource(POLICY, AWS_KEY, {}) == []
    assert run_resource(POLICY, "alicloud:kms/key:Key", {"policy": doc({**ROOT, "Principal": "*"})}) == []


def test_unknown_and_proxy() -> None:
    found = run_resource(POLICY, AWS_KEY_POLICY, {"keyId": "k", "policy": UNKNOWN}, proxy=True)
    assert len(found) == 1
    assert found[0].startswith("could not be judged at preview")


def test_allow_not_action_to_anyone_fails() -> None:
    # Allow + NotAction grants every kms action but the excluded ones: as broad as kms:*.
    statement = {
        "Sid": "Open",
        "Effect": "Allow",
        "Principal": {"AWS": ["*"]},
        "NotAction": "kms:ScheduleKeyDeletion",
    }
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(statement)}, name="k", proxy=True) == [
        "AWS KMS key 'k' policy statement 'Open' allows every action except kms:ScheduleKeyDeletion "
        "(Allow with NotAction) to any principal (*); name the principals or restrict them with "
        "aws:PrincipalAccount or kms:CallerAccount"
    ]


def test_not_action_excluding_all_kms_and_mixed_case_star() -> None:
    excluded = {"Effect": "Allow", "Principal": "*", "NotAction": ["kms:*"], "Resource": "*"}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(excluded)}) == []
    shouting = {"Effect": "Allow", "Principal": "*", "Action": "KMS:*"}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(shouting)}, name="k") == [
        "AWS KMS key 'k' policy statement 1 allows KMS:* to any principal (*); name the principals or "
        "restrict them with aws:PrincipalAccount or kms:CallerAccount"
    ]


def test_unknown_principal_reference_passes_but_unknown_action_is_not_judged() -> None:
    reference = {**ROOT, "Principal": {"AWS": UNKNOWN}}
    assert run_resource(POLICY, AWS_KEY, {"policy": {"Statement": [reference]}}, proxy=True) == []
    unknown_action = {**ROOT, "Principal": "*", "Action": UNKNOWN}
    found = run_resource(POLICY, AWS_KEY, {"policy": {"Statement": [unknown_action]}}, proxy=True)
    assert len(found) == 1 and found[0].startswith("could not be judged at preview"), found


def test_statements_are_numbered_from_one_as_in_every_rule() -> None:
    # The open statement is the second of the document, without a Sid: "statement 2", never "#1".
    unnamed = {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:*", "Resource": "*"}
    (message,) = run_resource(POLICY, AWS_KEY, {"policy": doc(ROOT, unnamed)}, name="k")
    assert message.startswith("AWS KMS key 'k' policy statement 2 allows kms:* to any principal (*)")


TAIL = "; name the principals or restrict them with aws:PrincipalAccount or kms:CallerAccount"


@pytest.mark.parametrize(
    ("condition", "why"),
    [
        (
            {"StringNotEquals": {"kms:CallerAccount": "111122223333"}},
            "StringNotEquals kms:CallerAccount is not a positive match",
        ),
        (
            {"StringLike": {"aws:PrincipalOrgID": "*"}},
            "StringLike aws:PrincipalOrgID '*' names no one account or organisation",
        ),
        (
            {"StringEqualsIfExists": {"aws:PrincipalAccount": "111122223333"}},
            "StringEqualsIfExists aws:PrincipalAccount also passes when the key is absent",
        ),
        (
            {"StringEquals": {"kms:CallerAccount": "1111"}},
            "StringEquals kms:CallerAccount '1111' names no one account or organisation",
        ),
    ],
)
def test_conditions_that_pin_no_caller_fail_with_the_reason(condition: object, why: str) -> None:
    # The restricting keys alone used to pass a statement whatever the operator and values.
    statement = {**ROOT, "Sid": "Open", "Principal": {"AWS": "*"}, "Condition": condition}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(statement)}, name="k") == [
        f"AWS KMS key 'k' policy statement 'Open' allows kms:* to any principal (*) without a restricting "
        f"condition ({why}){TAIL}"
    ]


def test_pinning_is_the_trust_rule_s() -> None:
    # GF-IAM-004's keys pin here too: an organisation the caller must come from.
    org = {**ROOT, "Principal": "*", "Condition": {"StringEquals": {"aws:SourceOrgID": "o-a1b2c3d4e5"}}}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(org)}) == []
    # A wildcard account in an ARN is anyone, as in a trust policy.
    every_account = {**ROOT, "Sid": "Roots", "Principal": {"AWS": "arn:aws:iam::*:root"}}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(every_account)}, name="k") == [
        f"AWS KMS key 'k' policy statement 'Roots' allows kms:* to any principal (*){TAIL}"
    ]


@pytest.mark.parametrize(
    ("action", "shown"),
    [
        ("kms:Decrypt", "kms:Decrypt"),
        ("KMS:PutKeyPolicy", "KMS:PutKeyPolicy"),
        ("kms:ScheduleKeyDeletion", "kms:ScheduleKeyDeletion"),
        ("kms:Put*", "kms:Put* (kms:PutKeyPolicy)"),
        ("kms:Create*", "kms:Create* (kms:CreateGrant, kms:CreateKey, kms:CreateAlias and 1 more)"),
        (
            "kms:*Key*",
            "kms:*Key* (kms:GenerateDataKey, kms:GenerateDataKeyWithoutPlaintext, kms:GenerateDataKeyPair "
            "and 19 more)",
        ),
        ("k?s:Re*", "k?s:Re* (kms:ReEncryptFrom, kms:ReEncryptTo, kms:RetireGrant and 2 more)"),
    ],
)
def test_dangerous_kms_actions_to_anyone_fail_without_kms_star(action: str, shown: str) -> None:
    # Without writing kms:* a key policy can still give anyone the key's material or its control.
    statement = {"Sid": "Open", "Effect": "Allow", "Principal": "*", "Action": ["kms:DescribeKey", action]}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(ROOT, statement)}, name="k") == [
        f"AWS KMS key 'k' policy statement 'Open' allows {shown} to any principal (*){TAIL}"
    ]
    assert RULE.enforcement.value == "mandatory"


def test_read_only_kms_actions_to_anyone_and_dangerous_ones_to_named_principals_pass() -> None:
    reads = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": ["kms:Describe*", "kms:Get*", "kms:List*", "kms:Verify"],
    }
    named = {**ROOT, "Action": ["kms:Decrypt", "kms:PutKeyPolicy"]}
    assert run_resource(POLICY, AWS_KEY, {"policy": doc(reads, named)}) == []


def test_allow_with_not_principal_fails() -> None:
    # Allow + NotPrincipal grants to everyone but the named principal, whatever the actions.
    statement = {
        "Sid": "AllButOne",
        "Effect": "Allow",
        "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:role/ops"},
        "Action": "kms:DescribeKey",
        "Resource": "*",
    }
    assert run_resource(
        POLICY, AWS_KEY_POLICY, {"keyId": "k", "policy": doc(ROOT, statement)}, name="kp"
    ) == [
        "AWS KMS key policy 'kp' policy statement 'AllButOne' allows every principal except "
        "arn:aws:iam::111122223333:role/ops (Allow with NotPrincipal); name the principals in Principal "
        "instead"
    ]
    deny = {**statement, "Effect": "Deny", "Action": "kms:*"}
    assert run_resource(POLICY, AWS_KEY_POLICY, {"keyId": "k", "policy": doc(ROOT, deny)}) == []
