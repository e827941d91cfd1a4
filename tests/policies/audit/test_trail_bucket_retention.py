"""GF-AUD-002 where the audit goes: a trail delivered to a bucket is kept as long as the bucket's
lifecycle allows (CloudTrail to S3, ActionTrail to OSS, CloudAudit to COS). Each must-fire case has a
compliant look-alike beside it."""

from __future__ import annotations

from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.policies.audit.log_retention import POLICY

from .helpers import UNKNOWN_STRING_VALUE, res
from .helpers import run_stack as stack_outcome


def run_stack(
    policy: object, resources: list[PolicyResource], config: dict[str, Any] | None = None
) -> list[tuple[str, str | None]]:
    found = stack_outcome(POLICY, resources, config=config)
    assert not isinstance(found, str), found
    return found


TRAIL = "aws:cloudtrail/trail:Trail"
S3 = "aws:s3/bucket:Bucket"
S3_V2 = "aws:s3/bucketV2:BucketV2"
LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
ALI_TRAIL = "alicloud:actiontrail/trail:Trail"
OSS = "alicloud:oss/bucket:Bucket"
TRACK = "tencentcloud:Audit/track:Track"
COS = "tencentcloud:Cos/bucket:Bucket"
TAIL = "keep audit logs at least 180 days (expire them later, or not at all)"


def s3_rule(days: int, prefix: str | None = None, status: str = "Enabled", **extra: Any) -> dict[str, Any]:
    rule: dict[str, Any] = {"id": f"expire-{days}", "status": status, "expiration": {"days": days}, **extra}
    if prefix is not None:
        rule["filter"] = {"prefix": prefix}
    return rule


def aws_stack(*rules: dict[str, Any], trail_props: dict[str, Any] | None = None) -> list[PolicyResource]:
    bucket = res(S3, "audit-logs", {"bucket": "acme-audit"})
    trail = res(
        TRAIL, "org", {"s3BucketName": "acme-audit", "isMultiRegionTrail": True, **(trail_props or {})}
    )
    resources = [bucket, trail]
    if rules:
        resources.append(
            res(
                LIFECYCLE,
                "audit-lc",
                {"bucket": UNKNOWN_STRING_VALUE, "rules": list(rules)},
                prop_deps={"bucket": [bucket]},
            )
        )
    return resources


def trail_urn(resources: list[PolicyResource]) -> str:
    return next(r.urn for r in resources if r.resource_type in (TRAIL, ALI_TRAIL, TRACK))


# --- AWS CloudTrail to S3 ----------------------------------------------------------------------------


def test_cloudtrail_bucket_expiring_early_fires_on_the_trail() -> None:
    resources = aws_stack(s3_rule(90))
    assert run_stack(POLICY, resources) == [
        (
            "CloudTrail trail 'org' delivers to S3 bucket 'audit-logs', whose lifecycle rule 'expire-90' "
            f"expires the trail's files after 90 days; {TAIL}",
            trail_urn(resources),
        )
    ]


def test_cloudtrail_bucket_compliant_look_alikes_pass() -> None:
    assert run_stack(POLICY, aws_stack()) == []  # no lifecycle: kept for ever
    assert run_stack(POLICY, aws_stack(s3_rule(400))) == []
    assert run_stack(POLICY, aws_stack(s3_rule(30, status="Disabled"))) == []
    assert run_stack(POLICY, aws_stack(s3_rule(7, prefix="tmp/"))) == []  # another part of the bucket
    tagged = s3_rule(7, filter={"tag": {"key": "scratch", "value": "true"}})
    assert run_stack(POLICY, aws_stack(tagged)) == []  # CloudTrail writes untagged objects
    noncurrent = {"id": "old", "status": "Enabled", "noncurrentVersionExpiration": {"noncurrentDays": 7}}
    assert run_stack(POLICY, aws_stack(noncurrent)) == []


def test_cloudtrail_rule_narrower_than_trail_path_still_fires() -> None:
    resources = aws_stack(s3_rule(30, prefix="AWSLogs/123456789012/CloudTrail/"))
    assert [m for m, _ in run_stack(POLICY, resources)] == [
        "CloudTrail trail 'org' delivers to S3 bucket 'audit-logs', whose lifecycle rule 'expire-30' "
        f"expires the trail's files after 30 days; {TAIL}"
    ]


def test_cloudtrail_key_prefix_decides_which_rules_reach_it() -> None:
    trail_props = {"s3KeyPrefix": "cloudtrail"}
    assert run_stack(POLICY, aws_stack(s3_rule(30, prefix="AWSLogs/"), trail_props=trail_props)) == []
    fired = run_stack(POLICY, aws_stack(s3_rule(30, prefix="cloudtrail/"), trail_props=trail_props))
    assert [m.split(",")[0] for m, _ in fired] == [
        "CloudTrail trail 'org' delivers to S3 bucket 'audit-logs'"
    ]


