"""AWS facts of the audit rules: CloudTrail trails (what a compliant one sets, where one delivers in
S3), CloudWatch log groups and CloudTrail event data stores (their retention, and the customer-managed
key GF-AUD-003 asks of a log group), and the AWS words of each rule's remediation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import get, get_ref, truthy

TRAIL = "aws:cloudtrail/trail:Trail"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
EVENT_DATA_STORE = "aws:cloudtrail/eventDataStore:EventDataStore"


# --- GF-AUD-001 a trail per cloud ---
def _trail_defect(props: Mapping[str, Any]) -> str | None:
    if not truthy(get(props, "isMultiRegionTrail", False)):
        return "is single-region (isMultiRegionTrail is not true)"
    if get(props, "enableLogging") is not None and not truthy(get(props, "enableLogging")):
        return "has logging turned off (enableLogging false)"
    return None


# token -> (kind, what is wrong with one (None: compliant))
TRAILS = {TRAIL: ("CloudTrail trail", _trail_defect)}
TRAIL_KIND = "a CloudTrail trail (aws.cloudtrail.Trail, isMultiRegionTrail=true)"
TRAIL_SHORT = "CloudTrail multi-region"
TRAIL_REMEDIATION = (
    "AWS: add aws.cloudtrail.Trail with is_multi_region_trail=True (and leave enable_logging true)."
)

# --- GF-AUD-002 retention: trails that deliver to a bucket, and the stores that keep logs ---
DELIVERING_TRAILS = {TRAIL: "CloudTrail trail"}
TRAIL_BUCKET = "CloudTrail to S3"
# The separate lifecycle resources of a bucket, whose rule list is `rules` (not `lifecycleRules`).
LIFECYCLE_RULES_KEYS = {
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": "rules",
    "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2": "rules",
}


def delivery_target(props: Mapping[str, Any]) -> tuple[Any, Any, str, str] | None:
    """(bucket name, key prefix, dependency key, service path): CloudTrail writes
    `<s3KeyPrefix>/AWSLogs/<account>/CloudTrail/...`."""
    return get_ref(props, "s3BucketName"), get(props, "s3KeyPrefix"), "s3BucketName", "AWSLogs/"


# type -> (kind, retention property, meaning of "unset", days when unset (None = never expires))
RETAINED: dict[str, tuple[str, str, str, int | None]] = {
    LOG_GROUP: ("CloudWatch log group", "retentionInDays", "never expire", None),
    EVENT_DATA_STORE: ("CloudTrail event data store", "retentionPeriod", "2555 days", 2555),
}
# Types whose retention of 0 means "never expire", as when unset.
ZERO_IS_UNSET = frozenset({LOG_GROUP})
RETENTION_REMEDIATION = (
    "AWS: set aws.cloudwatch.LogGroup retention_in_days to at least min_days (e.g. 180, or leave it "
    "unset to never expire) and keep CloudTrail event data store retention_period at least that."
)

# --- GF-AUD-003 log groups under a customer-managed key ---
KMS_LOG_GROUPS = frozenset({LOG_GROUP})
KMS_LOG_GROUPS_NAME = "AWS CloudWatch log groups"
KMS_REMEDIATION = (
    "Set kms_key_id on aws.cloudwatch.LogGroup to the ARN of a customer-managed aws.kms.Key whose key "
    "policy lets the logs.<region>.amazonaws.com principal use it (kms:Encrypt*, kms:Decrypt*, "
    "kms:ReEncrypt*, kms:GenerateDataKey*, kms:Describe*)."
)

URLS = {
    "GF-AUD-001": (
        "https://docs.aws.amazon.com/awscloudtrail/latest/userguide/"
        "receive-cloudtrail-log-files-from-multiple-regions.html"
    ),
    "GF-AUD-002": (
        "https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/"
        "Working-with-log-groups-and-streams.html#SettingLogRetention"
    ),
    "GF-AUD-003": "https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html",
}
CHECKOV = {"GF-AUD-001": ("CKV_AWS_67",), "GF-AUD-002": ("CKV_AWS_338",), "GF-AUD-003": ("CKV_AWS_158",)}
