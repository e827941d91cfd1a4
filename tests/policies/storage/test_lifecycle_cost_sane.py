from __future__ import annotations

import pytest

from gpufleet.policies.storage.alicloud import OSS_BUCKET
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_LIFECYCLE, AWS_LIFECYCLE_V2
from gpufleet.policies.storage.lifecycle_cost_sane import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET
from tests.policies.verdicts import node, verdicts

from .helpers import UNKNOWN, run_resource

OUR_RULE = {
    "id": "checkpoints",
    "status": "Enabled",
    "transitions": [{"days": 7, "storageClass": "INTELLIGENT_TIERING"}],
    "expiration": {"days": 60},
    "abortIncompleteMultipartUpload": {"daysAfterInitiation": 1},
}


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-STOR-006", "lifecycle-cost-sane")


@pytest.mark.parametrize("kind", [AWS_LIFECYCLE, AWS_LIFECYCLE_V2])
def test_our_s3_lifecycle_passes(kind: str) -> None:
    assert run_resource(POLICY, kind, {"rules": [OUR_RULE]}, name="lc") == []


def test_s3_intelligent_tiering_that_expires_before_its_cheaper_tier_never_pays_off() -> None:
    rule = {**OUR_RULE, "expiration": {"days": 30}}
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, name="lc") == [
        "S3 lifecycle configuration 'lc' lifecycle rule checkpoints moves objects to INTELLIGENT_TIERING "
        "after 7 days but expires them after 30 days: INTELLIGENT_TIERING bills less only after 30 days "
        "without access (day 37), so the move pays transition and monitoring fees and never reaches a "
        "cheaper tier; drop the transition or keep them longer"
    ]
    # One day past the cheaper tier's start is enough to be judged worth it; no transition always is.
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [{**rule, "expiration": {"days": 38}}]}) == []
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [{**rule, "transitions": None}]}) == []


def test_s3_standard_ia_before_30_days_is_rejected() -> None:
    rule = {
        **OUR_RULE,
        "transitions": [{"days": 7, "storageClass": "STANDARD_IA"}],
        "expiration": {"days": 60},
    }
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, name="lc") == [
        "S3 lifecycle configuration 'lc' lifecycle rule checkpoints moves objects to STANDARD_IA after 7 "
        "days; "
        "S3 rejects STANDARD_IA before 30 days (use INTELLIGENT_TIERING for earlier moves)"
    ]


def test_s3_glacier_outlives_expiry() -> None:
    rule = {**OUR_RULE, "transitions": [{"days": 7, "storageClass": "GLACIER"}], "expiration": {"days": 30}}
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, name="lc") == [
        "S3 lifecycle configuration 'lc' lifecycle rule checkpoints moves objects to GLACIER after 7 days "
        "but "
        "expires them after 30 days, before GLACIER's 90-day minimum storage duration ends (billed to day "
        "97); "
        "move them later or drop the transition"
    ]


def test_s3_expiry_not_after_transition_and_ia_to_glacier_gap() -> None:
    rule = {
        "status": "Enabled",
        "transitions": [
            {"days": 30, "storageClass": "STANDARD_IA"},
            {"days": 40, "storageClass": "DEEP_ARCHIVE"},
        ],
        "expiration": {"days": 400},
    }
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, name="lc") == [
        "S3 lifecycle configuration 'lc' lifecycle rule #0 moves objects from STANDARD_IA to DEEP_ARCHIVE "
        "after "
        "10 days; S3 requires 30 days in STANDARD_IA first"
    ]
    inline = {
        "lifecycleRules": [
            {
                "enabled": True,
                "transitions": [{"days": 30, "storageClass": "INTELLIGENT_TIERING"}],
                "expiration": {"days": 30},
            }
        ]
    }
    assert run_resource(POLICY, AWS_BUCKET, inline, name="b") == [
        "S3 bucket 'b' lifecycle rule #0 expires objects after 30 days, not later than its "
        "INTELLIGENT_TIERING "
        "transition at 30 days, which S3 rejects"
    ]


def test_noncurrent_versions_judged_too() -> None:
    rule = {
        "status": "Enabled",
        "noncurrentVersionTransitions": [{"noncurrentDays": 1, "storageClass": "GLACIER_IR"}],
        "noncurrentVersionExpiration": {"noncurrentDays": 7},
    }
    assert run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, name="lc") == [
        "S3 lifecycle configuration 'lc' lifecycle rule #0 moves noncurrent versions to GLACIER_IR after 1 "
        "days "
        "but expires them after 7 days, before GLACIER_IR's 90-day minimum storage duration ends (billed to "
        "day 91); move them later or drop the transition"
    ]


def _oss(transition_days: int, storage_class: str, expire_days: int) -> dict[str, object]:
    rule = {
        "id": "ckpt",
        "enabled": True,
        "transitions": [{"days": transition_days, "storageClass": storage_class}],
        "expirations": [{"days": expire_days}],
    }
    return {"lifecycleRules": [rule]}


