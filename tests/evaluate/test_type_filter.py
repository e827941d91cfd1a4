"""The offline evaluator calls a resource policy only for the types its `judges` declares. The filter is an
optimisation: for every resource policy and every type of the hostile baselines (compliant, empty, wholly
unknown and malformed props), the filtered and unfiltered evaluations give the same findings and the same
not-applicable notes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy import ReportViolation, ResourceValidationArgs

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy, GfResourcePolicy, Judges, Rule, judges

BASELINES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parent.parent / "policies" / "hostile_baselines.json").read_text()
)
# Types no baseline has, each a case of a declaration: a prefix (any Kubernetes kind, a generic
# CustomResource), a predicate's other branch (an untaggable AWS type), and types no policy judges.
EXTRA_TYPES = (
    "kubernetes:core/v1:Secret",
    "kubernetes:core/v1:Service",
    "kubernetes:apiextensions.k8s.io:CustomResource",
    "kubernetes:apps/v1:DeploymentPatch",
    "aws:iam/userLoginProfile:UserLoginProfile",
    "aws:ec2/volume:Volume",
    "alicloud:ecs/disk:Disk",
    "tencentcloud:Cbs/storage:Storage",
    "random:index/randomPassword:RandomPassword",
    "gpufleet:pools:GpuPool",
)
AWS_DEFAULT_PROVIDER = "default_" + metadata.version("pulumi_aws").replace(".", "_")
# Inputs some policy reads that a compliant baseline may leave out.
READ_KEYS = ("inlinePolicies", "policy", "assumeRolePolicy", "tags", "metadata", "spec", "kind", "apiVersion")
WILDCARD = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
)
VARIANTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "compliant": lambda props: props,
    "empty": lambda props: {},
    "unknown": lambda props: dict.fromkeys((*props, *READ_KEYS), UNKNOWN_STRING),
    "malformed": lambda props: dict.fromkeys((*props, *READ_KEYS), 7),
    "wildcard": lambda props: {
        **props,
        "policy": WILDCARD,
        "document": WILDCARD,
        "inlinePolicies": [{"name": "all", "policy": WILDCARD}],
    },
}


def _resource_policies() -> list[GfResourcePolicy]:
    return [p for p in default_registry() if isinstance(p, GfResourcePolicy)]


def _unfiltered(policies: list[GfResourcePolicy]) -> list[GfPolicy]:
    copies: list[GfPolicy] = []
    for policy in policies:
        twin = copy.copy(policy)
        twin.judges = None
        copies.append(twin)
    return copies


def _graph(variant: str) -> ResourceGraph:
    graph = ResourceGraph(project="filter", stack="dev", config={"aws:region": "us-east-1"})
    kinds = {**BASELINES, **{token: {} for token in EXTRA_TYPES}}
    for policy in _resource_policies():
        assert policy.judges is not None
        kinds.update({token: {} for token in policy.judges.tokens if token not in kinds})
    for index, (token, props) in enumerate(sorted(kinds.items())):
        name = f"r{index}"
        inputs = VARIANTS[variant](props)
        graph.add(
            Resource(
                urn=f"urn:pulumi:dev::filter::{token}::{name}",
                type=token,
                name=name,
                custom=True,
                inputs=inputs,
                outputs={"id": f"{name}-id", **inputs},
            )
        )
    return graph


def test_every_resource_policy_declares_the_types_it_judges() -> None:
    policies = _resource_policies()
    assert len(policies) == 17
    undeclared = [p.rule.id for p in policies if p.judges is None]
    assert undeclared == []
    # Each declaration leaves most baseline types out (the point of it), except the tag rule, which
    # judges every taggable type, and the provider-schema rule, which judges every type its tables hold.
    for policy in policies:
        assert policy.judges is not None
        assert policy.judges.tokens or policy.judges.prefixes or policy.judges.predicate, policy.rule.id
        judged = [token for token in BASELINES if token in policy.judges]
        if policy.rule.id not in {"GF-COST-001", "GF-DEPLOY-001"}:
            assert len(judged) < len(BASELINES) // 2, policy.rule.id


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_filtered_and_unfiltered_evaluations_agree(variant: str) -> None:
    graph = _graph(variant)
    policies = _resource_policies()
    filtered = evaluate_stack(graph, policies)
    unfiltered = evaluate_stack(graph, _unfiltered(policies))
    assert filtered.violations == unfiltered.violations
    assert filtered.not_applicable == unfiltered.not_applicable
    # Both runs judged something and noted something, so the comparison above compared real results.
    assert unfiltered.violations
    assert unfiltered.not_applicable


def test_the_filter_skips_calls_and_keeps_notes() -> None:
    calls: list[str] = []

    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        calls.append(args.resource_type)
        if args.resource_type != "aws:s3/bucket:Bucket":
            args.not_applicable(f"{args.resource_type} is not a bucket")
        report("a bucket", None)

    rule = Rule(
        id="GF-STOR-999",
        name="filter-probe",
        description="probe",
        clouds=("aws",),
        enforcement=default_registry().get("GF-STOR-001").rule.enforcement,
        severity=default_registry().get("GF-STOR-001").rule.severity,
        remediation="none",
        url="https://example.invalid",
    )
    noted = GfResourcePolicy(
        rule,
        validate,
        Judges(tokens=frozenset({"aws:s3/bucket:Bucket"}), others=lambda t: f"{t} is not a bucket"),
    )
    graph = ResourceGraph(project="filter", stack="dev")
    for token in ("aws:s3/bucket:Bucket", "aws:kms/key:Key", "aws:kms/key:Key"):
        name = f"r{len(graph.resources)}"
        graph.add(
            Resource(
                urn=f"urn:pulumi:dev::filter::{token}::{name}", type=token, name=name, custom=True, inputs={}
            )
        )
    result = evaluate_stack(graph, [noted], engine_rule=False)
    # Called once, for the bucket; the keys and the default provider are noted without a call.
    assert calls == ["aws:s3/bucket:Bucket"]
    assert [(f.rule_id, f.urn, f.message) for f in result.violations] == [
        ("GF-STOR-999", "urn:pulumi:dev::filter::aws:s3/bucket:Bucket::r0", "a bucket")
    ]
    assert [(n["urn"].rsplit("::", 1)[-1], n["reason"]) for n in result.not_applicable] == [
        ("r1", "aws:kms/key:Key is not a bucket"),
        ("r2", "aws:kms/key:Key is not a bucket"),
        (AWS_DEFAULT_PROVIDER, "pulumi:providers:aws is not a bucket"),
    ]

    calls.clear()
    silent = GfResourcePolicy(rule, validate, judges("aws:kms/key:Key", prefixes=("aws:s3/",)))
    result = evaluate_stack(graph, [silent], engine_rule=False)
    assert calls == ["aws:s3/bucket:Bucket", "aws:kms/key:Key", "aws:kms/key:Key"]
    assert [n["reason"] for n in result.not_applicable] == ["aws:kms/key:Key is not a bucket"] * 2
