"""GF-OPS-004: account-wide singletons belong to the account-baseline stack."""

from __future__ import annotations

import json

import pytest

from gpufleet.policies.ops.account_singletons import POLICY, RULE, SETTINGS

from .helpers import UNKNOWN_STRING_VALUE, NotApplicable, provider, res, run_stack

DOCUMENT = "aws:ssm/document:Document"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
BASELINE = "gpufleet:account-baseline"


def prefs(tags: dict[str, str] | None = None, name: str = "SSM-SessionManagerRunShell") -> object:
    props: dict[str, object] = {"name": name, "documentType": "Session", "documentFormat": "JSON"}
    if tags is not None:
        props["tags"] = tags
    return res(DOCUMENT, "session-prefs", props)


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == ("GF-OPS-004", "account-singletons-in-baseline", ("aws",))
    assert RULE.defaults() == {"owner_stack_tag": BASELINE}


def test_session_document_in_a_fleet_stack_is_reported() -> None:
    document = prefs({"team": "ml"})
    assert run_stack(POLICY, [document]) == [
        (
            "'session-prefs' creates the Session Manager preferences document, one per account and region: a "
            "second stack in the account and region, or an account whose console saved Session Manager "
            'preferences, fails with "already exists"; move it to the account-baseline stack (a stack tagged '
            "gpufleet:account-baseline) and keep this stack from creating it",
            document.urn,
        )
    ]


def test_session_document_tagged_as_the_baseline_passes() -> None:
    assert run_stack(POLICY, [prefs({BASELINE: "true"})]) == []


def test_baseline_tag_through_the_provider_default_tags() -> None:
    document = prefs()
    document.provider = provider("aws", {"defaultTags": json.dumps({"tags": {BASELINE: "true"}})})
    assert run_stack(POLICY, [document]) == []


def test_a_false_baseline_tag_does_not_mark_the_baseline() -> None:
    assert len(run_stack(POLICY, [prefs({BASELINE: "false"})])) == 1


def test_other_documents_are_not_singletons() -> None:
    assert run_stack(POLICY, [prefs(name="gpufleet-runbook")]) == []


@pytest.mark.parametrize("token", sorted(SETTINGS))
def test_each_account_setting_is_reported_outside_the_baseline(token: str) -> None:
    setting = res(token, "setting", {})
    what, scope = SETTINGS[token]
    assert run_stack(POLICY, [setting]) == [
        (
            f"'setting' creates {what}, one per {scope}: two stacks that own it overwrite each other, and "
            "destroying either resets it for all; move it to the account-baseline stack (a stack tagged "
            "gpufleet:account-baseline) and keep this stack from creating it",
            setting.urn,
        )
    ]


def test_untaggable_settings_pass_in_a_stack_marked_as_the_baseline() -> None:
    setting = res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default", {"enabled": True})
    marked = res(LOG_GROUP, "baseline-logs", {"tags": {BASELINE: "true"}})
    assert run_stack(POLICY, [setting, marked]) == []
    assert run_stack(POLICY, [setting], stack_tags={BASELINE: "true"}) == []


def test_owner_tag_comes_from_config() -> None:
    config = {"owner_stack_tag": "org:baseline"}
    assert len(run_stack(POLICY, [prefs({BASELINE: "true"})], config)) == 1
    assert run_stack(POLICY, [prefs({"org:baseline": "yes"})], config) == []


def test_unknown_document_name_is_not_judged() -> None:
    document = prefs({"team": "ml"}, name=UNKNOWN_STRING_VALUE)
    assert run_stack(POLICY, [document]) == [
        (
            "could not be judged at preview: the string value at .name can't be known during preview",
            document.urn,
        )
    ]


def test_a_stack_without_singletons_is_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="the stack creates no account-wide singleton"):
        run_stack(POLICY, [res(LOG_GROUP, "logs", {})])