@pytest.mark.parametrize(
    ("transition_days", "storage_class", "expire_days"),
    [
        (7, "IA", 30),  # IA's 30 days count from the object's creation: met at day 30
        (1, "IA", 30),
        (7, "IA", 60),
        (10, "Archive", 60),  # Archive's 60 days count from creation too
        (7, "ColdArchive", 187),  # ColdArchive's 180 count from the move: billed to day 187
    ],
)
def test_oss_minimums_that_end_by_the_expiry_pass(
    transition_days: int, storage_class: str, expire_days: int
) -> None:
    bucket = node(OSS_BUCKET, "o", _oss(transition_days, storage_class, expire_days))
    assert verdicts(POLICY, [bucket]) == []


@pytest.mark.parametrize(
    ("transition_days", "storage_class", "expire_days", "counted", "billed"),
    [
        (7, "IA", 20, "counted from creation, ", 30),
        (10, "Archive", 50, "counted from creation, ", 60),
        (7, "ColdArchive", 30, "", 187),
        (7, "DeepColdArchive", 186, "", 187),
    ],
)
def test_oss_minimums_that_outlive_the_expiry(
    transition_days: int, storage_class: str, expire_days: int, counted: str, billed: int
) -> None:
    bucket = node(OSS_BUCKET, "o", _oss(transition_days, storage_class, expire_days))
    minimum = {"IA": 30, "Archive": 60}.get(storage_class, 180)
    assert verdicts(POLICY, [bucket]) == [
        (
            "GF-STOR-006",
            "mandatory",
            f"OSS bucket 'o' lifecycle rule ckpt moves objects to {storage_class} after {transition_days} "
            f"days but expires them after {expire_days} days, before {storage_class}'s {minimum}-day "
            f"minimum storage duration ends ({counted}billed to day {billed}); move them later or drop the "
            "transition",
            "o",
        )
    ]


@pytest.mark.parametrize(
    ("storage_class", "minimum"), [("STANDARD_IA", 30), ("ARCHIVE", 90), ("DEEP_ARCHIVE", 180)]
)
def test_cos_minimums_count_from_the_move(storage_class: str, minimum: int) -> None:
    def bucket(expire_days: int) -> list[object]:
        rule = {
            "transitions": [{"days": 7, "storageClass": storage_class}],
            "expiration": {"days": expire_days},
        }
        return [node(COS_BUCKET, "c", {"lifecycleRules": [rule]})]

    # Unlike OSS, a move at day 7 with deletion at the class's minimum is billed past the deletion.
    assert verdicts(POLICY, bucket(minimum)) == [
        (
            "GF-STOR-006",
            "mandatory",
            f"COS bucket 'c' lifecycle rule #0 moves objects to {storage_class} after 7 days but expires "
            f"them after {minimum} days, before {storage_class}'s {minimum}-day minimum storage duration "
            f"ends (billed to day {minimum + 7}); move them later or drop the transition",
            "c",
        )
    ]
    assert verdicts(POLICY, bucket(minimum + 7)) == []


def test_s3_standard_ia_minimum_counts_from_the_move() -> None:
    def config(expire_days: int) -> list[object]:
        rule = {
            "id": "r",
            "status": "Enabled",
            "transitions": [{"days": 30, "storageClass": "STANDARD_IA"}],
            "expiration": {"days": expire_days},
        }
        return [node(AWS_LIFECYCLE, "lc", {"rules": [rule]})]

    assert verdicts(POLICY, config(45)) == [
        (
            "GF-STOR-006",
            "mandatory",
            "S3 lifecycle configuration 'lc' lifecycle rule r moves objects to STANDARD_IA after 30 days but "
            "expires them after 45 days, before STANDARD_IA's 30-day minimum storage duration ends (billed "
            "to day 60); move them later or drop the transition",
            "lc",
        )
    ]
    assert verdicts(POLICY, config(60)) == []


def test_cos_archive() -> None:
    props = {
        "lifecycleRules": [
            {"transitions": [{"days": 30, "storageClass": "ARCHIVE"}], "expiration": {"days": 90}}
        ]
    }
    assert run_resource(POLICY, COS_BUCKET, props, name="c") == [
        "COS bucket 'c' lifecycle rule #0 moves objects to ARCHIVE after 30 days but expires them after 90 "
        "days, "
        "before ARCHIVE's 90-day minimum storage duration ends (billed to day 120); move them later or drop "
        "the transition"
    ]
    assert (
        run_resource(
            POLICY,
            COS_BUCKET,
            {
                "lifecycleRules": [
                    {"transitions": [{"days": 7, "storageClass": "STANDARD_IA"}], "expiration": {"days": 37}}
                ]
            },
        )
        == []
    )


def test_other_types_and_buckets_without_rules_pass() -> None:
    assert run_resource(POLICY, "aws:ec2/instance:Instance", {}) == []
    assert run_resource(POLICY, AWS_BUCKET, {}) == []


def test_unknown_and_proxy() -> None:
    rule = {**OUR_RULE, "transitions": [{"days": UNKNOWN, "storageClass": "GLACIER"}]}
    found = run_resource(POLICY, AWS_LIFECYCLE, {"rules": [rule]}, proxy=True)
    assert len(found) == 1
    assert found[0].startswith("could not be judged at preview")
