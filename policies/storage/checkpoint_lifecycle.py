"""GF-STOR-005: checkpoint buckets have a lifecycle.

A checkpoint bucket (tagged `checkpoint_tag`, default `purpose=checkpoints`) needs, among its enabled
lifecycle rules (inline or on joined lifecycle configurations, any filter):

- a transition into an infrequent-access capable class after at most `transition_days`;
- an expiration after at most `expire_days`;
- an abort of incomplete multipart uploads.

Infrequent-access capable means any class colder than standard (`_storage_classes`); on S3 this
includes INTELLIGENT_TIERING, which takes objects at any age, has no minimum storage duration and
moves them to its infrequent tier after 30 days without access: it is how an early move is done on
S3, where STANDARD_IA needs 30 days. A transition is required only where the cloud has such a class
that fits between `transition_days` and the bucket's expiry without billing beyond it and that pays
off before the expiry (see GF-STOR-006), each minimum counted as the cloud bills it. With a 30-day
expiry no class fits on S3 (Intelligent-Tiering would reach its cheaper tier after the objects are
gone) or COS (30 days from the move): only the expiry and the multipart cleanup are asked for there.
OSS counts IA's 30 days from the object's creation, so a move to IA at day 7 is billed nothing beyond
a 30-day expiry and is asked for.
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
    judge_buckets,
)
from gpufleet.policies.storage._storage_classes import cheapest_fit, storage_class

RULE = Rule(
    id="GF-STOR-005",
    name="checkpoint-bucket-lifecycle",
    description=(
        "Checkpoint buckets have a lifecycle: move to an infrequent-access class after at most N days, "
        "expire after at most M days, abort incomplete multipart uploads."
    ),
    clouds=clouds_with(PARTS, "CHECKPOINT_LIFECYCLE_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=by_cloud_name(PARTS, "CHECKPOINT_LIFECYCLE_REMEDIATION"),
    url=sole(PARTS, "CHECKPOINT_LIFECYCLE_URL"),
    config={
        "transition_days": {"type": "integer", "minimum": 0, "default": 7},
        "expire_days": {"type": "integer", "minimum": 1, "default": 30},
        "checkpoint_tag": {"type": "string", "default": "purpose=checkpoints"},
    },
    checkov=chained(PARTS, "CHECKPOINT_LIFECYCLE_CHECKOV"),
)


def bucket_problems(bucket: Bucket, transition_days: int, expire_days: int) -> list[str]:
    rules = bucket_lifecycle(bucket)
    problems = []
    expiries = [r.expiration_days for r in rules if r.expiration_days is not None]
    if not expiries or min(expiries) > expire_days:
        shown = f"expires objects after {min(expiries)} days" if expiries else "has no expiration"
        problems.append(
            f"{bucket.label} is a checkpoint bucket but its lifecycle {shown}; expire them after at most "
            f"{expire_days} days"
        )
    expiry = min([*expiries, expire_days])
    fit = cheapest_fit(bucket.cloud, transition_days, expiry)
    moved = [
        t
        for r in rules
        for t in r.transitions
        if storage_class(bucket.cloud, t.storage_class) is not None
        and t.days is not None
        and t.days <= transition_days
    ]
    if fit is not None and not moved:
        problems.append(
            f"{bucket.label} is a checkpoint bucket but its lifecycle moves nothing to an infrequent-access "
            f"class within {transition_days} days; transition to {fit.name} after at most {transition_days} "
            "days"
        )
    if not any(r.abort_days is not None for r in rules):
        problems.append(
            f"{bucket.label} is a checkpoint bucket but its lifecycle does not abort incomplete multipart "
            "uploads; add an abort after a few days"
        )
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    selector = str(settings["checkpoint_tag"])
    checkpoints = checkpoint_buckets(args, selector)
    transition_days, expire_days = int(settings["transition_days"]), int(settings["expire_days"])
    judge_buckets(report, checkpoints, lambda bucket: bucket_problems(bucket, transition_days, expire_days))


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))
