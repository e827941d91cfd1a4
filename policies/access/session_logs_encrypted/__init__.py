"""GF-ACC-006: Session Manager session logs are encrypted and retained.

AWS only (advisory). A stack that runs EC2 GPU compute (instances, spot requests, Auto Scaling
groups, fleets, GPU launch templates/configurations) should define the account's Session Manager
preferences: `aws:ssm/document:Document` named `SSM-SessionManagerRunShell` with `documentType:
Session`, whose `content` (JSON or YAML, per `documentFormat`) has `inputs` that either
- send sessions to CloudWatch Logs (`cloudWatchLogGroupName`) with `cloudWatchEncryptionEnabled:
  true`, the log group (`aws:cloudwatch/logGroup:LogGroup`, joined by name or by the content's
  property dependency) having a `kmsKeyId`; or
- send them to S3 (`s3BucketName`) with `s3EncryptionEnabled: true` (the bucket's own encryption and
  lifecycle are judged by the storage rules).
Retention length is GF-AUD-002's concern (an unset retention keeps logs forever). A Session
document with another name is a custom session type that plain `start-session` does not use.
A stack whose preferences are its account's baseline stack's (AWS keeps one preferences document per
account and region, so with several stacks in an account only one may own it) says so with the stack
tag `baseline_stack_tag` (default `gpufleet:account-baseline-stack`, e.g. set from `pulumi:tags`
config), whose value names the stack that owns it; the rule is then not applicable here and judges
the document in that stack.
Alibaba Cloud and Tencent Cloud are not judged (AWS-only rule).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts
from gpufleet.policies.rule import GfStackPolicy, Rule
from gpufleet.policies.rule_facts import chained, joined, sole

# Each judged cloud's part of the rule: `judge_stack`, `REMEDIATION`, `URL`, `CHECKOV`.
PARTS = cloud_parts(__name__)

RULE = Rule(
    id="GF-ACC-006",
    name="session-logs-encrypted",
    description="Session-manager session logs are encrypted and retained.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=joined(PARTS, "REMEDIATION", " "),
    url=sole(PARTS, "URL"),
    config={"baseline_stack_tag": {"type": "string", "default": "gpufleet:account-baseline-stack"}},
    checkov=chained(PARTS, "CHECKOV"),
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    baseline_tag = str(RULE.settings(args)["baseline_stack_tag"])
    for part in PARTS.values():
        part.judge_stack(args, baseline_tag, report)


POLICY = GfStackPolicy(RULE, validate)
