"""A queue-driven GPU pool written with raw pulumi-aws: deployable on a fresh account as written, and
each first-deploy or never-scales mistake caught by its operability rule on the resource it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.aws.harness import as_preview

from .support import graph_of, judge, result_of, summary

PROGRAM = Path(__file__).resolve().parent / "aws_fleet"

# variant -> (rule id, enforcement, the resources named, words every finding contains)
VARIANTS: dict[str, tuple[str, str, list[str], str]] = {
    "queue-elsewhere": (
        "GF-OPS-001",
        "mandatory",
        ["jobs-waiting"],
        "of queue 'vision-jobs-legacy', which the stack does not create",
    ),
    "custom-metric": ("GF-OPS-001", "mandatory", ["jobs-waiting"], "which nothing in the stack may publish"),
    "no-describe-tags": (
        "GF-OPS-001",
        "mandatory",
        ["gpu-busy", "gpu-idle"],
        "appends only after ec2:DescribeTags succeeds, but role 'worker' does not allow it",
    ),
    "no-ec2-endpoint": (
        "GF-OPS-001",
        "mandatory",
        ["gpu-busy", "gpu-idle"],
        "cannot reach ec2 from subnets 'private-a' and 'private-b'",
    ),
    "no-slr": (
        "GF-OPS-002",
        "advisory",
        ["byok"],
        "names the service-linked role AWSServiceRoleForAutoScaling",
    ),
    "key-before-slr": (
        "GF-OPS-002",
        "advisory",
        ["byok"],
        "does not depend on 'autoscaling', which creates it",
    ),
    "step-scale-in": ("GF-OPS-003", "mandatory", ["workers-in"], "is fired by alarm 'gpu-idle'"),
    "session-preferences": (
        "GF-OPS-004",
        "advisory",
        ["session-preferences"],
        "creates the Session Manager preferences document",
    ),
    "ebs-default": ("GF-OPS-004", "advisory", ["ebs-default"], "creates EBS encryption by default"),
    "byok-pending": (
        "GF-OPS-005",
        "advisory",
        ["worker-logs", "worker", "jobs", "jobs-dlq"],
        "encrypts with key 'byok', pending import in this deployment ('byok': no keyMaterialBase64)",
    ),
}


def test_program_as_written_passes_every_operability_rule() -> None:
    result = result_of(PROGRAM)
    assert summary(result.violations) == []
    # Every rule judged something, except GF-OPS-004: the program owns no account-wide setting.
    skipped = {n["rule_id"] for n in result.not_applicable if n["urn"] == ""}
    assert skipped == {"GF-OPS-004"}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_mistake_is_caught_by_its_rule_on_the_resource_it_names(variant: str) -> None:
    rule_id, enforcement, names, words = VARIANTS[variant]
    result = result_of(PROGRAM, variant)
    assert summary(result.violations) == [(rule_id, enforcement, name) for name in names]
    for finding, name in zip(result.violations, names, strict=True):
        assert f"'{name}'" in finding.message
        assert words in finding.message


def test_warm_pool_waiting_for_capacity_on_a_pending_key_times_out() -> None:
    result = result_of(PROGRAM, "byok-pending-warm-pool")
    assert sorted(name for _, _, name in summary(result.violations)) == [
        "jobs",
        "jobs-dlq",
        "worker",
        "worker-logs",
        "workers",
    ]
    [group] = [f for f in result.violations if f.urn.endswith("::workers")]
    assert group.message == (
        "Auto Scaling group 'workers' waits up to 10m for capacity, but its launch template 'worker' "
        "encrypts volumes with a key pending import, so no instance launches and the deployment times out; "
        'set waitForCapacityTimeout to "0" until the material is imported'
    )


def test_first_preview_leaves_only_the_apply_built_role_policy_unjudged() -> None:
    """At a first preview the worker's role policy (built with apply from the queue and key ARNs) is
    unknown: the agent alarms cannot be judged yet, and say so; the queue alarm is judged and passes."""
    result = judge(as_preview(graph_of(PROGRAM)))
    assert summary(result.violations) == [
        ("GF-OPS-001", "advisory", "gpu-busy"),
        ("GF-OPS-001", "advisory", "gpu-idle"),
    ]
    assert all("could not be judged at preview" in f.message for f in result.violations)
