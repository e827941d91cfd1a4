"""Waivers on the offline path: `evaluate_stack` with the config form and the tag form."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from gpufleet.evaluate import evaluate_stack
from gpufleet.policies.registry import default_registry
from gpufleet.policy_config import PolicyConfigError, load_policy_config
from gpufleet.report import exit_code

from .helpers import TAGS_ON, WAIVE_STOR_001, bucket, no_cmk, policies, stack, urn, waiver


def test_a_config_waiver_matching_by_glob_makes_the_violation_waived_not_mandatory() -> None:
    graph = stack(bucket("legacy-logs"), bucket("data"))
    config = {"GF-STOR-001": {"waivers": [waiver("aws:s3/bucket:Bucket::legacy-*")]}}
    result = evaluate_stack(graph, policies(), config)
    assert [(f.rule_id, f.urn, f.enforcement) for f in result.violations] == [
        ("GF-STOR-001", urn("data"), "mandatory")
    ]
    (waived,) = result.waived
    assert waived.finding.urn == urn("legacy-logs")
    assert waived.finding.enforcement == "mandatory"  # the level it would have had
    assert waived.finding.message == no_cmk("legacy-logs")
    assert (waived.waiver.reason, waived.waiver.owner, waived.waiver.expires) == (
        "legacy logs, migrating",
        "data-team",
        date(2027, 1, 31),
    )
    assert result.to_json()["waived"]["waivers"] == [
        {
            "rule_id": "GF-STOR-001",
            "resource": "aws:s3/bucket:Bucket::legacy-*",
            "reason": "legacy logs, migrating",
            "owner": "data-team",
            "expires": "2027-01-31",
            "source": "policy-config",
            "state": "active",
            "days_left": 61,
            "applied": 1,
            "refused": None,
            "file": "policy-config.json",
        }
    ]


def test_a_waived_violation_alone_passes_the_check() -> None:
    graph = stack(bucket("legacy-logs"))
    waived = evaluate_stack(graph, policies(), {"GF-STOR-001": {"waivers": [waiver(urn("legacy-logs"))]}})
    assert exit_code([waived]) == 0
    assert exit_code([evaluate_stack(graph, policies(), None)]) == 1


def test_a_tag_waiver_on_the_resource() -> None:
    tag = {WAIVE_STOR_001: "scratch data only; owner=ml-team; expires=2027-01-31"}
    result = evaluate_stack(stack(bucket("scratch", tag)), policies(), TAGS_ON)
    assert result.violations == []
    (waived,) = result.waived
    assert waived.waiver.source == f"tag {WAIVE_STOR_001}"
    assert waived.waiver.owner == "ml-team"


def test_an_expired_waiver_stops_applying_and_says_so() -> None:
    config = {"GF-STOR-001": {"waivers": [waiver(urn("legacy-logs"), expires="2026-11-30")]}}
    result = evaluate_stack(stack(bucket("legacy-logs")), policies(), config)
    assert result.waived == []
    assert [(f.rule_id, f.enforcement, f.message) for f in result.violations] == [
        (
            "GF-STOR-001",
            "mandatory",
            no_cmk("legacy-logs")
            + "; waiver not applied, it expired: legacy logs, migrating (owner data-team, "
            "expired 2026-11-30, policy-config)",
        ),
        (
            "GF-WAIVER-001",
            "advisory",
            f"the GF-STOR-001 waiver for '{urn('legacy-logs')}' expired on 2026-11-30 and no longer applies: "
            "legacy logs, migrating (owner data-team, expired 2026-11-30, policy-config)",
        ),
    ]
    assert exit_code([result]) == 1


def test_a_waiver_expiring_within_14_days_applies_and_warns() -> None:
    config = {"GF-STOR-001": {"waivers": [waiver(urn("legacy-logs"), expires="2026-12-10")]}}
    result = evaluate_stack(stack(bucket("legacy-logs")), policies(), config)
    assert len(result.waived) == 1
    assert [(f.rule_id, f.enforcement, f.message) for f in result.violations] == [
        (
            "GF-WAIVER-001",
            "advisory",
            f"the GF-STOR-001 waiver for '{urn('legacy-logs')}' expires in 9 days (2026-12-10): legacy logs, "
            "migrating (owner data-team, until 2026-12-10, expires in 9 days, policy-config)",
        )
    ]


def test_a_waiver_never_turns_an_unknown_value_into_a_pass() -> None:
    tag = {WAIVE_STOR_001: "r; owner=o; expires=2027-01-01"}
    graph = stack(bucket("pending", tag, unknown_sse=True))
    config = {"GF-STOR-001": {"waivers": [waiver(urn("pending"))]}}
    result = evaluate_stack(graph, policies(), config)
    assert result.waived == []
    (finding,) = [f for f in result.violations if f.rule_id == "GF-STOR-001"]
    assert finding.enforcement == "advisory"
    assert "during preview" in finding.message
    assert "could not be judged" in finding.message


def test_a_glob_that_matches_nothing_is_a_finding() -> None:
    config = {"GF-STOR-001": {"waivers": [waiver("aws:s3/bucket:Bucket::legcy-*")]}}
    result = evaluate_stack(stack(bucket("legacy-logs")), policies(), config)
    assert result.waived == []
    assert [(f.rule_id, f.urn, f.message) for f in result.violations if f.rule_id == "GF-WAIVER-001"] == [
        (
            "GF-WAIVER-001",
            "",
            "the GF-STOR-001 waiver for 'aws:s3/bucket:Bucket::legcy-*' (glob on <type>::<name>) matches no "
            "resource of stack dev",
        )
    ]


def test_malformed_and_unknown_tags_are_findings_naming_resource_and_tag() -> None:
    graph = stack(
        bucket("a", {WAIVE_STOR_001: "no owner; expires=2027-01-01"}),
        bucket("b", {"gpufleet:waive:GF-NOPE-999": "r; owner=o; expires=2027-01-01"}),
    )
    result = evaluate_stack(graph, policies(), None)
    assert result.waived == []
    problems = [
        (f.urn, f.resource_type, f.message) for f in result.violations if f.rule_id == "GF-WAIVER-001"
    ]
    assert problems == [
        (
            urn("a"),
            "aws:s3/bucket:Bucket",
            f"tag '{WAIVE_STOR_001}' on {urn('a')}: missing owner; expected \"<reason>; owner=<team>; "
            'expires=YYYY-MM-DD"',
        ),
        (
            urn("b"),
            "aws:s3/bucket:Bucket",
            f"tag gpufleet:waive:GF-NOPE-999 on {urn('b')}: no rule GF-NOPE-999",
        ),
    ]
    # The malformed waiver does not apply: the violation keeps its level and names the tag.
    (violation,) = [f for f in result.violations if f.rule_id == "GF-STOR-001" and f.urn == urn("a")]
    assert violation.enforcement == "mandatory"
    assert f"waiver not applied: tag '{WAIVE_STOR_001}' on {urn('a')}: missing owner" in violation.message


def test_a_tag_waiver_for_a_forbidden_rule_is_refused() -> None:
    tag = {"gpufleet:waive:GF-STOR-003": "public behind a CDN; owner=web; expires=2027-01-01"}
    result = evaluate_stack(stack(bucket("site", tag)), policies("GF-STOR-003"), TAGS_ON)
    assert result.waived == []
    assert [(f.rule_id, f.enforcement) for f in result.violations] == [
        ("GF-STOR-003", "mandatory"),
        ("GF-WAIVER-001", "advisory"),
    ]
    not_waivable = (
        "GF-STOR-003 is not waivable (severity critical: not waivable unless the platform config sets "
        "`waivable: true` for it)"
    )
    assert result.violations[0].message.endswith(f"; waiver refused: {not_waivable}")
    assert result.violations[1].message == (
        f"tag gpufleet:waive:GF-STOR-003 on {urn('site')}: refused, {not_waivable}"
    )


@pytest.mark.parametrize("rule", ["GF-STOR-003", "bucket-public-access-blocked", "GF-ACC-001"])
def test_a_config_waiver_for_a_forbidden_rule_is_refused_at_load(rule: str, tmp_path: Path) -> None:
    path = tmp_path / "policy-config.json"
    entry = {"waivers": [{"resource": "*", "reason": "r", "owner": "o", "expires": "2027-01-01"}]}
    path.write_text(json.dumps({rule: entry}))
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    rule_id = default_registry().get(rule).rule.id if rule.startswith("GF-") else "GF-STOR-003"
    assert caught.value.problems == [
        f"{path}: {rule}.waivers: {rule_id} is not waivable (its `waivable` is false by default for a "
        "critical rule); fix the "
        "resource, or set `waivable: true` for the rule in this file if its owners agree"
    ]


def test_a_rule_can_be_made_unwaivable_and_a_forbidden_one_waivable(tmp_path: Path) -> None:
    path = tmp_path / "policy-config.json"
    path.write_text(
        '{"GF-STOR-001": {"waivable": false, "waivers": [{"resource": "*", "reason": "r", "owner": "o", '
        '"expires": "2027-01-01"}]}, "GF-STOR-003": {"waivable": true, "waivers": [{"resource": "*", '
        '"reason": "r", "owner": "o", "expires": "2027-01-01"}]}}'
    )
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    assert caught.value.problems == [
        f"{path}: GF-STOR-001.waivers: GF-STOR-001 is not waivable (its `waivable` is false); fix the "
        "resource, or set `waivable: true` for the rule in this file if its owners agree"
    ]


def test_a_bad_waiver_in_the_file_names_file_rule_and_field(tmp_path: Path) -> None:
    path = tmp_path / "policy-config.json"
    path.write_text(
        '{"bucket-customer-managed-key": {"waivers": [{"resource": "x", "reason": "r", "expires": "soon"}]}}'
    )
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    assert caught.value.problems == [
        f"{path}: bucket-customer-managed-key.waivers[0].owner: missing or empty; expected a non-empty "
        "string (at most 500 characters)",
        f'{path}: bucket-customer-managed-key.waivers[0].expires: "soon" is not a date; expected YYYY-MM-DD '
        "(the last day it applies)",
    ]


def test_the_project_config_is_valid_and_holds_policies_only() -> None:
    root = Path(__file__).resolve().parents[2]
    config = load_policy_config(root / "policy-config.json", default_registry())
    assert "checkov" not in config


def test_waivers_cannot_be_set_on_the_command_line() -> None:
    from gpufleet.policy_overrides import apply_overrides

    with pytest.raises(PolicyConfigError) as caught:
        apply_overrides(
            {},
            default_registry(),
            set_values=['GF-STOR-001.waivers=[{"resource": "*"}]', "GF-STOR-003.waivable=true"],
        )
    assert caught.value.problems == [
        '--set GF-STOR-001.waivers=[{"resource": "*"}]: waivers is set in the policy config file, where the '
        "change is reviewed, not on the command line (docs/waivers.md)",
        "--set GF-STOR-003.waivable=true: waivable is set in the policy config file, where the change is "
        "reviewed, not on the command line (docs/waivers.md)",
    ]


def test_a_bad_date_in_the_pack_applies_no_waiver_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack under `pulumi preview` has no exit status to give: the violation keeps its level."""
    from pulumi_policy import StackValidationArgs

    from gpufleet.evaluate import stack_policy_resources
    from gpufleet.policies import waivers

    waivers.set_clock(None)
    monkeypatch.setenv("GPUFLEET_TODAY", "someday")
    graph = stack(bucket("legacy-logs"))
    config = {"waivers": [waiver(urn("legacy-logs"))]}
    found: list[tuple[str, str | None]] = []
    (policy,) = policies()
    policy.validate(
        StackValidationArgs(stack_policy_resources(graph), config), lambda m, u=None: found.append((m, u))
    )
    assert found == [
        (
            no_cmk("legacy-logs") + "; waiver not applied: $GPUFLEET_TODAY: 'someday' is not a date; "
            "expected YYYY-MM-DD",
            urn("legacy-logs"),
        )
    ]
