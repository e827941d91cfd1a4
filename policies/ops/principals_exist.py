"""GF-OPS-002: key, bucket, topic and queue policies name only principals that exist when they are set.

KMS, S3, SNS and SQS reject a resource policy whose `AWS` principal names a role or user that does
not exist (KMS: MalformedPolicyDocumentException). On a fresh account that includes the service-linked
roles, which AWS creates only on the first use of their service: `AWSServiceRoleForAutoScaling`
appears with the account's first Auto Scaling group, too late for a key created before it.

Policies read (pulumi-aws 7): `policy` of `aws:kms/key:Key`, `aws:kms/externalKey:ExternalKey`,
`aws:kms/replicaKey:ReplicaKey`, `aws:kms/replicaExternalKey:ReplicaExternalKey`,
`aws:kms/keyPolicy:KeyPolicy`, `aws:s3/bucketPolicy:BucketPolicy` (and a bucket's own legacy `policy`),
`aws:sns/topicPolicy:TopicPolicy`, `aws:sns/topic:Topic`, `aws:sqs/queuePolicy:QueuePolicy` and
`aws:sqs/queue:Queue`.

Each `AWS` principal that is an IAM role or user ARN must be
- a service-linked role (`role/aws-service-role/<service>/...`) whose `aws:iam/serviceLinkedRole`
  for that service is in the stack, and the policy's resource must depend on it (otherwise the engine
  may create the policy first);
- another role or user that the stack creates (an `aws:iam/role` or `aws:iam/user` with that ARN or
  name);
- or listed in config `existing_principals` (full ARN, or the role or user name).
Account principals (`arn:aws:iam::<account>:root`, a bare account id), service principals and
references unknown at preview (an ARN of a resource of the same program) always exist.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost.pools import ResourceView
from gpufleet.policies.ops._common import fragments, part_of_type, parts, rule_url, stack_index
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import sole

# Each cloud module that judges policy principals holds the policy types (`POLICY_HOLDERS`: type ->
# what the finding calls it), the rule's text and `principal_problems`; today only AWS's does, so the
# rule's description and remediation are that module's (`sole` refuses, naming the modules, a second
# cloud that adds its own without rewording the rule).
POLICY_HOLDERS: dict[str, str] = {}
for _holders in fragments("POLICY_HOLDERS").values():
    POLICY_HOLDERS.update(_holders)
_DESCRIPTION = str(sole(parts(), "PRINCIPALS_DESCRIPTION"))
_REMEDIATION = str(sole(parts(), "PRINCIPALS_REMEDIATION"))

RULE = Rule(
    id="GF-OPS-002",
    name="policy-principals-exist",
    description=_DESCRIPTION,
    clouds=tuple(fragments("POLICY_HOLDERS")),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.HIGH,
    remediation=_REMEDIATION,
    url=rule_url("GF-OPS-002"),
    config={"existing_principals": {"type": "array", "items": {"type": "string"}, "default": []}},
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    existing = [str(item) for item in RULE.settings(args)["existing_principals"] or []]
    index = stack_index(args)
    holders = index.of_type(*POLICY_HOLDERS)
    if not holders:
        args.not_applicable("the stack sets no key, bucket, topic or queue policy")
    for holder in holders:

        def check(holder: ResourceView = holder) -> None:
            for problem in part_of_type(holder.resource_type).principal_problems(index, holder, existing):
                report(problem, holder.urn)

        judge(holder.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(POLICY_HOLDERS),
)