def test_cloudtrail_inline_v2_lifecycle_and_fixed_date() -> None:
    bucket = res(
        S3_V2,
        "audit-logs",
        {
            "bucket": "acme-audit",
            "lifecycleRules": [{"id": "sweep", "enabled": True, "expirations": [{"date": "2027-01-01"}]}],
        },
    )
    trail = res(TRAIL, "org", {"s3BucketName": UNKNOWN_STRING_VALUE}, prop_deps={"s3BucketName": [bucket]})
    assert run_stack(POLICY, [bucket, trail]) == [
        (
            "CloudTrail trail 'org' delivers to S3 bucket 'audit-logs', whose lifecycle rule 'sweep' expires "
            f"the trail's files on 2027-01-01; {TAIL}",
            trail.urn,
        )
    ]


def test_min_days_config_and_other_buckets() -> None:
    resources = aws_stack(s3_rule(200))
    assert [m for m, _ in run_stack(POLICY, resources, {"min_days": 365})] == [
        "CloudTrail trail 'org' delivers to S3 bucket 'audit-logs', whose lifecycle rule 'expire-200' "
        "expires the trail's files after 200 days; keep audit logs at least 365 days (expire them later, "
        "or not at all)"
    ]
    # A bucket not in the stack cannot be judged here; a short lifecycle on another bucket is not the trail's.
    other = res(
        S3, "scratch", {"bucket": "scratch", "lifecycleRules": [{"enabled": True, "expiration": {"days": 1}}]}
    )
    elsewhere = res(TRAIL, "org", {"s3BucketName": "bucket-of-another-stack"})
    assert run_stack(POLICY, [other, elsewhere]) == []


# --- Alibaba Cloud ActionTrail to OSS ----------------------------------------------------------------


def oss_stack(rules: list[dict[str, Any]], prefix: str | None = None) -> list[PolicyResource]:
    bucket = res(OSS, "trail-bucket", {"bucket": "acme-actiontrail", "lifecycleRules": rules})
    props: dict[str, Any] = {"trailName": "org", "ossBucketName": "acme-actiontrail"}
    if prefix is not None:
        props["ossKeyPrefix"] = prefix
    return [bucket, res(ALI_TRAIL, "org", props)]


def test_actiontrail_oss_expiring_early_fires() -> None:
    resources = oss_stack([{"id": "expire", "enabled": True, "prefix": "", "expirations": [{"days": 60}]}])
    assert run_stack(POLICY, resources) == [
        (
            "ActionTrail trail 'org' delivers to OSS bucket 'trail-bucket', whose lifecycle rule 'expire' "
            f"expires the trail's files after 60 days; {TAIL}",
            trail_urn(resources),
        )
    ]


def test_actiontrail_oss_compliant_look_alikes_pass() -> None:
    assert run_stack(POLICY, oss_stack([{"enabled": True, "expirations": [{"days": 365}]}])) == []
    assert run_stack(POLICY, oss_stack([{"enabled": False, "expirations": [{"days": 30}]}])) == []
    assert (
        run_stack(POLICY, oss_stack([{"enabled": True, "prefix": "tmp/", "expirations": [{"days": 1}]}]))
        == []
    )
    narrow = [{"enabled": True, "prefix": "audit/", "expirations": [{"days": 30}]}]
    assert run_stack(POLICY, oss_stack(narrow, prefix="ops")) == []
    assert len(run_stack(POLICY, oss_stack(narrow, prefix="audit"))) == 1


# --- Tencent Cloud CloudAudit to COS -----------------------------------------------------------------


def cos_stack(rules: list[dict[str, Any]], storage_type: str = "cos") -> list[PolicyResource]:
    bucket = res(COS, "audit-cos", {"bucket": "acme-audit-1250000000", "lifecycleRules": rules})
    storage = {
        "storageType": storage_type,
        "storageName": "acme-audit",
        "storagePrefix": "cloudaudit",
        "storageRegion": "ap-guangzhou",
    }
    track = res(TRACK, "org", {"name": "org", "status": 1, "storage": storage, "trackForAllMembers": 0})
    return [bucket, track]


def test_cloudaudit_cos_expiring_early_fires() -> None:
    resources = cos_stack([{"id": "expire", "filterPrefix": "cloudaudit/", "expiration": {"days": 90}}])
    assert run_stack(POLICY, resources) == [
        (
            "CloudAudit track 'org' delivers to COS bucket 'audit-cos', whose lifecycle rule 'expire' "
            f"expires the trail's files after 90 days; {TAIL}",
            trail_urn(resources),
        )
    ]


def test_cloudaudit_compliant_look_alikes_pass() -> None:
    assert run_stack(POLICY, cos_stack([{"filterPrefix": "cloudaudit/", "expiration": {"days": 180}}])) == []
    assert run_stack(POLICY, cos_stack([{"filterPrefix": "logs/", "expiration": {"days": 1}}])) == []
    assert (
        run_stack(POLICY, cos_stack([{"filterPrefix": "", "nonCurrentExpiration": {"nonCurrentDays": 1}}]))
        == []
    )
    # A track delivering to CLS is judged by its topic's period, not by a bucket of the same name.
    assert run_stack(POLICY, cos_stack([{"expiration": {"days": 1}}], storage_type="cls")) == []
