"""A standalone GPU `aws.ec2.Instance` wrapped in the team's own component, with a separate EBS
volume and an idle-stop alarm, compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "gpu_instance"
# The program has no Session Manager preferences document: an advisory finding in every variant.
ALWAYS = {"GF-ACC-006"}

VARIANTS: dict[str, tuple[set[str], str, str]] = {
    # An always-on p5 also outgrows the dev budget: its committed floor alone is over the limit.
    "p5-in-dev": ({"GF-COST-002", "GF-COST-003", "GF-COST-007"}, "alice-vm", "uses p5.48xlarge (H100)"),
    "key-pair": ({"GF-ACC-002"}, "alice-vm", "has SSH key pair 'researcher'"),
    "public-ip": ({"GF-ACC-005"}, "alice-vm", "associatePublicIpAddress is true"),
    "eip": ({"GF-ACC-005"}, "alice-ip", "gives EC2 instance 'alice-vm' (g6.xlarge) a public IP"),
    "on-demand": ({"GF-COST-004"}, "alice-vm", "runs 0% of its capacity on spot"),
    "imds-default": ({"GF-ACC-004"}, "alice-vm", "httpTokens is unset (optional)"),
    "root-unencrypted": ({"GF-STOR-008"}, "alice-vm", "unencrypted root volume"),
    "volume-unencrypted": ({"GF-STOR-008"}, "alice-datasets", "has an unencrypted volume"),
    "io1": ({"GF-COST-009"}, "alice-vm", "legacy volume type io1"),
    "volume-gp2": ({"GF-COST-009"}, "alice-datasets", "legacy volume type gp2"),
    "no-idle-stop": ({"GF-COST-005"}, "alice-vm", "runs around the clock"),
    "ssh-world": ({"GF-ACC-001"}, "workstation", "SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 1)"),
    "no-ssm": ({"GF-ACC-003"}, "alice-vm", "does not grant Session Manager access"),
}


def test_compliant_program_has_only_the_session_preferences_advice() -> None:
    found = outcome(PROGRAM)
    assert found.mandatory() == []
    assert [(v.rule_id, v.enforcement) for v in found.violations] == [("GF-ACC-006", "advisory")]
    assert "defines no Session Manager preferences document" in found.violations[0].message


def test_instance_is_registered_inside_the_component() -> None:
    graph = run_variant(PROGRAM)
    (instance,) = graph.of_type("aws:ec2/instance:Instance")
    (component,) = graph.of_type("research:index:Workstation")
    assert instance.parent == component.urn
    assert instance.inputs["instanceType"] == "g6.xlarge"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == rule_ids | ALWAYS, found.summary()
    matching = [v for rule_id in rule_ids for v in found.of(rule_id) if words in v.message]
    assert matching, found.summary()
    assert any(v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in matching)


def test_preview_with_unknown_profile_subnet_and_instance_ids_stays_compliant() -> None:
    # The instance profile name, subnet id and the alarm's InstanceId are all unknown at preview.
    preview = judge(as_preview(run_variant(PROGRAM)))
    assert preview.mandatory() == []
    assert preview.ids() == ALWAYS
