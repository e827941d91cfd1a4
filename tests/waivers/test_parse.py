"""Reading waivers: the config form, the tag form, matching and expiry on a fixed clock."""

from __future__ import annotations

from datetime import date

import pytest

from gpufleet.policies import waivers
from gpufleet.policies.waivers import Waiver, decide, parse_config_waivers, parse_tag, type_and_name

from .helpers import urn

URN = urn("legacy-logs")
MISSING = "missing or empty; expected a non-empty string (at most 500 characters)"


def test_config_waivers_need_resource_reason_owner_and_a_date() -> None:
    value = [
        {"resource": "aws:s3/bucket:Bucket::legacy-*", "reason": "r", "owner": "o", "expires": "2027-01-31"},
        {"resource": " ", "reason": "r", "expires": "31/01/2027", "ticket": "X-1"},
        "not an object",
    ]
    found, problems = parse_config_waivers("GF-STOR-001", value, "pc.json: GF-STOR-001.waivers")
    assert found == [
        Waiver("GF-STOR-001", "aws:s3/bucket:Bucket::legacy-*", "r", "o", date(2027, 1, 31), "policy-config")
    ]
    assert problems == [
        "pc.json: GF-STOR-001.waivers[1].ticket: unknown key; allowed: resource, reason, owner, expires",
        f"pc.json: GF-STOR-001.waivers[1].resource: {MISSING}",
        f"pc.json: GF-STOR-001.waivers[1].owner: {MISSING}",
        'pc.json: GF-STOR-001.waivers[1].expires: "31/01/2027" is not a date; expected YYYY-MM-DD '
        "(the last day it applies)",
        "pc.json: GF-STOR-001.waivers[2]: expected an object with resource, reason, owner, expires",
    ]


def test_a_tag_waiver_reads_reason_owner_and_expiry() -> None:
    waiver, problem = parse_tag(
        "gpufleet:waive:GF-STOR-001", "behind a CDN until the move; owner=web-team; expires=2027-02-28", URN
    )
    assert problem is None
    assert waiver == Waiver(
        "GF-STOR-001",
        URN,
        "behind a CDN until the move",
        "web-team",
        date(2027, 2, 28),
        "tag gpufleet:waive:GF-STOR-001",
    )


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("gpufleet:waive:GF-STOR-1", "r; owner=o; expires=2027-01-01", "'GF-STOR-1' is not a rule id"),
        ("gpufleet:waive:GF-STOR-001", "", "empty or longer than 500 characters; expected"),
        ("gpufleet:waive:GF-STOR-001", "x" * 501, "empty or longer than 500 characters; expected"),
        ("gpufleet:waive:GF-STOR-001", "r; owner=o", "missing expires"),
        ("gpufleet:waive:GF-STOR-001", "; owner=o; expires=2027-01-01", "missing reason"),
        ("gpufleet:waive:GF-STOR-001", "r; team=o; expires=2027-01-01", "'team=o' is not owner=<x>"),
        (
            "gpufleet:waive:GF-STOR-001",
            "r; owner=o; expires=2027-02-30",
            "expires='2027-02-30' is not a date",
        ),
    ],
)
def test_a_malformed_tag_is_a_problem_naming_tag_and_resource(key: str, value: str, problem: str) -> None:
    waiver, found = parse_tag(key, value, URN)
    assert waiver is None
    assert found is not None
    assert found.startswith(f"tag {key!r} on {URN}: ")
    assert problem in found


