"""A raw-SDK program on an instance type the price catalogue does not list (`g7e.48xlarge`) and a pool in
a region it does not price: every security rule still reports, the cost line names both pools as
unpriced, and the exit status comes from the other rules alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import invoke

from .harness import outcome

PROGRAM = Path(__file__).resolve().parent / "unpriced_type"
# No Session Manager preferences document; the edge pool runs in one region of a production stack.
ALWAYS = {"GF-ACC-006", "GF-DR-002"}
UNPRICED = [
    "blackwell: aws g7e.48xlarge is not in the catalogue",
    "edge: the catalogue has no aws g6e.xlarge price in 'il-central-1'",
]

VARIANTS: dict[str, tuple[str, str, str]] = {
    "key-pair": ("GF-ACC-002", "blackwell", "has SSH key pair 'ops' (keyName)"),
    "public-ip": ("GF-ACC-005", "blackwell", "gets a public IP (associatePublicIpAddress is true)"),
    "imds-optional": ("GF-ACC-004", "blackwell", "allows IMDSv1 (httpTokens is optional)"),
    "root-unencrypted": ("GF-STOR-008", "blackwell", "has an unencrypted root volume"),
    "ssh-world": ("GF-ACC-001", "serving", "SSH (TCP 22) ingress from 0.0.0.0/0 (ingress rule 1)"),
}


def test_compliant_program_passes_with_unpriced_pools_on_the_cost_line() -> None:
    run = invoke("check", str(PROGRAM), "--stack", "prod", "--format", "json")
    assert run.exit_code == 0, run.stdout + run.stderr
    (stack,) = json.loads(run.stdout)["stacks"]
    assert {v["rule_id"] for v in stack["violations"]} == ALWAYS
    assert {v["enforcement"] for v in stack["violations"]} == {"advisory"}
    assert stack["cost"]["unpriced"] == UNPRICED
    assert stack["cost"]["monthly_estimate"] == 0.0


def test_text_report_warns_on_the_cost_line() -> None:
    run = invoke("check", str(PROGRAM), "--stack", "prod", "--format", "text")
    assert run.exit_code == 0
    cost_line = next(line for line in run.stdout.splitlines() if line.startswith("  cost: "))
    assert cost_line.endswith("; warning: unpriced, left out of the estimate: " + "; ".join(UNPRICED))


def test_cost_command_lists_the_unpriced_pools() -> None:
    run = invoke("cost", str(PROGRAM), "--stack", "prod", "--format", "json")
    assert run.exit_code == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["unpriced"] == UNPRICED
    assert report["pools"] == []


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_security_break_is_still_reported(variant: str) -> None:
    rule_id, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant, "prod")
    assert found.ids() == {rule_id} | ALWAYS, found.summary()
    (violation,) = found.of(rule_id)
    assert violation.enforcement == "mandatory"
    assert violation.urn.endswith(f"::{resource}") and words in violation.message
