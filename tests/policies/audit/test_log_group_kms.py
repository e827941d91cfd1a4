from __future__ import annotations

from gpufleet.policies.audit.log_group_kms import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, run_resource

LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
MISSING = (
    "CloudWatch log group 'ssm' has no kmsKeyId, so it uses the service-owned key; "
    "set kmsKeyId to a customer-managed KMS key"
)


def test_metadata() -> None:
    assert RULE.id == "GF-AUD-003"
    assert RULE.clouds == ("aws",)
    assert POLICY.enforcement_level.value == "advisory"


def test_key_given() -> None:
    props = {"retentionInDays": 180, "kmsKeyId": "arn:aws:kms:us-east-1:123456789012:key/abc"}
    assert run_resource(POLICY, LOG_GROUP, props, name="ssm") == []


def test_key_created_in_the_same_program_counts_as_set() -> None:
    props = {"kmsKeyId": UNKNOWN_STRING_VALUE}
    assert run_resource(POLICY, LOG_GROUP, props, name="ssm") == []
    assert run_resource(POLICY, LOG_GROUP, props, name="ssm", proxy=True) == []


def test_no_key() -> None:
    assert run_resource(POLICY, LOG_GROUP, {"retentionInDays": 180}, name="ssm") == [MISSING]
    assert run_resource(POLICY, LOG_GROUP, {"kmsKeyId": ""}, name="ssm", proxy=True) == [MISSING]


def test_other_types_ignored() -> None:
    assert run_resource(POLICY, "aws:s3/bucket:Bucket", {"bucket": "b"}) == []


def test_other_clouds_log_stores_are_not_applicable() -> None:
    reason = "N/A: GF-AUD-003 covers AWS CloudWatch log groups only; SLS and CLS use service keys"
    assert run_resource(POLICY, "alicloud:log/store:Store", {"retentionPeriod": 180}) == reason
    assert run_resource(POLICY, "tencentcloud:Cls/topic:Topic", {"period": 180}) == reason
