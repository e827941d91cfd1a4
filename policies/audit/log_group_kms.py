"""GF-AUD-003: CloudWatch log groups are encrypted with a customer-managed KMS key.

AWS only (`aws:cloudwatch/logGroup:LogGroup.kmsKeyId`). A key created in the same program arrives
as an unknown reference at preview and counts as set. Alibaba SLS and Tencent CLS encrypt at rest
with service keys and are outside this rule's row.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.props import is_set
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

AWS_LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
OTHER_CLOUD_LOGS = ("alicloud:log/store:Store", "tencentcloud:Cls/topic:Topic")

RULE = Rule(
    id="GF-AUD-003",
    name="log-group-kms-encrypted",
    description="Log groups are encrypted with a KMS key.",
    clouds=("aws",),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=(
        "Set kms_key_id on aws.cloudwatch.LogGroup to the ARN of a customer-managed aws.kms.Key whose key "
        "policy lets the logs.<region>.amazonaws.com principal use it (kms:Encrypt*, kms:Decrypt*, "
        "kms:ReEncrypt*, kms:GenerateDataKey*, kms:Describe*)."
    ),
    url="https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html",
    checkov=("CKV_AWS_158",),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type in OTHER_CLOUD_LOGS:
        args.not_applicable("GF-AUD-003 covers AWS CloudWatch log groups only; SLS and CLS use service keys")
    if args.resource_type != AWS_LOG_GROUP:
        return
    if not is_set(args.props, "kmsKeyId"):
        report(
            f"CloudWatch log group '{args.name}' has no kmsKeyId, so it uses the service-owned key; "
            "set kmsKeyId to a customer-managed KMS key",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate, judges(AWS_LOG_GROUP, OTHER_CLOUD_LOGS))
