"""AWS IAM and KMS key policies written with the raw pulumi-aws SDK (`aws_iam/`): a compliant
program, one broken meaning per variant, and preview-time unknowns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.graph import UNKNOWN_STRING, ResourceGraph
from tests.realworld.aws.harness import as_preview, judge, outcome, run_variant, with_input

PROGRAM = Path(__file__).resolve().parent / "aws_iam"
# The audit trail lives in the organisation's account stack, not here: advisory in every variant.
ALWAYS = {"GF-AUD-001"}
ESCALATION = "workload policies must not be able to raise their own privileges"

# variant -> (rule ids, resource named, words in the message)
VARIANTS: dict[str, tuple[set[str], str, str]] = {
    "admin-managed-arns": ({"GF-IAM-003"}, "trainer-role", "broad managed policy 'AdministratorAccess'"),
    "admin-attachment-govcloud": ({"GF-IAM-003"}, "ci-admin", "broad managed policy 'AdministratorAccess'"),
    "admin-group-china": ({"GF-IAM-003"}, "operators-admin", "broad managed policy 'AdministratorAccess'"),
    "poweruser-users": ({"GF-IAM-003"}, "power", "broad managed policy 'PowerUserAccess'"),
    "s3-full-access": ({"GF-IAM-003"}, "trainer-role", "broad managed policy 'AmazonS3FullAccess'"),
    "sysadmin-job-function": (
        {"GF-IAM-003"},
        "operators-sysadmin",
        "broad managed policy 'SystemAdministrator'",
    ),
    "iamfull-exclusive": ({"GF-IAM-003"}, "org-reader-only", "broad managed policy 'IAMFullAccess'"),
    # ec2:* on '*' is also every instance write on every resource.
    "inline-wildcard": (
        {"GF-IAM-001", "GF-IAM-002"},
        "trainer-role",
        "inline policy 'describe' statement 1 allows wildcard action 'ec2:*'",
    ),
    "mixed-case-wildcard": ({"GF-IAM-001"}, "trainer-data", "statement 'Data' allows wildcard action 'S3:*'"),
    "unscoped-write": (
        {"GF-IAM-002"},
        "trainer-data",
        "allows s3:PutObject, s3:AbortMultipartUpload on Resource '*'",
    ),
    "not-resource": ({"GF-IAM-002"}, "trainer-data", "on NotResource (every other resource)"),
    "conditioned-write": (
        {"GF-IAM-002"},
        "trainer-data",
        "allows s3:PutObject, s3:AbortMultipartUpload on Resource '*'",
    ),
    "group-unscoped-delete": ({"GF-IAM-002"}, "operators-observe", "allows s3:DeleteObject on Resource '*'"),
    "star-everything": ({"GF-IAM-001", "GF-IAM-002", "GF-IAM-006"}, "org-read", "allows wildcard action '*'"),
    # NotAction iam:* still grants sts:AssumeRole on '*' (an escalation) and every write elsewhere.
    "not-action": (
        {"GF-IAM-001", "GF-IAM-002", "GF-IAM-006"},
        "org-read",
        "allows every action except 'iam:*', 'organizations:*' (Allow with NotAction)",
    ),
    "passrole-any": ({"GF-IAM-002", "GF-IAM-006"}, "ci-deploy", "iam:PassRole on '*'; " + ESCALATION),
    "pass-prefix-any": ({"GF-IAM-002", "GF-IAM-006"}, "ci-deploy", "iam:PassRole on '*'; " + ESCALATION),
    "passrole-account-roles": (
        {"GF-IAM-002", "GF-IAM-006"},
        "ci-deploy",
        "iam:PassRole on 'arn:aws:iam::123456789012:role/*'",
    ),
    "passrole-role-glob": (
        {"GF-IAM-002", "GF-IAM-006"},
        "ci-deploy",
        "iam:PassRole on 'arn:aws:iam::123456789012:role*'; " + ESCALATION,
    ),
    "launch-account-wide": (
        {"GF-IAM-002"},
        "ci-deploy",
        "statement 'Launch' allows ec2:RunInstances on Resource 'arn:aws:ec2:us-west-2:123456789012:*'",
    ),
    "objects-any-bucket": (
        {"GF-IAM-002"},
        "trainer-data",
        "statement 'Data' allows s3:PutObject, s3:AbortMultipartUpload on Resource 'arn:aws:s3:::*/*'",
    ),
    "user-attach-policy": (
        {"GF-IAM-006"},
        "alice-self",
        "privilege-escalation actions iam:AttachRolePolicy;",
    ),
    "user-iam-star": ({"GF-IAM-001", "GF-IAM-006"}, "alice-self", "allows wildcard action 'iam:*'"),
    "trust-any": (
        {"GF-IAM-004"},
        "org-reader",
        "trusts any principal (AWS: '*') without a restricting condition",
    ),
    "trust-star-string": (
        {"GF-IAM-004"},
        "org-reader",
        "trusts any principal ('*') without a restricting condition",
    ),
    "trust-external-id-only": (
        {"GF-IAM-004"},
        "org-reader",
        "without a restricting condition (StringEquals sts:ExternalId is not a secret and pins no caller)",
    ),
    "trust-org-like-star": (
        {"GF-IAM-004"},
        "org-reader",
        "(StringLike aws:PrincipalOrgID '*' names no one account or organisation)",
    ),
    "trust-org-not-equals": (
        {"GF-IAM-004"},
        "org-reader",
        "(StringNotEquals aws:PrincipalOrgID is not a positive match)",
    ),
    "trust-org-if-exists": (
        {"GF-IAM-004"},
        "org-reader",
        "(StringEqualsIfExists aws:PrincipalOrgID also passes when the key is absent)",
    ),
    "trust-source-arn-star": (
        {"GF-IAM-004"},
        "org-reader",
        "(ArnLike aws:SourceArn '*' names no one account or organisation)",
    ),
    "ci-any-repository": (
        {"GF-IAM-004"},
        "ci",
        "trusts GitHub Actions tokens without pinning the repository (StringLike "
        "token.actions.githubusercontent.com:sub 'repo:*' names no repository owner)",
    ),
    "kms-wildcard": ({"GF-KMS-002"}, "training-key", "statement 'Anyone' allows kms:* to any principal (*)"),
    "kms-not-action": (
        {"GF-KMS-002"},
        "training-key",
        "allows every action except kms:ScheduleKeyDeletion (Allow with NotAction) to any principal (*)",
    ),
    "access-key": ({"GF-IAM-005"}, "alice-key", "creates a long-lived access key for 'alice-"),
}


def test_compliant_program_has_no_findings_but_the_account_trail_advice() -> None:
    found = outcome(PROGRAM)
    assert found.mandatory() == [], found.summary()
    assert [(v.rule_id, v.enforcement) for v in found.violations] == [("GF-AUD-001", "advisory")]


def test_program_uses_the_documented_sdk_shapes() -> None:
    graph = run_variant(PROGRAM)
    (role,) = [r for r in graph.of_type("aws:iam/role:Role") if r.name == "trainer-role"]
    assert role.inputs["inlinePolicies"][0]["name"] == "describe"
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {
        "Service": "ec2.amazonaws.com"
    }
    (reader,) = [r for r in graph.of_type("aws:iam/role:Role") if r.name == "org-reader"]
    assert isinstance(reader.inputs["assumeRolePolicy"], dict)
    (component,) = graph.of_type("mlplatform:iam:TrainerIdentity")
    assert role.parent == component.urn
    assert graph.of_type("aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == rule_ids | ALWAYS, found.summary()
    for rule_id in rule_ids:
        assert all(
            v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in found.of(rule_id)
        )
    assert any(words in v.message for rule_id in rule_ids for v in found.of(rule_id)), found.summary()


def _mandatory(graph: ResourceGraph) -> list[str]:
    return [f"{v.rule_id} {v.message}" for v in judge(graph).mandatory()]


def _document(graph: ResourceGraph, name: str, key: str = "policy") -> dict[str, Any]:
    (resource,) = [r for r in graph.resources if r.name == name and key in r.inputs]
    value = resource.inputs[key]
    return json.loads(value) if isinstance(value, str) else dict(value)


def test_unknown_references_inside_documents_do_not_fail_a_compliant_program() -> None:
    graph = run_variant(PROGRAM)
    data = _document(graph, "trainer-data")
    data["Statement"][1]["Resource"] = UNKNOWN_STRING  # the key ARN of a key created in the same program
    graph = with_input(graph, "trainer-data", "aws:iam/rolePolicy:RolePolicy", "policy", data)
    key = _document(graph, "training-key")
    key["Statement"][0]["Principal"] = {"AWS": UNKNOWN_STRING}
    graph = with_input(graph, "training-key", "aws:kms/key:Key", "policy", key)
    trust = _document(graph, "ci", "assumeRolePolicy")
    trust["Statement"][0]["Principal"] = {"Federated": UNKNOWN_STRING}
    graph = with_input(graph, "ci", "aws:iam/role:Role", "assumeRolePolicy", trust)
    exclusive = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
    graph = with_input(graph, "org-reader-only", exclusive, "policyArns", [UNKNOWN_STRING])
    assert _mandatory(graph) == []


def test_unknown_decisive_settings_are_not_judged_rather_than_passed() -> None:
    graph = run_variant(PROGRAM)
    data = _document(graph, "trainer-data")
    data["Statement"][0]["Action"] = UNKNOWN_STRING
    graph = with_input(graph, "trainer-data", "aws:iam/rolePolicy:RolePolicy", "policy", data)
    key = _document(graph, "training-key")
    key["Statement"][1]["Action"] = [UNKNOWN_STRING]
    graph = with_input(graph, "training-key", "aws:kms/key:Key", "policy", key)
    result = judge(graph)
    assert result.mandatory() == []
    # The engine reports what it cannot judge at preview as advisory, as `pulumi preview` does.
    found = [v for v in result.violations if v.rule_id != "GF-AUD-001"]
    assert {(v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in found} == {
        ("GF-IAM-001", "trainer-data"),
        ("GF-IAM-002", "trainer-data"),
        ("GF-IAM-006", "trainer-data"),
        ("GF-KMS-002", "training-key"),
    }
    assert all("could not be judged at preview" in v.message for v in found), [v.message for v in found]


def test_first_preview_cannot_judge_documents_built_from_new_arns_and_passes_the_rest() -> None:
    result = judge(as_preview(run_variant(PROGRAM)))
    assert result.mandatory() == []
    found = [v for v in result.violations if v.rule_id != "GF-AUD-001"]
    # Only the documents built with apply from an ARN of this program are unknown as a whole.
    assert {v.urn.rsplit("::", 1)[-1] for v in found} == {"trainer-data", "ci-deploy", "ci"}
    assert all("could not be judged at preview" in v.message for v in found)


def test_unknown_access_key_owner_still_fails() -> None:
    graph = with_input(
        run_variant(PROGRAM, "access-key"), "alice-key", "aws:iam/accessKey:AccessKey", "user", UNKNOWN_STRING
    )
    (finding,) = judge(graph).mandatory()
    assert finding.message == (
        "IAM access key 'alice-key' creates a long-lived access key; use a role with temporary credentials "
        "instead"
    )
