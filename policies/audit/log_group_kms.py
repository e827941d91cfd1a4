"""GF-AUD-003: CloudWatch log groups are encrypted with a customer-managed KMS key.

AWS only (`aws:cloudwatch/logGroup:LogGroup.kmsKeyId`). A key created in the same program arrives
as an unknown reference at preview and counts as set. Alibaba SLS and Tencent CLS encrypt at rest
with service keys and are outside this rule's row.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_union, part_values
from gpufleet.policies.props import is_set
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import clouds_with, joined, rule_checkov, rule_url

# A cloud whose module lists `KMS_LOG_GROUPS` (and `KMS_LOG_GROUPS_NAME`, `KMS_REMEDIATION`) is judged;
# one that lists `SERVICE_KEY_LOGS` (named `SERVICE_KEY_LOGS_NAME`) encrypts its logs with service keys.
PARTS = cloud_parts("gpufleet.policies.audit")
LOG_GROUPS = part_union(PARTS, "KMS_LOG_GROUPS")
OTHER_CLOUD_LOGS = tuple(
    token for tokens in part_values(PARTS, "SERVICE_KEY_LOGS").values() for token in tokens
)
_NOT_APPLICABLE = (
    f"GF-AUD-003 covers {joined(PARTS, 'KMS_LOG_GROUPS_NAME', ' and ')} only; "
    f"{joined(PARTS, 'SERVICE_KEY_LOGS_NAME', ' and ')} use service keys"
)

RULE = Rule(
    id="GF-AUD-003",
    name="log-group-kms-encrypted",
    description="Log groups are encrypted with a KMS key.",
    clouds=clouds_with(PARTS, "KMS_LOG_GROUPS"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation=joined(PARTS, "KMS_REMEDIATION", " "),
    url=rule_url(PARTS, "GF-AUD-003"),
    checkov=rule_checkov(PARTS, "GF-AUD-003"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type in OTHER_CLOUD_LOGS:
        args.not_applicable(_NOT_APPLICABLE)
    if args.resource_type not in LOG_GROUPS:
        return
    if not is_set(args.props, "kmsKeyId"):
        report(
            f"CloudWatch log group '{args.name}' has no kmsKeyId, so it uses the service-owned key; "
            "set kmsKeyId to a customer-managed KMS key",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate, judges(LOG_GROUPS, OTHER_CLOUD_LOGS))
