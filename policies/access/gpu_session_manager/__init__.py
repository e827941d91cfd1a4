"""GF-ACC-003: every GPU instance is reachable by a session manager instead of SSH.

A stack policy: reachability is a join across resources.

- AWS (Systems Manager Session Manager): the instance's profile role must grant the agent's
  session permissions. Judged for GPU `aws:ec2/instance:Instance`, `spotInstanceRequest`,
  `aws:autoscaling/group:Group`, and GPU launch templates/configurations that nothing in the stack
  uses. Join: `iamInstanceProfile` (own, or the launch template's/configuration's) ->
  `aws:iam/instanceProfile:InstanceProfile` -> `role` -> `aws:iam/role:Role` -> AWS managed
  AmazonSSMManagedInstanceCore (or AmazonSSMManagedEC2InstanceDefaultPolicy, AmazonSSMFullAccess,
  the legacy AmazonEC2RoleforSSM) through `managedPolicyArns`, `rolePolicyAttachment`,
  `policyAttachment` or `rolePolicyAttachmentsExclusive`, or documents (inline, `rolePolicy`,
  attached customer `aws:iam/policy:Policy`) that allow `ssm:UpdateInstanceInformation` and the four
  `ssmmessages:*Channel` actions (the documented Session Manager minimum). An
  `aws:ssm/serviceSetting:ServiceSetting` for Default Host Management Configuration makes every
  instance managed without a profile role, so all pass. GPU AWS Batch compute environments
  (`aws:batch/computeEnvironment:ComputeEnvironment`) are judged by `computeResources.instanceRole`,
  the instance profile Batch gives its instances (it overrides a launch template's); Batch on EKS
  (`eksConfiguration`) is operated like a node group. EKS managed node groups
  (`aws:eks/nodeGroup:NodeGroup`) are not judged: their nodes are operated through the Kubernetes
  API (`kubectl debug node/...`), and SSH to them (`remoteAccess`) is the SSH rules' concern; a
  launch template that only a node group uses is judged through the group, i.e. not here. A
  reference that the stack cannot resolve (a profile or role created elsewhere) is reported as
  "could not be judged".
- Alibaba Cloud (Cloud Assistant, preinstalled on ECS public images): Session Manager is a
  per-account/region switch. GPU `alicloud:ecs/instance`, `ecsInstanceSet`, GPU
  `alicloud:ess/scalingGroup`s and ACK node pools (`alicloud:cs/nodePool`) pass when the stack
  enables `alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus` (status Enabled); a single
  instance also passes when a Cloud Assistant `alicloud:ecs/ecsInvocation:EcsInvocation` targets it
  (commands run through the agent).
- Tencent Cloud (TAT, preinstalled on CVM public images): GPU `tencentcloud:Instance/instance`,
  `Instance/set`, `As/scalingConfig` and TKE node pools (`Kubernetes/nodePool`, whose
  `autoScalingConfig` has no agent switch) pass when they keep the automation agent
  (`disableAutomationService` not true; `enhancedAutomationToolsService` not false; launch template
  `enhancedService.automationService.enabled` not false) and the stack operates through TAT
  (`Tat/command`, `Tat/invoker`, `Tat/invocation*Attachment`, or an `As/lifecycleHook` with a
  `lifecycleCommand`).

Custom images without the agent cannot be told from their image id offline; they are assumed to
carry it.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts, part_union
from gpufleet.policies.access import compute as c
from gpufleet.policies.memo import per_stack
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.rule_facts import joined, sole

# Each cloud's part of the rule: `SUBJECTS` (the kinds it judges), `judge_stack`, `DESCRIPTION` (the
# session manager it expects), `REMEDIATION`.
PARTS = cloud_parts(__name__)

RULE = Rule(
    id="GF-ACC-003",
    name="gpu-session-manager",
    description=(
        "Every GPU instance is reachable by a session manager instead "
        f"({joined(PARTS, 'DESCRIPTION', '; ')})."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=joined(PARTS, "REMEDIATION", " "),
    url=sole(PARTS, "URL"),
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    for part in PARTS.values():
        part.judge_stack(index, report)


SUBJECTS = part_union(PARTS, "SUBJECTS")
POLICY = GfStackPolicy(RULE, validate, judges(SUBJECTS))
