"""What the platform's policy config lets a waiver do, offline: tags off by default, critical rules not
waivable, a horizon, no match-everything globs, a reason that says something, owners from a list. The
clock is fixed at 2026-12-01 (conftest)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import Resource
from gpufleet.policies.registry import default_registry
from gpufleet.policies.waivers import broad_glob, parse_tag, vague_reason
from gpufleet.policy_config import PolicyConfigError, load_policy_config
from gpufleet.report import exit_code

from .helpers import TAGS_ON, WAIVE_STOR_001, bucket, no_cmk, policies, stack, urn, waiver

TAGS_OFF = (
    "tag waivers are off (`waivers.allow_tags` is not true in policy-config.json); ask the platform team "
    "for a waiver there"
)
CRITICAL_STOR_003 = (
    "GF-STOR-003 is not waivable (severity critical: not waivable unless the platform config sets "
    "`waivable: true` for it)"
)


def _waiver_findings(result: Any) -> list[tuple[str, str]]:
    return [(f.urn, f.message) for f in result.violations if f.rule_id == "GF-WAIVER-001"]


def _rule(result: Any, rule_id: str = "GF-STOR-001") -> list[tuple[str, str, str]]:
    return [(f.urn, f.enforcement, f.message) for f in result.violations if f.rule_id == rule_id]


# --- 1. tags are off unless the platform allows them ------------------------------------------------


def test_a_tag_waives_nothing_by_default_and_is_reported() -> None:
    tag = {WAIVE_STOR_001: "scratch data, rebuilt nightly; owner=ml-team; expires=2027-01-31"}
    result = evaluate_stack(stack(bucket("scratch", tag)), policies(), None)
    assert result.waived == []
    assert exit_code([result]) == 1
    assert _rule(result) == [
        (
            urn("scratch"),
            "mandatory",
            f"{no_cmk('scratch')}; waiver refused: {TAGS_OFF} (tag {WAIVE_STOR_001})",
        )
    ]
    assert _waiver_findings(result) == [
        (urn("scratch"), f"tag {WAIVE_STOR_001} on {urn('scratch')}: refused, {TAGS_OFF}")
    ]
    (row,) = result.to_json()["waived"]["waivers"]
    assert (row["source"], row["applied"], row["refused"], row["file"]) == (
        f"tag {WAIVE_STOR_001}",
        0,
        TAGS_OFF,
        None,
    )


def test_allow_tags_in_the_platform_config_lets_a_tag_waive() -> None:
    tag = {WAIVE_STOR_001: "scratch data, rebuilt nightly; owner=ml-team; expires=2027-01-31"}
    result = evaluate_stack(stack(bucket("scratch", tag)), policies(), TAGS_ON)
    assert [w.finding.urn for w in result.waived] == [urn("scratch")]
    assert result.violations == []
    assert exit_code([result]) == 0


def test_a_provider_default_tag_never_waives_even_with_tags_allowed() -> None:
    provider_urn = "urn:pulumi:dev::waivers::pulumi:providers:aws::tagged"
    default_tags = {"tags": {WAIVE_STOR_001: "every bucket, for now; owner=ml-team; expires=2027-01-31"}}
    provider = Resource(
        urn=provider_urn,
        type="pulumi:providers:aws",
        name="tagged",
        custom=True,
        inputs={"region": "us-east-1", "defaultTags": json.dumps(default_tags)},
    )
    one = dataclasses.replace(bucket("one"), provider=f"{provider_urn}::id-1")
    result = evaluate_stack(stack(provider, one), policies(), TAGS_ON)
    assert result.waived == []
    why = (
        "a provider default tag lands on every resource of the provider and never waives; tag the "
        "resource itself"
    )
    assert _rule(result) == [
        (
            urn("one"),
            "mandatory",
            f"{no_cmk('one')}; waiver refused: {why} (provider default tag {WAIVE_STOR_001})",
        )
    ]
    assert _waiver_findings(result) == [
        (urn("one"), f"provider default tag {WAIVE_STOR_001} on {urn('one')}: refused, {why}")
    ]


# --- 2. critical rules are not waivable by default --------------------------------------------------


def test_a_tag_waiver_for_a_critical_rule_is_refused() -> None:
    tag = {"gpufleet:waive:GF-STOR-003": "public behind a CDN; owner=web; expires=2027-01-01"}
    result = evaluate_stack(stack(bucket("site", tag)), policies("GF-STOR-003"), TAGS_ON)
    assert result.waived == []
    assert [(e, m.rsplit("; ", 1)[-1]) for _, e, m in _rule(result, "GF-STOR-003")] == [
        ("mandatory", f"waiver refused: {CRITICAL_STOR_003}")
    ]


def test_every_critical_rule_refuses_a_config_waiver_unless_the_file_opens_it(tmp_path: Path) -> None:
    critical = sorted(
        p.rule.id for p in default_registry() if p.severity is not None and p.severity.value == "critical"
    )
    assert {"GF-IAM-001", "GF-STOR-003", "GF-ACC-001"} <= set(critical)
    path = tmp_path / "policy-config.json"
    entry = {"waivers": [waiver("aws:s3/bucket:Bucket::site")]}
    path.write_text(json.dumps(dict.fromkeys(critical, entry)))
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    assert caught.value.problems == [
        f"{path}: {rule_id}.waivers: {rule_id} is not waivable (its `waivable` is false by default for a "
        "critical rule); fix the resource, or set `waivable: true` for the rule in this file if its owners "
        "agree"
        for rule_id in critical
    ]
    opened = {"GF-STOR-003": {"waivable": True, "waivers": [waiver(urn("site"))]}}
    result = evaluate_stack(stack(bucket("site")), policies("GF-STOR-003"), opened)
    assert [w.finding.rule_id for w in result.waived] == ["GF-STOR-003"]


# --- 3. the horizon ------------------------------------------------------------------------------


def test_an_expiry_beyond_90_days_is_refused_and_the_finding_says_why() -> None:
    config = {"GF-STOR-001": {"waivers": [waiver(urn("old"), expires="9999-12-31")]}}
    result = evaluate_stack(stack(bucket("old")), policies(), config)
    assert result.waived == []
    why = (
        "expires 9999-12-31, 2912108 days after 2026-12-01; at most 90 days ahead (`waivers.max_days` in "
        "policy-config.json)"
    )
    assert _rule(result) == [
        (urn("old"), "mandatory", f"{no_cmk('old')}; waiver refused: {why} (policy-config)")
    ]
    assert _waiver_findings(result) == [
        (urn("old"), f"the GF-STOR-001 waiver for '{urn('old')}' in policy-config.json is refused: {why}")
    ]


@pytest.mark.parametrize(
    ("max_days", "expires", "applies"),
    [
        (None, "2027-03-01", True),  # 90 days ahead: the last day allowed
        (None, "2027-03-02", False),  # 91
        (365, "2027-12-01", True),
        (365, "2027-12-02", False),
        (30, "2026-12-31", True),
        (30, "2027-01-01", False),
    ],
)
def test_the_horizon_is_configurable(max_days: int | None, expires: str, applies: bool) -> None:
    settings = {} if max_days is None else {"max_days": max_days}
    config = {"waivers": settings, "GF-STOR-001": {"waivers": [waiver(urn("old"), expires=expires)]}}
    result = evaluate_stack(stack(bucket("old")), policies(), config)
    assert bool(result.waived) is applies


def test_a_tag_without_a_readable_date_is_refused() -> None:
    for value in ("legacy data bucket; owner=ops", "legacy data bucket; owner=ops; expires=someday"):
        result = evaluate_stack(stack(bucket("b", {WAIVE_STOR_001: value})), policies(), TAGS_ON)
        assert result.waived == []
        assert [e for _, e, _ in _rule(result)] == ["mandatory"]


# --- 4. globs, rule wildcards, reasons, duplicate keys --------------------------------------------


@pytest.mark.parametrize(
    "pattern", ["*", "**", "*::*", "aws:*::*", "aws:s3/*::*", "*:*::?*", "aws:*::[a-z]*"]
)
def test_a_match_everything_glob_is_refused(pattern: str) -> None:
    config = {"GF-STOR-001": {"waivers": [waiver(pattern)]}}
    result = evaluate_stack(stack(bucket("data")), policies(), config)
    assert result.waived == []
    why = broad_glob(pattern)
    assert why is not None
    assert _waiver_findings(result) == [
        (
            "",
            f"the GF-STOR-001 waiver for {pattern!r} in policy-config.json is refused: "
            f"the resource glob {why}",
        )
    ]
    assert _rule(result)[0][1:] == (
        "mandatory",
        f"{no_cmk('data')}; waiver refused: the resource glob {why} (policy-config)",
    )


def test_the_glob_messages() -> None:
    assert broad_glob("*") == (
        "'*' has no `::` between type and name, and `*` crosses `::`: it matches every resource; write "
        "<type token>::<name glob>"
    )
    assert broad_glob("aws:*::*") == (
        "'aws:*::*' matches every resource of more than one type; name one type token "
        "(aws:s3/bucket:Bucket::*) or the resources (<type>::legacy-*)"
    )


@pytest.mark.parametrize(
    "pattern", ["aws:s3/bucket:Bucket::*", "aws:s3/bucket:Bucket::legacy-*", "*::legacy-logs", urn("data")]
)
def test_one_type_or_named_resources_are_not_too_broad(pattern: str) -> None:
    assert broad_glob(pattern) is None


def test_a_wildcard_rule_is_refused_in_a_tag_and_in_the_file(tmp_path: Path) -> None:
    waiver_found, problem = parse_tag(
        "gpufleet:waive:GF-*", "all of them; owner=o; expires=2027-01-01", urn("a")
    )
    assert waiver_found is None
    assert problem == (
        f"tag 'gpufleet:waive:GF-*' on {urn('a')}: 'GF-*' is a wildcard; a waiver names one rule id "
        "(GF-<FAMILY>-NNN)"
    )
    path = tmp_path / "policy-config.json"
    path.write_text(json.dumps({"GF-STOR-*": {"waivers": [waiver("aws:s3/bucket:Bucket::a")]}}))
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    (problem,) = caught.value.problems
    assert problem.startswith(f"{path}: GF-STOR-*: no such policy or rule id; ")


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("x", "the reason 'x' is shorter than 10 characters; say why"),
        ("temporary", "the reason 'temporary' is shorter than 10 characters; say why"),
        ("aaaaaaaaaaaa", "the reason 'aaaaaaaaaaaa' is one word repeated; say why"),
        ("test test test", "the reason 'test test test' is one word repeated; say why"),
        ("WIP, wip; wip!", "the reason 'WIP, wip; wip!' is one word repeated; say why"),
    ],
)
def test_a_reason_that_says_nothing_is_refused(reason: str, why: str) -> None:
    assert vague_reason(reason) == why
    config = {"GF-STOR-001": {"waivers": [waiver(urn("b"), reason=reason)]}}
    result = evaluate_stack(stack(bucket("b")), policies(), config)
    assert result.waived == []
    assert _waiver_findings(result) == [
        (urn("b"), f"the GF-STOR-001 waiver for '{urn('b')}' in policy-config.json is refused: {why}")
    ]


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("scratch data only; owner=ml-team; expires=2026-12-20; expires=2099-12-31", "expires"),
        ("scratch data only; owner=ml-team; owner=root; expires=2026-12-20", "owner"),
    ],
)
def test_a_key_given_twice_makes_the_tag_unreadable(value: str, key: str) -> None:
    result = evaluate_stack(stack(bucket("b", {WAIVE_STOR_001: value})), policies(), TAGS_ON)
    assert result.waived == []
    problem = (
        f"tag '{WAIVE_STOR_001}' on {urn('b')}: {key}= is given twice; a waiver says each of owner= and "
        "expires= once (unreadable, not applied)"
    )
    assert _waiver_findings(result) == [(urn("b"), problem)]
    assert _rule(result) == [(urn("b"), "mandatory", f"{no_cmk('b')}; waiver not applied: {problem}")]


def test_a_key_given_twice_in_the_json_file_is_exit_2_material(tmp_path: Path) -> None:
    path = tmp_path / "policy-config.json"
    path.write_text(
        '{"GF-STOR-001": {"waivers": [{"resource": "aws:s3/bucket:Bucket::b", "reason": "legacy logs, '
        'migrating", "owner": "data-team", "expires": "2026-12-20", "expires": "2099-12-31"}]}}'
    )
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    assert caught.value.problems == [
        f"{path}: the key 'expires' is given twice in one object; a reader would keep only one of them: "
        "give it once; expected an object of policy name -> config"
    ]


# --- 5. owners ---------------------------------------------------------------------------------------


def test_owners_come_from_the_platform_list_when_it_has_one() -> None:
    config = {
        "waivers": {"owners": ["platform", "data-team"]},
        "GF-STOR-001": {"waivers": [waiver(urn("a")), waiver(urn("b"), owner="someone")]},
    }
    result = evaluate_stack(stack(bucket("a"), bucket("b")), policies(), config)
    assert [w.finding.urn for w in result.waived] == [urn("a")]
    why = "owner 'someone' is not one of `waivers.owners` in policy-config.json (platform, data-team)"
    assert _waiver_findings(result) == [
        (urn("b"), f"the GF-STOR-001 waiver for '{urn('b')}' in policy-config.json is refused: {why}")
    ]
    # Without the list, any owner.
    config.pop("waivers")
    assert len(evaluate_stack(stack(bucket("a"), bucket("b")), policies(), config).waived) == 2


# --- the settings themselves ---------------------------------------------------------------------


def test_bad_settings_name_the_file_the_field_and_the_values_allowed(tmp_path: Path) -> None:
    path = tmp_path / "policy-config.json"
    path.write_text(json.dumps({"waivers": {"allow_tags": "yes", "max_days": 0, "owners": [], "ttl": 3}}))
    with pytest.raises(PolicyConfigError) as caught:
        load_policy_config(path, default_registry())
    assert caught.value.problems == [
        f"{path}: waivers.ttl: unknown key; allowed keys: allow_tags, max_days, owners",
        f'{path}: waivers.allow_tags: "yes" is not allowed; expected true or false',
        f"{path}: waivers.max_days: 0 is not allowed; expected an integer from 1 to 3650 (days; default 90)",
        f"{path}: waivers.owners: [] is not allowed; expected a non-empty array of non-empty strings (the "
        "owners a waiver may name), or no key for any owner",
    ]
