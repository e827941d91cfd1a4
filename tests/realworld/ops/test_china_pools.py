"""Alibaba Cloud ESS and Tencent Cloud AS GPU pools written with the raw SDKs: each scales as written,
and each operability mistake on these clouds is caught by its rule on the resource it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import result_of, summary

HERE = Path(__file__).resolve().parent
ALICLOUD = HERE / "alicloud_pool"
TENCENT = HERE / "tencent_pool"
AWS_ONLY = {"GF-OPS-002", "GF-OPS-004"}

# (program, variant) -> the findings, each (rule id, enforcement, resource), and words each contains
VARIANTS: dict[tuple[str, str], tuple[list[tuple[str, str, str]], str]] = {
    ("alicloud", "step-scale-in"): (
        [("GF-OPS-003", "mandatory", "gpu-scale-in")],
        "ESS step scaling rule 'gpu-scale-in' scales in by 1 and is fired by alarm 'gpu-idle'",
    ),
    ("alicloud", "short-cooldown"): (
        [("GF-OPS-003", "mandatory", "gpu-scale-in")],
        "ESS simple scaling rule 'gpu-scale-in' scales in with a cooldown of 60 s",
    ),
    ("alicloud", "custom-image"): (
        [("GF-OPS-001", "advisory", "gpu-busy"), ("GF-OPS-001", "advisory", "gpu-idle")],
        "could not be judged: ESS alarm '{name}' scales on GpuUtilizationAgent, read by the CloudMonitor "
        "agent; whether custom image 'm-bp1gpuvisionimage' of 'gpu-pool-config' runs the agent cannot be "
        "told",
    ),
    ("alicloud", "custom-metric"): (
        [("GF-OPS-001", "mandatory", "gpu-busy")],
        "ESS alarm 'gpu-busy' scales on custom metric PendingJobs, which nothing in the stack may upload",
    ),
    ("alicloud", "byok-disks"): (
        [("GF-OPS-005", "advisory", "gpu-pool-config")],
        "ESS scaling configuration 'gpu-pool-config' encrypts with key 'disk-key', pending import in this "
        "deployment ('disk-key': origin EXTERNAL: its material is imported outside Pulumi)",
    ),
    ("tencentcloud", "monitor-off"): (
        [
            ("GF-OPS-001", "mandatory", "gpu-scale-in"),
            ("GF-OPS-001", "mandatory", "gpu-scale-out"),
            ("GF-OPS-001", "mandatory", "gpu-busy"),
            ("GF-OPS-001", "mandatory", "gpu-idle"),
        ],
        "reported by the Cloud Monitor agent, but scaling configuration 'gpu-launch' turns the agent off "
        "(enhancedMonitorService false)",
    ),
    ("tencentcloud", "short-cooldown"): (
        [("GF-OPS-003", "mandatory", "gpu-scale-in")],
        "AS scaling policy 'gpu-scale-in' scales in with a cooldown of 60 s",
    ),
    ("tencentcloud", "byok-pending"): (
        [("GF-OPS-005", "advisory", "checkpoints")],
        "COS bucket 'checkpoints' encrypts with key 'checkpoint-key', pending import in this deployment "
        "('checkpoint-key': no keyMaterialBase64)",
    ),
}
PROGRAMS = {"alicloud": ALICLOUD, "tencentcloud": TENCENT}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_program_as_written_scales_and_deploys(program: str) -> None:
    result = result_of(PROGRAMS[program])
    assert summary(result.violations) == []
    # Only the AWS-only rules found nothing to judge: the scaling, agent and key rules all ran.
    assert {n["rule_id"] for n in result.not_applicable if n["urn"] == ""} == AWS_ONLY


@pytest.mark.parametrize(("program", "variant"), sorted(VARIANTS))
def test_each_mistake_is_caught_by_its_rule(program: str, variant: str) -> None:
    expected, words = VARIANTS[(program, variant)]
    result = result_of(PROGRAMS[program], variant)
    assert summary(result.violations) == expected
    for finding, (_, _, name) in zip(result.violations, expected, strict=True):
        assert words.format(name=name) in finding.message
