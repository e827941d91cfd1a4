"""GF-ACC-003 on AWS (Systems Manager Session Manager): the instance's profile role must grant the
agent's session permissions.

Judged for GPU instances, spot instance requests, Auto Scaling groups, Batch compute environments (by
`computeResources.instanceRole`; Batch on EKS is operated like a node group) and GPU launch templates
and configurations that nothing in the stack uses. Join: `iamInstanceProfile` (own, or the launch
template's/configuration's) -> instance profile -> `role` -> role -> AWS managed
AmazonSSMManagedInstanceCore (or the other SSM managed policies) through `managedPolicyArns`, policy
attachments, or documents that allow `ssm:UpdateInstanceInformation` and the four `ssmmessages:*Channel`
actions. A Default Host Management Configuration service setting makes every instance managed without a
profile role.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pulumi_policy import PolicyResource, ReportViolation
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.aws import (
    AWS_AUTOSCALING_GROUP,
    AWS_BATCH_COMPUTE,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_INSTANCE,
)
from gpufleet.policies.documents import DocumentError, parse_document
from gpufleet.policies.props import is_unknown

AWS_INSTANCE_PROFILE = "aws:iam/instanceProfile:InstanceProfile"
AWS_ROLE = "aws:iam/role:Role"
AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
AWS_ROLE_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
AWS_POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
AWS_ROLE_EXCLUSIVE = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
AWS_SERVICE_SETTING = "aws:ssm/serviceSetting:ServiceSetting"
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

SUBJECTS = (
    AWS_INSTANCE,
    AWS_SPOT_INSTANCE,
    AWS_AUTOSCALING_GROUP,
    AWS_LAUNCH_TEMPLATE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_BATCH_COMPUTE,
)
DESCRIPTION = "AWS SSM core policy on its role"
REMEDIATION = (
    "AWS: give GPU instances and launch templates an `iamInstanceProfile` whose role has "
    "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore attached (aws.iam.RolePolicyAttachment or "
    "Role `managedPolicyArns`)."
)
URL = "https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager-getting-started-instance-profile.html"


_PROFILE_LINKS = {
    AWS_INSTANCE: c.Link(("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)),
    AWS_SPOT_INSTANCE: c.Link(("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)),
    AWS_LAUNCH_CONFIGURATION: c.Link(("iamInstanceProfile",), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)),
    AWS_LAUNCH_TEMPLATE: c.Link(
        ("iamInstanceProfile.name", "iamInstanceProfile.arn"), "iamInstanceProfile", (AWS_INSTANCE_PROFILE,)
    ),
    AWS_BATCH_COMPUTE: c.Link(
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
        if resource.resource_type == AWS_BATCH_COMPUTE:
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
        referenced = source.resource_type != AWS_BATCH_COMPUTE and (source.property_dependencies or {}).get(
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


def judge_stack(index: c.ComputeIndex, report: ReportViolation) -> None:
    """Judge the GPU launchers of the stack."""
    aws = _Aws(index)
    subjects = index.of_type(AWS_INSTANCE, AWS_SPOT_INSTANCE, AWS_AUTOSCALING_GROUP)
    subjects += [b for b in index.of_type(AWS_BATCH_COMPUTE) if not index.p(b).get("eksConfiguration")]
    # A template that something else launches from (an EKS node group sets the profile itself) is
    # judged through that user, or not at all; only templates nothing in the stack uses stand alone.
    depended = {d.urn for r in index.resources for d in r.dependencies or []}
    depended |= {
        d.urn for r in index.resources for deps in (r.property_dependencies or {}).values() for d in deps
    }
    subjects += [
        t
        for t in index.of_type(AWS_LAUNCH_TEMPLATE, AWS_LAUNCH_CONFIGURATION)
        if not index.users.get(t.urn) and t.urn not in depended
    ]
    for resource in subjects:
        c.judge_resource(report, resource.urn, partial(aws.judge, resource, report))
