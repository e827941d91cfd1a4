"""GF-OPS-002 on AWS: the `AWS` principals of key, bucket, topic and queue policies exist when the
policies are set (the rule's module, `principals_exist`, says the whole contract): service-linked roles
with their `aws:iam/serviceLinkedRole` in the stack and depended on, other roles and users created in
the stack, or listed in `existing_principals`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.props import as_list, get_ref, is_unknown, json_value

PRINCIPALS_DESCRIPTION = (
    "Key, bucket and topic policies name only principals that exist on a fresh account or are "
    "created in the stack: a service-linked role (e.g. AWSServiceRoleForAutoScaling) needs its "
    "ServiceLinkedRole resource, or the policy is rejected as malformed before the role exists."
)
PRINCIPALS_REMEDIATION = (
    "Create what the policy names in the same program: aws.iam.ServiceLinkedRole(aws_service_name="
    "'autoscaling.amazonaws.com') for AWSServiceRoleForAutoScaling, with depends_on on the key or "
    "policy that names it, or the aws.iam.Role / aws.iam.User itself. A principal that exists "
    "before every deployment of this program goes in the rule's existing_principals config."
)

SERVICE_LINKED_ROLE = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
ROLE = "aws:iam/role:Role"
USER = "aws:iam/user:User"

POLICY_HOLDERS = {
    "aws:kms/key:Key": "key",
    "aws:kms/externalKey:ExternalKey": "key",
    "aws:kms/replicaKey:ReplicaKey": "key",
    "aws:kms/replicaExternalKey:ReplicaExternalKey": "key",
    "aws:kms/keyPolicy:KeyPolicy": "key policy",
    "aws:s3/bucketPolicy:BucketPolicy": "bucket policy",
    "aws:s3/bucket:Bucket": "bucket",
    "aws:s3/bucketV2:BucketV2": "bucket",
    "aws:sns/topicPolicy:TopicPolicy": "topic policy",
    "aws:sns/topic:Topic": "topic",
    "aws:sqs/queuePolicy:QueuePolicy": "queue policy",
    "aws:sqs/queue:Queue": "queue",
}

_IAM_ARN = re.compile(r"^arn:aws[a-z-]*:iam::(\d{12}|\*)?:(role|user)/(.+)$")
_SLR_PATH = re.compile(r"^aws-service-role/([^/]+)/(.+)$")


def _ancestors(view: ResourceView) -> set[str]:
    found: set[str] = set()
    parent = getattr(view.original, "parent", None)
    while parent is not None and parent.urn not in found:
        found.add(parent.urn)
        parent = getattr(parent, "parent", None)
    return found


def depends_on(view: ResourceView, target: ResourceView) -> bool:
    """True when `view` waits for `target`: a property refers to it, or `depends_on` names it or one
    of its parent components."""
    if any(target.urn in urns for urns in view.dependency_urns.values()):
        return True
    direct = {dep.urn for dep in getattr(view.original, "dependencies", None) or ()}
    return target.urn in direct or bool(direct & _ancestors(target))


def _lower(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {str(key).lower(): obj[key] for key in obj}


def _principals(view: ResourceView) -> list[str]:
    """The known `AWS` principals of the policy. Only principals decide this rule: an action or
    resource unknown at preview does not stop it; a document unknown as a whole does."""
    document = json_value(get_ref(view.props, "policy"), "policy")
    if not isinstance(document, Mapping):
        return []
    statements = _lower(document).get("statement")
    if is_unknown(statements):
        raise UnknownValueError(str(statements), ["policy", "Statement"])
    found: list[str] = []
    for statement in as_list(statements):
        if not isinstance(statement, Mapping):
            continue
        fields = _lower(statement)
        for key in ("principal", "notprincipal"):
            principal = fields.get(key)
            if not isinstance(principal, Mapping):
                continue
            for kind, value in principal.items():
                if str(kind).lower() == "aws":
                    found += [v for v in as_list(value) if isinstance(v, str) and not is_unknown(v)]
    return list(dict.fromkeys(found))


def _listed(arn: str, name: str, existing: Iterable[str]) -> bool:
    return any(item in (arn, name) for item in existing)


def _service_linked(
    index: ResourceIndex, holder: ResourceView, arn: str, service: str, *, role_name: str, what: str
) -> str | None:
    matches = []
    for role in index.of_type(SERVICE_LINKED_ROLE):
        name = get_ref(role.props, "awsServiceName")
        suffix = get_ref(role.props, "customSuffix")
        if name != service:
            continue
        if isinstance(suffix, str) and suffix and not role_name.endswith(f"_{suffix}"):
            continue
        matches.append(role)
    if not matches:
        return (
            f"{what} '{holder.name}' names the service-linked role {role_name}, which a fresh account "
            f"does not have until {service} first creates it, so the policy is rejected as malformed; "
            f"create aws.iam.ServiceLinkedRole(aws_service_name='{service}') in the stack and make "
            f"'{holder.name}' depend on it, or list {arn} in existing_principals"
        )
    if not any(depends_on(holder, role) for role in matches):
        return (
            f"{what} '{holder.name}' names the service-linked role {role_name} but does not depend on "
            f"'{matches[0].name}', which creates it, so the policy may be set before the role exists; "
            f"add depends_on=[{matches[0].name}]"
        )
    return None


def _created(index: ResourceIndex, kind: str, arn: str, name: str) -> bool:
    token = ROLE if kind == "role" else USER
    leaf = name.rsplit("/", 1)[-1]
    for resource in index.of_type(token):
        if get_ref(resource.props, "arn") == arn:
            return True
        if leaf in (get_ref(resource.props, "name"), resource.name):
            return True
    return False


def principal_problems(index: ResourceIndex, holder: ResourceView, existing: list[str]) -> list[str]:
    """The principals a policy names that may not exist when it is set."""
    what = POLICY_HOLDERS[holder.resource_type]
    problems = []
    for arn in _principals(holder):
        match = _IAM_ARN.match(arn)
        if match is None:
            continue
        kind, path = match.group(2), match.group(3)
        name = path.rsplit("/", 1)[-1]
        if _listed(arn, name, existing):
            continue
        linked = _SLR_PATH.match(path) if kind == "role" else None
        if linked is not None:
            problem = _service_linked(index, holder, arn, linked.group(1), role_name=name, what=what)
            if problem:
                problems.append(problem)
        elif not _created(index, kind, arn, path):
            problems.append(
                f"{what} '{holder.name}' names the {kind} {arn}, which this stack does not create, so "
                f"the policy is rejected on an account where it does not exist yet; create the {kind} in "
                "the stack and refer to its arn, or list it in existing_principals"
            )
    return problems