def test_resource_is_a_urn_or_an_fnmatch_glob_on_type_and_name() -> None:
    assert type_and_name(URN) == "aws:s3/bucket:Bucket::legacy-logs"
    nested = "urn:pulumi:dev::p::gpufleet:storage:Store$aws:s3/bucket:Bucket::ckpt"
    assert type_and_name(nested) == "aws:s3/bucket:Bucket::ckpt"

    def make(resource: str) -> Waiver:
        return Waiver("GF-STOR-001", resource, "r", "o", date(2027, 1, 1), "policy-config")

    assert make(URN).matches(URN)
    assert not make(URN).matches(urn("legacy-logs-2"))
    assert make("aws:s3/bucket:Bucket::legacy-*").matches(URN)
    assert make("*::legacy-logs").matches(URN)
    assert make("aws:s3/*::legacy-?ogs").matches(URN)
    assert not make("aws:s3/bucket:Bucket::Legacy-*").matches(URN)  # case-sensitive
    assert not make("legacy-*").matches(URN)  # the type is part of the pattern
    assert not make("*").matches("")  # a violation of the whole stack is never waived


def test_a_long_resource_is_refused_not_cut() -> None:
    long_glob = "aws:s3/bucket:Bucket::" + "a" * 480 + "*"
    item = {"resource": long_glob, "reason": "r", "owner": "o", "expires": "2027-01-01"}
    found, problems = parse_config_waivers("GF-STOR-001", [item], "w")
    assert found == []
    assert problems == [f"w[0].resource: {MISSING}"]


def test_expiry_on_a_fixed_clock() -> None:
    waiver = Waiver("GF-STOR-001", URN, "r", "o", date(2026, 12, 15), "policy-config")
    assert waiver.state(date(2026, 11, 30)) == "active"  # 15 days left
    assert waiver.state(date(2026, 12, 1)) == "expiring"  # 14 days left: warns
    assert waiver.state(date(2026, 12, 15)) == "expiring"  # its last day still applies
    assert waiver.state(date(2026, 12, 16)) == "expired"
    assert waiver.describe(date(2026, 12, 14)) == (
        "r (owner o, until 2026-12-15, expires in 1 day, policy-config)"
    )


def test_decide_applies_refuses_and_expires(fixed_clock: date) -> None:
    reason = "legacy logs, migrating"
    config = {"waivers": [{"resource": URN, "reason": reason, "owner": "o", "expires": "2027-01-31"}]}
    assert decide("GF-STOR-001", URN, config, {}, fixed_clock).waived
    assert not decide("GF-STOR-001", urn("other"), config, {}, fixed_clock).waived
    refused = decide("GF-STOR-003", URN, config, {}, fixed_clock)
    assert not refused.waived
    assert refused.note == (
        "waiver refused: GF-STOR-003 is not waivable (severity critical: not waivable unless the platform "
        "config sets `waivable: true` for it)"
    )
    assert not decide("GF-IAM-001", URN, config, {}, fixed_clock, critical=True).waived
    assert decide("GF-STOR-003", URN, {**config, "waivable": True}, {}, fixed_clock).waived
    assert not decide("GF-STOR-001", URN, {**config, "waivable": False}, {}, fixed_clock).waived
    old = {"waivers": [{"resource": URN, "reason": reason, "owner": "o", "expires": "2026-11-30"}]}
    expired = decide("GF-STOR-001", URN, old, {}, fixed_clock)
    assert not expired.waived
    assert expired.note == (
        f"waiver not applied, it expired: {reason} (owner o, expired 2026-11-30, policy-config)"
    )


def test_the_clock_can_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    waivers.set_clock(None)
    monkeypatch.setenv("GPUFLEET_TODAY", "2030-01-02")
    assert waivers.today() == date(2030, 1, 2)
    monkeypatch.setenv("GPUFLEET_TODAY", "tomorrow")
    with pytest.raises(ValueError, match=r"\$GPUFLEET_TODAY: 'tomorrow' is not a date; expected YYYY-MM-DD"):
        waivers.today()


def test_every_policy_schema_accepts_waivers() -> None:
    from gpufleet.policies.registry import default_registry

    for policy in default_registry():
        assert policy.config_schema is not None
        properties = policy.config_schema.properties
        assert properties["waivers"]["items"]["required"] == ["resource", "reason", "owner", "expires"]
        assert properties["waivable"]["type"] == "boolean"
