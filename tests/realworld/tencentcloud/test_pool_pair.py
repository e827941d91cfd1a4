"""A raw Tencent GPU pool split into spot and on-demand AS groups: compliant as written (prod), each
realistic mistake caught by its rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.policies.registry import default_registry
from tests.project_policy import judged

PROJECT = Path(__file__).parent / "pool_pair"
POLICY_CONFIG: dict[str, object] = {}


def _result(variant: str = "") -> StackResult:
    graph = run_program(PROJECT, "prod", config_overrides={"break": variant} if variant else None)
    return evaluate_stack(graph, list(default_registry()), POLICY_CONFIG)


def _mandatory(result: StackResult) -> list[tuple[str, str]]:
    return [(f.rule_id, f.urn.rsplit("::", 1)[-1]) for f in result.mandatory_violations]


@pytest.mark.parametrize("variant", ["", "image_login"])
def test_compliant_pool_has_no_mandatory_violation(variant: str) -> None:
    assert _mandatory(_result(variant)) == []


@pytest.mark.parametrize(
    ("variant", "found", "words"),
    [
        (
            "no_login_lock",
            [("GF-ACC-002", "gpu-ondemand"), ("GF-ACC-002", "gpu-spot")],
            "CVM sets a random login password",
        ),
        (
            "agent_off",
            # The groups' own AS policies (CPU) need the agent too.
            [
                ("GF-OPS-001", n)
                for n in ("gpu-busy", "gpu-idle", "gpu-ondemand-scale-in", "gpu-ondemand-scale-out")
            ]
            + [("GF-OPS-001", "gpu-spot-scale-in"), ("GF-OPS-001", "gpu-spot-scale-out")],
            "turns the agent off (enhancedMonitorService false)",
        ),
        ("queue_namespace", [("GF-OPS-001", "jobs-waiting")], "scales on namespace QCE/CKAFKA"),
    ],
)
def test_each_mistake_is_caught(variant: str, found: list[tuple[str, str]], words: str) -> None:
    result = _result(variant)
    # What the compliant pool already gets: advice on the trail and on a single region.
    findings = [f for f in judged(result.violations) if f.rule_id not in {"GF-AUD-001", "GF-DR-002"}]
    assert sorted((f.rule_id, f.urn.rsplit("::", 1)[-1]) for f in findings) == found, [
        (f.rule_id, f.message) for f in result.violations
    ]
    assert all(words in f.message for f in findings)
