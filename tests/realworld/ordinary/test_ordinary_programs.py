"""Ordinary programs that are not GPU fleets, compliant with every rule's meaning: the pack must report
nothing mandatory on them, and only the advice listed (with why) per program.

The pack is run by platform teams on all their Pulumi programs; a rule that fires on a plain web stack
is the worst defect it can have.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import judged
from tests.realworld.aws.harness import as_preview, with_input

HERE = Path(__file__).resolve().parent
AWS_WEB = HERE / "aws_web"
K8S_APP = HERE / "k8s_app"
ALI_WEB = HERE / "alicloud_web"
TC_WEB = HERE / "tencentcloud_web"

# Alibaba Cloud has no budget resource: a compliant Alibaba stack declares its budget in the pack config.
ALI_BUDGET = {"stack-has-budget-alert": {"budgets": {"monthly": 3000, "currency": "CNY"}}}

PROGRAMS: dict[str, tuple[Path, str, Mapping[str, Any] | None]] = {
    "aws-provider-default-tags": (AWS_WEB, "dev", None),
    "aws-config-default-tags": (AWS_WEB, "cfg", None),
    "kubernetes": (K8S_APP, "prod", None),
    "alicloud": (ALI_WEB, "prod", ALI_BUDGET),
    "tencentcloud": (TC_WEB, "prod", None),
}


@cache
def graph_of(program: str) -> ResourceGraph:
    project, stack, _ = PROGRAMS[program]
    return run_program(project, stack)


def judge(program: str, graph: ResourceGraph) -> StackResult:
    return evaluate_stack(graph, list(default_registry()), PROGRAMS[program][2])


def findings(result: StackResult) -> list[tuple[str, str, str]]:
    return [(v.enforcement, v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in judged(result.violations)]


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_compliant_program_has_no_finding(program: str) -> None:
    result = judge(program, graph_of(program))
    assert findings(result) == [], [v.message for v in result.violations]


# At a first preview a bucket policy built with `apply` from the bucket's ARN is unknown as a whole,
# so neither the TLS-only rule (the deny statement) nor the principals rule can read it: each says so
# (advisory) rather than pass or fail.
PREVIEW_ADVICE: dict[str, list[tuple[str, str, str]]] = {
    "aws-provider-default-tags": [
        ("advisory", "GF-OPS-002", "assets"),
        ("advisory", "GF-OPS-002", "trail"),
        ("advisory", "GF-STOR-004", "assets"),
        ("advisory", "GF-STOR-004", "trail"),
    ],
    "aws-config-default-tags": [
        ("advisory", "GF-OPS-002", "assets"),
        ("advisory", "GF-OPS-002", "trail"),
        ("advisory", "GF-STOR-004", "assets"),
        ("advisory", "GF-STOR-004", "trail"),
    ],
    "kubernetes": [],
    "alicloud": [],
    "tencentcloud": [],
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_first_preview_reports_only_the_documents_it_cannot_see(program: str) -> None:
    result = judge(program, as_preview(graph_of(program)))
    assert result.mandatory_violations == []
    assert findings(result) == PREVIEW_ADVICE[program], [v.message for v in result.violations]
    for violation in judged(result.violations):
        assert "the string value at .policy can't be known during preview" in violation.message


def test_programs_are_what_they_claim() -> None:
    # No GPU type anywhere, and each cloud's instances use the CPU types the docstrings name.
    aws = graph_of("aws-provider-default-tags")
    (template,) = aws.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    assert template.inputs["instanceType"] == "m7i.large"
    (group,) = aws.of_type("aws:autoscaling/group:Group")
    overrides = group.inputs["mixedInstancesPolicy"]["launchTemplate"]["overrides"]
    assert [o["instanceType"] for o in overrides] == ["m7i.large", "c7g.large", "t3.large"]
    (ali_vm,) = graph_of("alicloud").of_type("alicloud:ecs/instance:Instance")
    assert ali_vm.inputs["instanceType"] == "ecs.g7.large"
    (tc_vm,) = graph_of("tencentcloud").of_type("tencentcloud:Instance/instance:Instance")
    assert tc_vm.inputs["instanceType"] == "S5.MEDIUM4"
    kinds = {r.type for r in graph_of("kubernetes").resources}
    assert {
        "kubernetes:core/v1:Namespace",
        "kubernetes:apps/v1:Deployment",
        "kubernetes:core/v1:Service",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
    } <= kinds


@pytest.mark.parametrize("program", ["aws-provider-default-tags", "aws-config-default-tags"])
def test_cost_tags_are_judged_through_the_provider_default_tags(program: str) -> None:
    # The clean result above must come from the default tags being read, not from the rule skipping.
    result = judge(program, graph_of(program))
    skipped = {n["urn"] for n in result.not_applicable if n["rule_id"] == "GF-COST-001"}
    judged = {(r.type, r.name) for r in graph_of(program).resources if r.custom and r.urn not in skipped}
    assert {
        ("aws:ec2/vpc:Vpc", "shop"),
        ("aws:ec2/securityGroup:SecurityGroup", "alb"),
        ("aws:s3/bucket:Bucket", "assets"),
        ("aws:lambda/function:Function", "thumbnailer"),
        ("aws:ec2/instance:Instance", "cron"),
        ("aws:budgets/budget:Budget", "monthly"),
    } <= judged


def test_dropping_a_provider_default_tag_is_reported() -> None:
    graph = graph_of("aws-provider-default-tags")
    (provider,) = graph.of_type("pulumi:providers:aws")
    tags = {"project": "shop", "team": "web", "cost-center": "cc-100"}
    broken = with_input(graph, provider.name, provider.type, "defaultTags", json.dumps({"tags": tags}))
    result = judge("aws-provider-default-tags", broken)
    cost = [v for v in result.violations if v.rule_id == "GF-COST-001"]
    assert cost and all(v.enforcement == "mandatory" and "lacks the cost tag env" in v.message for v in cost)


def test_alicloud_without_a_declared_budget_is_told_to_declare_one() -> None:
    # The one Alibaba finding a team will meet on every program until it declares a budget: intended,
    # since the cloud has no budget resource to create.
    result = evaluate_stack(graph_of("alicloud"), list(default_registry()))
    assert [(v.enforcement, v.rule_id) for v in result.violations] == [("mandatory", "GF-COST-002")]
    assert "declares no budget (Alibaba Cloud has no budget resource)" in result.violations[0].message
