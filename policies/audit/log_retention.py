"""GF-AUD-002: log groups, log stores and audit topics are retained at least `min_days` days.

- AWS `aws:cloudwatch/logGroup:LogGroup.retentionInDays`: unset or 0 means "never expire", which
  satisfies any minimum. `aws:cloudtrail/eventDataStore:EventDataStore.retentionPeriod`: unset means
  the service default of 2,555 days.
- Alibaba Cloud `alicloud:log/store:Store.retentionPeriod` (SLS logstore, the store ActionTrail
  writes to): unset means the provider default of 30 days; 3650 means permanent.
- Tencent Cloud `tencentcloud:Cls/topic:Topic.period` (CLS topic, where CloudAudit tracks deliver):
  unset means the log set's period, 30 days by default; 3640 means permanent.

Kubernetes has no log-retention resource of its own; the rule does not apply to it. Audit logs
delivered to buckets (S3, OSS, COS) are kept by the bucket lifecycle, which the storage rules judge.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.props import as_int, get
from policies.rule import GfResourcePolicy, Rule

AWS_LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
AWS_EVENT_DATA_STORE = "aws:cloudtrail/eventDataStore:EventDataStore"
ALI_LOG_STORE = "alicloud:log/store:Store"
TC_CLS_TOPIC = "tencentcloud:Cls/topic:Topic"

# type -> (kind, retention property, meaning of "unset", days when unset (None = never expires))
RETAINED: dict[str, tuple[str, str, str, int | None]] = {
    AWS_LOG_GROUP: ("CloudWatch log group", "retentionInDays", "never expire", None),
    AWS_EVENT_DATA_STORE: ("CloudTrail event data store", "retentionPeriod", "2555 days", 2555),
    ALI_LOG_STORE: ("SLS logstore", "retentionPeriod", "the provider default of 30 days", 30),
    TC_CLS_TOPIC: ("CLS topic", "period", "the log set's period, 30 days by default", 30),
}

RULE = Rule(
    id="GF-AUD-002",
    name="log-retention-minimum",
    description="Log groups, log stores and audit topics are retained at least N days.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "AWS: set aws.cloudwatch.LogGroup retention_in_days to at least min_days (e.g. 180, or leave it "
        "unset to never expire) and keep CloudTrail event data store retention_period at least that. "
        "Alibaba Cloud: set alicloud.log.Store retention_period >= min_days (3650 keeps logs forever). "
        "Tencent Cloud: set tencentcloud.cls.Topic period >= min_days (3640 keeps logs forever)."
    ),
    url="https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Working-with-log-groups-and-streams.html#SettingLogRetention",
    config={"min_days": {"type": "integer", "minimum": 1, "default": 180}},
    checkov=("CKV_AWS_338",),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    spec = RETAINED.get(args.resource_type)
    if spec is None:
        return
    kind, prop, unset_means, unset_days = spec
    min_days = int(RULE.settings(args)["min_days"])
    days = as_int(get(args.props, prop))
    if days is None or (args.resource_type == AWS_LOG_GROUP and days == 0):
        if unset_days is not None and unset_days < min_days:
            report(
                f"{kind} '{args.name}' has no {prop}, so it keeps logs for {unset_means}; "
                f"set {prop} to at least {min_days} days",
                None,
            )
        return
    if days < min_days:
        report(
            f"{kind} '{args.name}' keeps logs for {days} days ({prop}); keep them at least {min_days} days",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate)
