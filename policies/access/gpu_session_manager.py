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

from functools import partial
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    Severity,
    StackValidationArgs,
)
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.documents import DocumentError, parse_document
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import is_unknown, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judges

AWS_INSTANCE_PROFILE = "aws:iam/instanceProfile:InstanceProfile"
AWS_ROLE = "aws:iam/role:Role"
AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
AWS_ROLE_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
AWS_POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
AWS_ROLE_EXCLUSIVE = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
AWS_SERVICE_SETTING = "aws:ssm/serviceSetting:ServiceSetting"
ALI_SESSION_MANAGER = "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus"
ALI_INVOCATION = "alicloud:ecs/ecsInvocation:EcsInvocation"
TC_TAT = (
    "tencentcloud:Tat/command:Command",
    "tencentcloud:Tat/invoker:Invoker",
    "tencentcloud:Tat/invocationInvokeAttachment:InvocationInvokeAttachment",
    "tencentcloud:Tat/invocationCommandAttachment:InvocationCommandAttachment",
)
TC_LIFECYCLE_HOOK = "tencentcloud:As/lifecycleHook:LifecycleHook"

SSM_MANAGED_POLICIES = frozenset(
    {
        "AmazonSSMManagedInstanceCore",
        "AmazonSSMManagedEC2InstanceDefaultPolicy",
        "AmazonSSMFullAccess",
        "AmazonEC2RoleforSSM",
    }
)
SESSION_ACTIONS = (
    "ssm:UpdateInstanceInformation",
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
)

RULE = Rule(
    id="GF-ACC-003",
    name="gpu-session-manager",
    description=(
        "Every GPU instance is reachable by a session manager instead (AWS SSM core policy on its role; "
        "Alibaba Cloud Assistant; Tencent TAT)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "AWS: give GPU instances and launch templates an `iamInstanceProfile` whose role has "
        "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore attached (aws.iam.RolePolicyAttachment or "
        "Role `managedPolicyArns`). Alibaba: add alicloud.ecs.EcsSessionManagerStatus with "
        "`sessionManagerStatusName: sessionManagerStatus` and `status: Enabled`. Tencent: keep the TAT "
        "agent (do not set `disableAutomationService`) and operate instances through tencentcloud.tat "
        "Command/Invoker (or an As LifecycleHook `lifecycleCommand` for scaling groups)."
    ),
    url="https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager-getting-started-instance-profile.html",
)

