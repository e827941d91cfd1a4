"""A raw pulumi-alicloud GPU pool launching from an ECS launch template with MNS queue scaling: compliant
as written (but for its missing trail, which is advice), and each realistic mistake caught by its rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.alicloud.support import of_rule, result_of

PROJECT = Path(__file__).parent / "launch_template_pool"
# The team's account trail lives in another stack: only the advisory trail rule speaks.
ADVICE = {("GF-AUD-001", "advisory")}


def test_compliant_program_has_only_the_trail_advice() -> None:
    result = result_of(PROJECT)
    assert result.resources >= 20
    assert {(f.rule_id, f.enforcement) for f in result.violations} == ADVICE, [
        (f.rule_id, f.message) for f in result.violations
    ]
    judged = {n["rule_id"] for n in result.not_applicable if not n["urn"]}
    assert "GF-OPS-001" not in judged


VARIANTS = {
    # Both GPU alarms: whether the image runs the agent cannot be told, so neither is passed.
    "agent_missing": ("GF-OPS-001", "busy idle", "whether custom image 'm-uf6search0a10image01'"),
    "queue_elsewhere": (
        "GF-OPS-001",
        "backlog",
        "queue 'other-team-requests', which the stack does not create",
    ),
    "password_inherit": ("GF-ACC-002", "infer-template", "login password inherited from the image"),
    "public_ip": ("GF-ACC-005", "infer-template", "internetMaxBandwidthOut is 5"),
    "disk_plain": ("GF-STOR-008", "infer-template", "unencrypted system disk"),
    "mixed_spot": ("GF-COST-004", "infer-pool", "runs 50% of its capacity on spot"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_caught_by_its_rule(variant: str) -> None:
    rule_id, name, words = VARIANTS[variant]
    result = result_of(PROJECT, variant)
    found = {(f.rule_id, f.enforcement) for f in result.violations} - ADVICE
    assert {r for r, _ in found} == {rule_id}, [(f.rule_id, f.message) for f in result.violations]
    findings = of_rule(result, rule_id)
    assert sorted(f.urn.rsplit("::", 1)[-1] for f in findings) == sorted(name.split())
    for finding in findings:
        assert words in finding.message
