"""The rules reference lists, per rule, the resource types its findings are about, from the policies'
`judges` declarations: per cloud for type tokens, in words for a predicate or a prefix."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.docs import default_rules_markdown, judged_types, judges_lines
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfStackPolicy, Judges, Rule, judges
from tests.docs.test_rules_doc import section

BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"
ACK = "alicloud:cs/nodePool:NodePool"
TKE = "tencentcloud:Kubernetes/nodePool:NodePool"


def _stack_policy(declared: Judges | None) -> GfStackPolicy:
    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        return None

    rule = Rule(
        id="GF-COST-951",
        name="sample-judges",
        description="Sample.",
        clouds=("aws", "alicloud"),
        enforcement=EnforcementLevel.ADVISORY,
        severity=Severity.LOW,
        remediation="Fix it.",
        url="",
    )
    return GfStackPolicy(rule, validate, declared)


def test_tokens_are_listed_per_cloud_in_cloud_order() -> None:
    policy = _stack_policy(
        judges("alicloud:oss/bucket:Bucket", ("aws:s3/bucketV2:BucketV2", "aws:s3/bucket:Bucket"))
    )
    assert judges_lines(policy) == [
        "**Judges** (the resource types its findings are about):",
        "",
        "- AWS: `aws:s3/bucket:Bucket`, `aws:s3/bucketV2:BucketV2`",
        "- Alibaba Cloud: `alicloud:oss/bucket:Bucket`",
        "",
    ]


def test_predicates_and_prefixes_are_described() -> None:
    described = Judges(predicate=lambda t: t.endswith("Bucket"), description="every bucket type")
    assert judges_lines(_stack_policy(described))[2:] == ["- every bucket type", ""]
    assert judges_lines(_stack_policy(Judges(prefixes=("kubernetes:",))))[2:] == [
        "- every `kubernetes:` type",
        "",
    ]
    assert judged_types(_stack_policy(None)) is None


def test_every_declared_token_is_in_its_rule_section() -> None:
    text = default_rules_markdown()
    for policy in default_registry():
        body = section(text, policy.rule.id)
        assert "\n**Judges** (the resource types its findings are about)" in body, policy.rule.id
        for tokens in (judged_types(policy) or {}).values():
            for token in tokens:
                assert f"`{token}`" in body.split("**Remediation.**", 1)[0], (policy.rule.id, token)


def test_the_launchers_are_listed_for_the_rules_that_judge_them() -> None:
    text = default_rules_markdown()
    for rule_id in ("GF-ACC-003", "GF-STOR-008", "GF-COST-003", "GF-COST-004", "GF-COST-005", "GF-COST-007"):
        judged = section(text, rule_id).split("**Remediation.**", 1)[0]
        for token in (BATCH, ACK, TKE):
            assert f"`{token}`" in judged, (rule_id, token)
    cost_tags = section(text, "GF-COST-001").split("**Remediation.**", 1)[0]
    assert "- every type whose SDK class takes `tags` and that carries cost (" in cost_tags


def test_rules_without_a_declaration_say_so_in_the_reference() -> None:
    # These five still rely on their notes for what they judge; every other rule declares its types.
    undeclared = {p.rule.id for p in default_registry() if getattr(p, "judges", None) is None}
    assert undeclared == {"GF-ACC-001", "GF-ACC-002", "GF-ACC-004", "GF-ACC-005", "GF-ACC-006"}
    text = default_rules_markdown()
    for rule_id in undeclared:
        assert "not declared on the policy" in section(text, rule_id)
