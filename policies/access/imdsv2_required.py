"""GF-ACC-004: instance metadata requires IMDSv2 tokens, with a hop limit of at most 2.

AWS only. Judged: `metadataOptions` of `aws:ec2/instance:Instance`,
`aws:ec2/spotInstanceRequest:SpotInstanceRequest`, `aws:ec2/launchTemplate:LaunchTemplate`,
`aws:ec2/launchConfiguration:LaunchConfiguration`, and the account-wide
`aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults`. Unset `httpTokens` means "optional"
(IMDSv1 allowed) and fails; an unset hop limit is 1 and passes; `httpEndpoint: disabled` turns the
metadata service off, which passes. An instance launched from a launch template without metadata
options of its own takes them from the template, which is judged instead.

Alibaba Cloud and Tencent Cloud resources are not applicable: the rule is AWS-only in the catalogue.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.props import as_int, get, is_set
from policies.rule import GfResourcePolicy, Rule

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_INSTANCE = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_METADATA_DEFAULTS = "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults"

_LABELS = {
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_INSTANCE: "EC2 spot instance request",
    AWS_LAUNCH_TEMPLATE: "EC2 launch template",
    AWS_LAUNCH_CONFIGURATION: "EC2 launch configuration",
    AWS_METADATA_DEFAULTS: "EC2 instance metadata defaults",
}
_OTHER_CLOUD_COMPUTE = frozenset(
    {
        "alicloud:ecs/instance:Instance",
        "alicloud:ecs/launchTemplate:LaunchTemplate",
        "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
        "alicloud:ess/scalingConfiguration:ScalingConfiguration",
        "tencentcloud:Instance/instance:Instance",
        "tencentcloud:As/scalingConfig:ScalingConfig",
        "tencentcloud:Cvm/launchTemplate:LaunchTemplate",
    }
)

RULE = Rule(
    id="GF-ACC-004",
    name="imdsv2-required",
    description="Instance metadata requires IMDSv2 tokens, hop limit at most 2.",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Set `metadataOptions: {httpTokens: required, httpPutResponseHopLimit: 2}` (hop limit 1 or 2) on "
        "aws.ec2.Instance, aws.ec2.LaunchTemplate and aws.ec2.LaunchConfiguration, and `httpTokens: "
        "required` on aws.ec2.InstanceMetadataDefaults."
    ),
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-new-instances.html",
    config={"max_hop_limit": {"type": "integer", "default": 2}},
    checkov=("CKV_AWS_79", "CKV_AWS_341"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type in _OTHER_CLOUD_COMPUTE:
        args.not_applicable("GF-ACC-004 is AWS-only: Alibaba Cloud and Tencent Cloud are not judged")
    if args.resource_type not in _LABELS:
        return
    props = args.props
    is_defaults = args.resource_type == AWS_METADATA_DEFAULTS
    prefix = "" if is_defaults else "metadataOptions."
    if (
        args.resource_type in (AWS_INSTANCE, AWS_SPOT_INSTANCE)
        and get(props, "metadataOptions") is None
        and is_set(props, "launchTemplate")
    ):
        args.not_applicable("metadata options come from the instance's launch template, judged on its own")
    endpoint = get(props, f"{prefix}httpEndpoint")
    if isinstance(endpoint, str) and endpoint.lower() == "disabled":
        return
    label = f"{_LABELS[args.resource_type]} '{args.name}'"
    problems = []
    tokens = get(props, f"{prefix}httpTokens")
    if is_defaults and tokens in (None, "", "no-preference"):
        problems.append(f"leaves httpTokens at {tokens or 'no-preference'!r}")
    elif not is_defaults and str(tokens or "optional").lower() != "required":
        problems.append(f"allows IMDSv1 (httpTokens is {tokens or 'unset (optional)'!s})")
    elif is_defaults and str(tokens).lower() != "required":
        problems.append(f"allows IMDSv1 (httpTokens is {tokens})")
    limit = as_int(get(props, f"{prefix}httpPutResponseHopLimit"))
    max_hop = int(RULE.settings(args)["max_hop_limit"])
    if limit is not None and limit > max_hop:
        problems.append(f"has metadata hop limit {limit}")
    if problems:
        report(
            f"{label} {' and '.join(problems)}; require IMDSv2 tokens (httpTokens: required) "
            f"with a hop limit of at most {max_hop}",
            None,
        )


POLICY = GfResourcePolicy(RULE, validate)
