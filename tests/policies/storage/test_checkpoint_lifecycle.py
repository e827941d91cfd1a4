from __future__ import annotations

from collections.abc import Mapping

import pytest
from pulumi_policy import PolicyResource

from gpufleet.policies.storage.alicloud import OSS_BUCKET
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_BUCKET_V2, AWS_LIFECYCLE
from gpufleet.policies.storage.checkpoint_lifecycle import POLICY, RULE
from gpufleet.policies.storage.tencentcloud import COS_BUCKET

from .helpers import UNKNOWN, NotApplicable, res, run_stack

TAGS = {"purpose": "checkpoints"}
# No transition: with a 30-day expiry no S3 class pays off (see GF-STOR-006), so none is asked for.
OUR_RULE = {
    "id": "checkpoints",
    "status": "Enabled",
    "filter": {"prefix": ""},
    "expiration": {"days": 30},
    "abortIncompleteMultipartUpload": {"daysAfterInitiation": 1},
}
LONG_LIVED = {"transition_days": 7, "expire_days": 90}


def s3(rule: Mapping[str, object]) -> tuple[PolicyResource, list[PolicyResource]]:
    bucket = res(AWS_BUCKET, "ckpt", {"tags": TAGS})
    lifecycle = res(AWS_LIFECYCLE, "lc", {"bucket": UNKNOWN, "rules": [rule]}, prop_deps={"bucket": [bucket]})
    return bucket, [bucket, lifecycle]


def test_metadata() -> None:
    assert RULE.id == "GF-STOR-005"
    assert RULE.defaults() == {
        "transition_days": 7,
        "expire_days": 30,
        "checkpoint_tag": "purpose=checkpoints",
    }


def test_our_s3_lifecycle_passes() -> None:
    _, resources = s3(OUR_RULE)
    assert run_stack(POLICY, resources) == []


def test_s3_disabled_rule_does_not_count() -> None:
    _, resources = s3({**OUR_RULE, "status": "Disabled"})
    assert [m for m, _ in run_stack(POLICY, resources)] == [
        "S3 bucket 'ckpt' is a checkpoint bucket but its lifecycle has no expiration; expire them after at "
        "most 30 days",
        "S3 bucket 'ckpt' is a checkpoint bucket but its lifecycle does not abort incomplete multipart "
        "uploads; add an abort after a few days",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"expiration": {"days": 60}},
            "S3 bucket 'ckpt' is a checkpoint bucket but its lifecycle expires objects after 60 days; expire "
            "them after at most 30 days",
        ),
        (
            {"abortIncompleteMultipartUpload": None},
            "S3 bucket 'ckpt' is a checkpoint bucket but its lifecycle does not abort incomplete multipart "
            "uploads; add an abort after a few days",
        ),
    ],
)
def test_s3_one_change_negatives(change: Mapping[str, object], message: str) -> None:
    bucket, resources = s3({**OUR_RULE, **change})
    assert run_stack(POLICY, resources) == [(message, bucket.urn)]


def test_s3_asks_for_no_transition_that_cannot_pay_off_before_a_30_day_expiry() -> None:
    # Intelligent-Tiering reaches its cheaper tier 30 days after the move: day 37, after the expiry.
    _, resources = s3({**OUR_RULE, "transitions": None})
    assert run_stack(POLICY, resources) == []


def test_s3_long_lived_checkpoints_need_a_transition() -> None:
    rule = {
        **OUR_RULE,
        "expiration": {"days": 90},
        "transitions": [{"days": 14, "storageClass": "INTELLIGENT_TIERING"}],
    }
    bucket, resources = s3(rule)
    assert run_stack(POLICY, resources, LONG_LIVED) == [
        (
            "S3 bucket 'ckpt' is a checkpoint bucket but its lifecycle moves nothing to an infrequent-access "
            "class within 7 days; transition to INTELLIGENT_TIERING after at most 7 days",
            bucket.urn,
        )
    ]
    moved = {**rule, "transitions": [{"days": 7, "storageClass": "INTELLIGENT_TIERING"}]}
    _, resources = s3(moved)
    assert run_stack(POLICY, resources, LONG_LIVED) == []


