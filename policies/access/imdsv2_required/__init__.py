"""GF-ACC-004: instance metadata requires IMDSv2 tokens, with a hop limit of at most 2.

AWS only. Judged: `metadataOptions` of `aws:ec2/instance:Instance`,
`aws:ec2/spotInstanceRequest:SpotInstanceRequest`, `aws:ec2/launchTemplate:LaunchTemplate`,
`aws:ec2/launchConfiguration:LaunchConfiguration`, and the account-wide
`aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults`. Unset `httpTokens` means "optional"
(IMDSv1 allowed) and fails, unless it is set elsewhere (below). An unset hop limit passes (1, or what
the image or the account default sets); `httpEndpoint: disabled` turns the metadata service off,
which passes. An instance launched from a launch template without metadata options of its own takes
them from the template, which is judged instead.

A stack policy, because an unset `httpTokens` takes its value from elsewhere, and two such sources
are provable from the stack itself:

- Account defaults: an `InstanceMetadataDefaults` with `httpTokens: required` (and a hop limit
  within the maximum, or none) in the same stack makes every launch in its region (or in any region,
  when either region is unknown) that leaves `httpTokens` unset require tokens. A launch that sets
  `httpTokens: optional` itself overrides the default and still fails, and so does its own hop limit.
- The image: an AMI whose `ImdsSupport` is `v2.0` makes its instances require tokens with a hop
  limit of 2. Provable here: an image referenced as the public SSM parameter of Amazon Linux 2023
  (`resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-...`, resolved by EC2 at launch; every
  AL2023 AMI is registered with `ImdsSupport: v2.0`; instances, spot requests and launch templates take
  such a reference, launch configurations only AMI ids), or an `aws:ec2/ami:Ami` (or `amiCopy`,
  `amiFromInstance`) in the stack with `imdsSupport: v2.0`.

Not provable, and so not credited: an AMI id looked up at deployment time (`aws.ec2.get_ami` with an
`al2023-ami-*` name filter, `aws.ssm.get_parameter` on the same SSM path). Invoke results are not part
of the resource graph the engine hands to policies: the instance carries only the id string
(`ami-0abc...`), which says nothing about the image. Such programs pass by setting
`metadataOptions.httpTokens: required`, by naming the image through `resolve:ssm:`, or by an
`InstanceMetadataDefaults` resource.

Alibaba Cloud and Tencent Cloud resources are not applicable: the rule is AWS-only in the catalogue.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import CLOUDS, cloud_parts, part_merged, profile
from gpufleet.policies.rule import GfStackPolicy, Rule
from gpufleet.policies.rule_facts import chained, joined, sole

# Each judged cloud's part of the rule: `LABELS` (the kinds it judges), `SUBJECT_TEXT`, `judge_stack`,
# `REMEDIATION`, `URL`, `CHECKOV`.
PARTS = cloud_parts(__name__)
_SUBJECTS: dict[str, str] = part_merged(PARTS, "LABELS")

RULE = Rule(
    id="GF-ACC-004",
    name="imdsv2-required",
    description="Instance metadata requires IMDSv2 tokens, hop limit at most 2.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=joined(PARTS, "REMEDIATION", " "),
    url=sole(PARTS, "URL"),
    config={"max_hop_limit": {"type": "integer", "default": 2}},
    checkov=chained(PARTS, "CHECKOV"),
)

_JUDGED = " and ".join(profile(key).name for key in PARTS)
_NOT_JUDGED = " and ".join(profile(key).name for key in CLOUDS if key not in PARTS)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    if not any(r.resource_type in _SUBJECTS for r in args.resources):
        args.not_applicable(
            f"the stack has no {joined(PARTS, 'SUBJECT_TEXT', ' or ')} "
            f"(GF-ACC-004 is {_JUDGED}-only: {_NOT_JUDGED} are not judged)"
        )
    max_hop = int(RULE.settings(args)["max_hop_limit"])
    for part in PARTS.values():
        part.judge_stack(list(args.resources), max_hop, report)


POLICY = GfStackPolicy(RULE, validate)
