"""GF-AUD-002: log groups, log stores and audit topics are retained at least `min_days` days.

- AWS `aws:cloudwatch/logGroup:LogGroup.retentionInDays`: unset or 0 means "never expire", which
  satisfies any minimum. `aws:cloudtrail/eventDataStore:EventDataStore.retentionPeriod`: unset means
  the service default of 2,555 days.
- Alibaba Cloud `alicloud:log/store:Store.retentionPeriod` (SLS logstore, the store ActionTrail
  writes to): unset means the provider default of 30 days; 3650 means permanent.
- Tencent Cloud `tencentcloud:Cls/topic:Topic.period` (CLS topic, where CloudAudit tracks deliver):
  unset means the log set's period, 30 days by default; 3640 means permanent.

Audit delivered to a bucket is kept as long as that bucket's lifecycle allows: a CloudTrail trail
(`s3BucketName`), an ActionTrail trail (`ossBucketName`) or a CloudAudit track with COS storage whose
bucket is in the stack is a finding on the trail, naming the bucket and the rule, when a lifecycle
rule that reaches the trail's files expires them in fewer than `min_days` days or on a fixed date.
A rule reaches them when it is enabled, has no tag filter (the services write untagged objects), and
its prefix and the trail's key path start one with the other: `<s3KeyPrefix>/AWSLogs/` for
CloudTrail, `<ossKeyPrefix>/AliyunLogs/Actiontrail/` for ActionTrail, `<storagePrefix>/` for
CloudAudit (a rule narrower than the path still deletes part of the logs). The bucket's inline
`lifecycleRules` and the separate `aws:s3/bucketLifecycleConfiguration[V2]` resources count; only
expiry of current objects deletes logs (noncurrent-version expiry and transitions do not). A bucket
with no such expiry keeps the files for ever and passes. A trail whose bucket is not managed in the
stack (a literal name of another stack's bucket) is not judged here: its lifecycle is not visible.

Kubernetes has no log-retention resource of its own; the rule does not apply to it.
"""

from __future__ import annotations

from functools import partial

from pulumi_policy import EnforcementLevel, PolicyResource, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts, part_merged, part_union
from gpufleet.policies.audit._delivery import TRAILS, delivery, expiries
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_int, get
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import clouds_with, joined, rule_checkov, rule_url
from gpufleet.policies.storage._buckets import BucketIndex

# Each cloud's module gives `RETAINED` (its log stores), may give `ZERO_IS_UNSET` (stores whose
# retention 0 means "never expire"), and the remediation's words (`TRAIL_BUCKET`, `RETENTION_REMEDIATION`).
PARTS = cloud_parts("gpufleet.policies.audit")

# type -> (kind, retention property, meaning of "unset", days when unset (None = never expires))
RETAINED: dict[str, tuple[str, str, str, int | None]] = part_merged(PARTS, "RETAINED")
_ZERO_IS_UNSET = part_union(PARTS, "ZERO_IS_UNSET")

RULE = Rule(
    id="GF-AUD-002",
    name="log-retention-minimum",
    description="Log groups, log stores and audit topics are retained at least N days.",
    clouds=clouds_with(PARTS, "RETAINED"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        f"Audit trails delivered to a bucket ({joined(PARTS, 'TRAIL_BUCKET', ', ')}): "
        "expire the trail's files no sooner than min_days, or not at all, in the bucket's lifecycle. "
        + joined(PARTS, "RETENTION_REMEDIATION", " ")
    ),
    url=rule_url(PARTS, "GF-AUD-002"),
    config={"min_days": {"type": "integer", "minimum": 1, "default": 180}},
    checkov=rule_checkov(PARTS, "GF-AUD-002"),
)


def _judge_store(resource: PolicyResource, min_days: int, report: ReportViolation) -> None:
    kind, prop, unset_means, unset_days = RETAINED[resource.resource_type]
    days = as_int(get(resource.props, prop))
    if days is None or (resource.resource_type in _ZERO_IS_UNSET and days == 0):
        if unset_days is not None and unset_days < min_days:
            report(
                f"{kind} '{resource.name}' has no {prop}, so it keeps logs for {unset_means}; "
                f"set {prop} to at least {min_days} days",
                resource.urn,
            )
        return
    if days < min_days:
        report(
            f"{kind} '{resource.name}' keeps logs for {days} days ({prop}); "
            f"keep them at least {min_days} days",
            resource.urn,
        )


def _judge_trail(
    resource: PolicyResource, buckets: BucketIndex, min_days: int, report: ReportViolation
) -> None:
    target = delivery(resource, buckets)
    if target is None:
        return
    kind = TRAILS[resource.resource_type][0]
    for expiry in expiries(target):
        if expiry.days is not None and expiry.days >= min_days:
            continue
        when = f"after {expiry.days} days" if expiry.days is not None else f"on {expiry.date}"
        report(
            f"{kind} '{resource.name}' delivers to {target.bucket.label}, whose lifecycle rule "
            f"'{expiry.rule}' expires the trail's files {when}; keep audit logs at least {min_days} days "
            "(expire them later, or not at all)",
            resource.urn,
        )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    stores = [r for r in args.resources if r.resource_type in RETAINED]
    trails = [r for r in args.resources if r.resource_type in TRAILS]
    if not stores and not trails:
        args.not_applicable("the stack has no log group, log store, log topic or audit trail")
    min_days = int(RULE.settings(args)["min_days"])
    for resource in stores:
        judge(resource.urn, partial(_judge_store, resource, min_days, report))
    if trails:
        buckets = per_stack(BucketIndex, args.resources)
        for resource in trails:
            judge(resource.urn, partial(_judge_trail, resource, buckets, min_days, report))


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(RETAINED, TRAILS),
)