_PROFILE_LINKS = {
    c.AWS_INSTANCE: c.Link(("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)),
    c.AWS_SPOT_INSTANCE: c.Link(("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)),
    c.AWS_LAUNCH_CONFIGURATION: c.Link(
        ("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)
    ),
    c.AWS_LAUNCH_TEMPLATE: c.Link(
        ("iamInstanceProfile.name", "iamInstanceProfile.arn"), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)
    ),
    c.AWS_BATCH_COMPUTE: c.Link(
        ("computeResources.instanceRole",), "computeResources", (AWS_INSTANCE_PROFILE,)
    ),
}
_ROLE_LINK = c.Link(("role",), "role", (AWS_ROLE,))
_ATTACHMENT_ROLE_LINKS = {
    AWS_ROLE_ATTACHMENT: c.Link(("role",), "role", (AWS_ROLE,)),
    AWS_ROLE_POLICY: c.Link(("role",), "role", (AWS_ROLE,)),
    AWS_POLICY_ATTACHMENT: c.Link(("roles.*",), "roles", (AWS_ROLE,)),
    AWS_ROLE_EXCLUSIVE: c.Link(("roleName",), "roleName", (AWS_ROLE,)),
}
_POLICY_LINK = c.Link(("policyArn",), "policyArn", (AWS_POLICY,))
_EXCLUSIVE_POLICY_LINK = c.Link(("policyArns.*",), "policyArns", (AWS_POLICY,))


def _managed_name(arn: Any) -> str | None:
    if not isinstance(arn, str) or is_unknown(arn) or ":iam::aws:policy/" not in arn:
        return None
    return arn.rsplit("/", 1)[-1]


class _Aws:
    """Role -> what it grants, built once per stack."""

    def __init__(self, index: c.ComputeIndex) -> None:
        self.index = index
        self.managed: dict[str, set[str]] = {}
        self.documents: dict[str, list[Any]] = {}
        for role in index.of_type(AWS_ROLE):
            props = index.p(role)
            self.managed[role.urn] = {
                name for arn in c.values_at(props, "managedPolicyArns.*") if (name := _managed_name(arn))
            }
            self.documents[role.urn] = [
                doc for doc in c.values_at(props, "inlinePolicies.*.policy") if not is_unknown(doc)
            ]
        for token, link in _ATTACHMENT_ROLE_LINKS.items():
            for attachment in index.of_type(token):
                roles, _ = index.follow(attachment, link)
                names, documents = self._grants_of(attachment)
                for role in roles:
                    self.managed.setdefault(role.urn, set()).update(names)
                    self.documents.setdefault(role.urn, []).extend(documents)
        self.default_host_management = any(
            "default-ec2-instance-management-role" in str(index.p(s).get("settingId") or "")
            and index.p(s).get("settingValue") not in (None, "")
            for s in index.of_type(AWS_SERVICE_SETTING)
        )

    def _grants_of(self, attachment: PolicyResource) -> tuple[set[str], list[Any]]:
        props = self.index.p(attachment)
        if attachment.resource_type == AWS_ROLE_POLICY:
            policy = props.get("policy")
            return set(), [] if policy is None or is_unknown(policy) else [policy]
        arns = c.values_at(props, "policyArns.*") + c.values_at(props, "policyArn")
        names = {name for arn in arns if (name := _managed_name(arn))}
        link = _EXCLUSIVE_POLICY_LINK if attachment.resource_type == AWS_ROLE_EXCLUSIVE else _POLICY_LINK
        customer, _ = self.index.follow(attachment, link)
        documents = [self.index.p(policy).get("policy") for policy in customer]
        return names, [doc for doc in documents if doc is not None and not is_unknown(doc)]

    def grants_sessions(self, role: PolicyResource) -> bool:
        if self.managed.get(role.urn, set()) & SSM_MANAGED_POLICIES:
            return True
        granted: set[str] = set()
        for value in self.documents.get(role.urn, []):
            try:
                document = parse_document(value, "policy", "aws")
            except (DocumentError, UnknownValueError):
                continue
            for statement in document.allows() if document else []:
                granted.update(a for a in SESSION_ACTIONS if statement.grants(a))
        return granted == set(SESSION_ACTIONS)

    def profile_sources(self, resource: PolicyResource) -> list[PolicyResource]:
        """Where `resource` takes its instance profile from: itself, else its templates."""
        if resource.resource_type == c.AWS_BATCH_COMPUTE:
            return [resource]  # `instanceRole` overrides the launch template's profile
        link = _PROFILE_LINKS.get(resource.resource_type)
        if link is not None and (
            any(c.values_at(self.index.p(resource), path) for path in link.paths)
            or (resource.property_dependencies or {}).get(link.prop_key)
        ):
            return [resource]
        templates = [
            t for t in self.index.templates.get(resource.urn, []) if t.resource_type in _PROFILE_LINKS
        ]
        if templates or self.index.dangling.get(resource.urn):
            return templates
        return [resource] if link is not None else []

    def judge(self, resource: PolicyResource, report: ReportViolation) -> None:
        if not self.index.is_gpu(resource) or self.default_host_management:
            return
        what = self.index.describe(resource)
        sources = self.profile_sources(resource)
        if not sources:
            raise c.NotJudgeable(
                f"{what} takes its instance profile from a launch template not in this stack"
            )
        for source in sources:
            self._judge_source(what, source, report, resource.urn)

    def _judge_source(self, what: str, source: PolicyResource, report: ReportViolation, urn: str) -> None:
        link = _PROFILE_LINKS[source.resource_type]
        given = [v for path in link.paths for v in c.values_at(self.index.p(source), path)]
        via = "" if source.urn == urn else f" (from {c.LABELS[source.resource_type]} '{source.name}')"
        # A Batch environment's `computeResources` also references subnets and templates.
        referenced = source.resource_type != c.AWS_BATCH_COMPUTE and (source.property_dependencies or {}).get(
            link.prop_key
        )
        if not given and not referenced:
            report(
                f"{what} has no instance profile{via}, so Session Manager cannot reach it; attach a role "
                "with AmazonSSMManagedInstanceCore",
                urn,
            )
            return
        profiles, dangling = self.index.follow(source, link)
        if not profiles:
            refs = ", ".join(repr(c.display(v)) for v in dangling or given)
            raise c.NotJudgeable(
                f"{what} uses instance profile {refs}{via}, which is not defined in this stack"
            )
        for profile in profiles:
            roles, role_dangling = self.index.follow(profile, _ROLE_LINK)
            if not roles:
                if role_dangling:
                    refs = ", ".join(repr(c.display(v)) for v in role_dangling)
                    raise c.NotJudgeable(
                        f"{what} uses instance profile '{profile.name}' with role {refs}, which is not "
                        "defined in this stack"
                    )
                report(
                    f"{what} uses instance profile '{profile.name}'{via}, which has no role, so Session "
                    "Manager cannot reach it; attach a role with AmazonSSMManagedInstanceCore",
                    urn,
                )
                continue
            for role in roles:
                if not self.grants_sessions(role):
                    report(
                        f"{what} uses role '{role.name}'{via}, which does not grant Session Manager access; "
                        "attach AmazonSSMManagedInstanceCore (or allow ssm:UpdateInstanceInformation and "
                        "ssmmessages channel actions)",
                        urn,
                    )


def _aws(index: c.ComputeIndex, report: ReportViolation) -> None:
    aws = _Aws(index)
    subjects = index.of_type(c.AWS_INSTANCE, c.AWS_SPOT_INSTANCE, c.AWS_AUTOSCALING_GROUP)
    subjects += [b for b in index.of_type(c.AWS_BATCH_COMPUTE) if not index.p(b).get("eksConfiguration")]
    # A template that something else launches from (an EKS node group sets the profile itself) is
    # judged through that user, or not at all; only templates nothing in the stack uses stand alone.
    depended = {d.urn for r in index.resources for d in r.dependencies or []}
    depended |= {
        d.urn for r in index.resources for deps in (r.property_dependencies or {}).values() for d in deps
    }
    subjects += [
        t
        for t in index.of_type(c.AWS_LAUNCH_TEMPLATE, c.AWS_LAUNCH_CONFIGURATION)
        if not index.users.get(t.urn) and t.urn not in depended
    ]
    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(aws.judge, resource, report))


def _alicloud(index: c.ComputeIndex, report: ReportViolation) -> None:
    subjects = index.of_type(c.ALI_INSTANCE, c.ALI_INSTANCE_SET, c.ALI_SCALING_GROUP, c.ALI_NODE_POOL)
    if not subjects:
        return
    statuses = [index.p(s).get("status") for s in index.of_type(ALI_SESSION_MANAGER)]
    enabled = any(isinstance(s, str) and s.lower() == "enabled" for s in statuses)
    unknown = [s for s in statuses if is_unknown(s)]
    invoked: set[str] = set()
    for invocation in index.of_type(ALI_INVOCATION):
        instances, _ = index.follow(invocation, c.Link(("instanceIds.*",), "instanceIds", (c.ALI_INSTANCE,)))
        invoked.update(instance.urn for instance in instances)

    def judge(resource: PolicyResource) -> None:
        if enabled or resource.urn in invoked or not index.is_gpu(resource):
            return
        if unknown:
            raise UnknownValueError(str(unknown[0]), ["status"])
        report(
            f"{index.describe(resource)} is not reachable by Session Manager: enable it with "
            "alicloud.ecs.EcsSessionManagerStatus (status Enabled) in this stack",
            resource.urn,
        )

    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(judge, resource))


_TC_AGENT_OFF = {
    c.TC_INSTANCE: ("disableAutomationService", True),
    c.TC_INSTANCE_SET: ("disableAutomationService", True),
    c.TC_SCALING_CONFIG: ("enhancedAutomationToolsService", False),
    c.TC_LAUNCH_TEMPLATE: ("enhancedService.automationService.enabled", False),
}


def _tencentcloud(index: c.ComputeIndex, report: ReportViolation) -> None:
    subjects = index.of_type(
        c.TC_INSTANCE, c.TC_INSTANCE_SET, c.TC_SCALING_CONFIG, c.TC_LAUNCH_TEMPLATE, c.TC_NODE_POOL
    )
    if not subjects:
        return
    uses_tat = bool(index.of_type(*TC_TAT)) or any(
        c.values_at(index.p(hook), "lifecycleCommand.commandId") for hook in index.of_type(TC_LIFECYCLE_HOOK)
    )

    def judge(resource: PolicyResource) -> None:
        path, off_value = _TC_AGENT_OFF.get(resource.resource_type, ("", None))
        values = c.values_at(index.p(resource), path) if path else []
        for value in values:
            if is_unknown(value):
                raise UnknownValueError(value, [path])
        agent_off = any(truthy(v) == off_value for v in values)
        if not agent_off and uses_tat:
            return
        if not index.is_gpu(resource):
            return
        what = index.describe(resource)
        if agent_off:
            report(
                f"{what} turns the TAT automation agent off ({path} is {str(values[0]).lower()}); keep it "
                "on so the instance is reachable without SSH",
                resource.urn,
            )
        else:
            report(
                f"{what} is not operated through TAT: this stack has no tencentcloud.tat Command or Invoker "
                "(or scaling-group lifecycle command); use TAT instead of SSH",
                resource.urn,
            )

    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(judge, resource))


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(c.ComputeIndex, args.resources)
    _aws(index, report)
    _alicloud(index, report)
    _tencentcloud(index, report)


SUBJECTS = (
    c.AWS_INSTANCE,
    c.AWS_SPOT_INSTANCE,
    c.AWS_AUTOSCALING_GROUP,
    c.AWS_LAUNCH_TEMPLATE,
    c.AWS_LAUNCH_CONFIGURATION,
    c.AWS_BATCH_COMPUTE,
    c.ALI_INSTANCE,
    c.ALI_INSTANCE_SET,
    c.ALI_SCALING_GROUP,
    c.ALI_NODE_POOL,
    c.TC_INSTANCE,
    c.TC_INSTANCE_SET,
    c.TC_SCALING_CONFIG,
    c.TC_LAUNCH_TEMPLATE,
    c.TC_NODE_POOL,
)
POLICY = GfStackPolicy(RULE, validate, judges(SUBJECTS))
