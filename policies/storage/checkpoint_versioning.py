"""GF-STOR-007: checkpoint buckets are versioned, with noncurrent versions expired.

Versioning: S3 inline `versioning.enabled` / `versionings[].enabled` or `BucketVersioning[V2]`
`versioningConfiguration.status` Enabled; OSS inline `versioning.status` or `oss.BucketVersioning`
`status` Enabled; COS `versioningEnable`. Noncurrent expiry: an enabled lifecycle rule expiring
noncurrent versions after at most `noncurrent_days` (S3 `noncurrentVersionExpiration.noncurrentDays`
or inline `days`, OSS `noncurrentVersionExpirations[].days`, COS `nonCurrentExpiration.nonCurrentDays`).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage._buckets import (
    BUCKET_CLOUDS,
    PARTS,
    Bucket,
    bucket_lifecycle,
    checkpoint_buckets,
    is_versioned,
    judge_buckets,
)

RULE = Rule(
    id="GF-STOR-007",
    name="checkpoint-bucket-versioning",
    description="Checkpoint buckets are versioned, with noncurrent versions expired.",
    clouds=clouds_with(PARTS, "VERSIONING_REMEDIATION"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=by_cloud_name(PARTS, "VERSIONING_REMEDIATION"),
    url=sole(PARTS, "VERSIONING_URL"),
    config={
        "noncurrent_days": {"type": "integer", "minimum": 1, "default": 7},
        "checkpoint_tag": {"type": "string", "default": "purpose=checkpoints"},
    },
    checkov=chained(PARTS, "VERSIONING_CHECKOV"),
)


def bucket_problems(bucket: Bucket, noncurrent_days: int) -> list[str]:
    if not is_versioned(bucket):
        return [f"{bucket.label} is a checkpoint bucket but is not versioned; enable versioning"]
    days = [r.noncurrent_expiration_days for r in bucket_lifecycle(bucket) if r.noncurrent_expiration_days]
    if not days:
        return [
            f"{bucket.label} is versioned but never expires noncurrent versions; expire them after at most "
            f"{noncurrent_days} days"
        ]
    if min(days) > noncurrent_days:
        return [
            f"{bucket.label} expires noncurrent versions after {min(days)} days; expire them after at most "
            f"{noncurrent_days} days"
        ]
    return []


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    selector = str(settings["checkpoint_tag"])
    checkpoints = checkpoint_buckets(args, selector)
    noncurrent_days = int(settings["noncurrent_days"])
    judge_buckets(report, checkpoints, lambda bucket: bucket_problems(bucket, noncurrent_days))


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
