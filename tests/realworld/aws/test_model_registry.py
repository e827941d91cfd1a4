"""GF-COST-001 judges what carries cost: a raw-SDK registry whose bucket and key carry the cost tags
passes with its untagged objects, IAM role, policy and user; the bucket losing a tag fires."""

from __future__ import annotations

from pathlib import Path

from .harness import as_preview, judge, outcome, run_variant

PROGRAM = Path(__file__).resolve().parent / "model_registry"


def test_untagged_objects_and_iam_entities_are_not_findings() -> None:
    graph = run_variant(PROGRAM)
    untagged = {r.type for r in graph.resources if r.custom and not r.inputs.get("tags")}
    assert {
        "aws:s3/bucketObjectv2:BucketObjectv2",
        "aws:iam/role:Role",
        "aws:iam/policy:Policy",
        "aws:iam/user:User",
    } <= untagged
    assert outcome(PROGRAM).summary() == []


def test_an_untagged_bucket_still_fires() -> None:
    found = outcome(PROGRAM, "bucket-untagged")
    assert found.ids() == {"GF-COST-001"}, found.summary()
    (violation,) = found.of("GF-COST-001")
    assert violation.urn.endswith("::registry")
    assert violation.message.startswith("aws:s3/bucket:Bucket 'registry' lacks the cost tag cost-center")


def test_preview_judges_no_object_or_identity_for_cost_tags() -> None:
    # The publish policy is built from the key's ARN, unknown at preview (the IAM rules say so); the cost
    # tags rule has nothing to say about any resource at preview either.
    preview = judge(as_preview(run_variant(PROGRAM)))
    assert preview.of("GF-COST-001") == []
    assert {v.rule_id for v in preview.result.violations} <= {"GF-IAM-001", "GF-IAM-002", "GF-IAM-006"}