def test_s3_inline_v2_shape() -> None:
    bucket = res(
        AWS_BUCKET_V2,
        "ckpt",
        {
            "tags": TAGS,
            "lifecycleRules": [
                {
                    "enabled": True,
                    "transitions": [{"days": 0, "storageClass": "GLACIER_IR"}],
                    "expirations": [{"days": 30}],
                    "abortIncompleteMultipartUploadDays": 2,
                }
            ],
        },
    )
    assert run_stack(POLICY, [bucket]) == []


def _oss(rule: dict[str, object]) -> object:
    return res(OSS_BUCKET, "oss", {"tags": TAGS, "lifecycleRules": [rule]})


OSS_EXPIRY = {"enabled": True, "expirations": [{"days": 30}], "abortMultipartUploads": [{"days": 1}]}


def test_cos_needs_no_transition_with_a_30_day_expiry() -> None:
    """COS's billing page does not say its minimums count from the upload: counted from the move, a
    30-day expiry leaves no room for STANDARD_IA's 30 days."""
    cos = res(
        COS_BUCKET,
        "cos",
        {
            "tags": TAGS,
            "lifecycleRules": [
                {"expiration": {"days": 30}, "abortIncompleteMultipartUpload": {"daysAfterInitiation": 1}}
            ],
        },
    )
    assert run_stack(POLICY, [cos]) == []


def test_oss_asks_for_ia_at_7_days_with_a_30_day_expiry() -> None:
    """OSS counts IA's 30-day minimum from the object's creation: moved at day 7 and deleted at day 30,
    an object pays nothing beyond its life, so the seed's transition is asked for."""
    oss = _oss(OSS_EXPIRY)
    assert run_stack(POLICY, [oss]) == [
        (
            "OSS bucket 'oss' is a checkpoint bucket but its lifecycle moves nothing to an infrequent-access "
            "class within 7 days; transition to IA after at most 7 days",
            oss.urn,
        )
    ]
    moved = _oss({**OSS_EXPIRY, "transitions": [{"days": 7, "storageClass": "IA"}]})
    assert run_stack(POLICY, [moved]) == []


def test_an_oss_expiry_shorter_than_ia_minimum_asks_for_no_transition() -> None:
    short = _oss({**OSS_EXPIRY, "expirations": [{"days": 20}]})
    assert run_stack(POLICY, [short]) == []


def test_cheapest_fit_counts_each_cloud_minimum_as_billed() -> None:
    from gpufleet.policies.storage._storage_classes import cheapest_fit

    assert cheapest_fit("alicloud", 7, 30).name == "IA"  # type: ignore[union-attr]
    assert cheapest_fit("alicloud", 7, 29) is None
    assert cheapest_fit("alicloud", 30, 30) is None  # the move would come with the expiry
    assert cheapest_fit("tencentcloud", 7, 30) is None
    assert cheapest_fit("tencentcloud", 7, 37).name == "STANDARD_IA"  # type: ignore[union-attr]
    assert cheapest_fit("aws", 7, 30) is None


def test_oss_needs_transition_when_expiry_leaves_room() -> None:
    oss = res(
        OSS_BUCKET,
        "oss",
        {
            "tags": TAGS,
            "lifecycleRules": [
                {"enabled": True, "expirations": [{"days": 60}], "abortMultipartUploads": [{"days": 1}]}
            ],
        },
    )
    config = {"expire_days": 90}
    assert run_stack(POLICY, [oss], config=config) == [
        (
            "OSS bucket 'oss' is a checkpoint bucket but its lifecycle moves nothing to an infrequent-access "
            "class within 7 days; transition to IA after at most 7 days",
            oss.urn,
        )
    ]


def test_not_applicable_without_checkpoint_tag() -> None:
    with pytest.raises(NotApplicable, match="no bucket is tagged purpose=checkpoints"):
        run_stack(POLICY, [res(AWS_BUCKET, "logs", {"tags": {"purpose": "logs"}})])


def test_unknown_days_and_proxy() -> None:
    bucket, resources = s3({**OUR_RULE, "expiration": {"days": UNKNOWN}})
    found = run_stack(POLICY, resources, proxy=True)
    assert [(m.startswith("could not be judged at preview"), u) for m, u in found] == [(True, bucket.urn)]
