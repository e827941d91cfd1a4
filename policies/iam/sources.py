"""Where identity and trust policy documents live in each cloud's IAM resources.

Identity documents (what a principal may do):

- AWS: `policy` of `aws:iam/policy:Policy`, `rolePolicy`, `userPolicy`, `groupPolicy`;
  `inlinePolicies[].policy` of `aws:iam/role:Role`.
- Alibaba Cloud: `policyDocument` (or the deprecated `document`, or the older still `statements`
  list of `{effect, actions, resources}`) of `alicloud:ram/policy:Policy`.
- Tencent Cloud: `document` of `tencentcloud:Cam/policy:Policy` and `Cam/policyByName:PolicyByName`;
  `policyDocument` of `Cam/policyVersion:PolicyVersion`.

Trust documents (who may assume a role): `assumeRolePolicy` of `aws:iam/role:Role`;
`assumeRolePolicyDocument` (or `document`, or the older `ramUsers`/`services` principal lists) of
`alicloud:ram/role:Role` and
`alicloud:resourcemanager/role:Role`; `document` of `tencentcloud:Cam/role:Role` and
`Cam/roleByName:RoleByName`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import ReportViolation, ResourceValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.documents import PolicyDocument, Statement, parse_document
from gpufleet.policies.props import Malformed, get, get_objects, get_ref, get_text, is_unknown

AWS_POLICY = "aws:iam/policy:Policy"
AWS_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
AWS_USER_POLICY = "aws:iam/userPolicy:UserPolicy"
AWS_GROUP_POLICY = "aws:iam/groupPolicy:GroupPolicy"
AWS_ROLE = "aws:iam/role:Role"
ALI_POLICY = "alicloud:ram/policy:Policy"
ALI_ROLE = "alicloud:ram/role:Role"
ALI_RM_ROLE = "alicloud:resourcemanager/role:Role"
TC_POLICY = "tencentcloud:Cam/policy:Policy"
TC_POLICY_BY_NAME = "tencentcloud:Cam/policyByName:PolicyByName"
TC_POLICY_VERSION = "tencentcloud:Cam/policyVersion:PolicyVersion"
TC_ROLE = "tencentcloud:Cam/role:Role"
TC_ROLE_BY_NAME = "tencentcloud:Cam/roleByName:RoleByName"

LABELS = {
    AWS_POLICY: "IAM policy",
    AWS_ROLE_POLICY: "IAM role policy",
    AWS_USER_POLICY: "IAM user policy",
    AWS_GROUP_POLICY: "IAM group policy",
    AWS_ROLE: "IAM role",
    ALI_POLICY: "RAM policy",
    ALI_ROLE: "RAM role",
    ALI_RM_ROLE: "Resource Manager role",
    TC_POLICY: "CAM policy",
    TC_POLICY_BY_NAME: "CAM policy",
    TC_POLICY_VERSION: "CAM policy version",
    TC_ROLE: "CAM role",
    TC_ROLE_BY_NAME: "CAM role",
}

# token -> document props, first given wins (new name before its deprecated alias)
IDENTITY: dict[str, tuple[str, ...]] = {
    AWS_POLICY: ("policy",),
    AWS_ROLE_POLICY: ("policy",),
    AWS_USER_POLICY: ("policy",),
    AWS_GROUP_POLICY: ("policy",),
    ALI_POLICY: ("policyDocument", "document"),
    TC_POLICY: ("document",),
    TC_POLICY_BY_NAME: ("document",),
    TC_POLICY_VERSION: ("policyDocument",),
}
TRUST: dict[str, tuple[str, ...]] = {
    AWS_ROLE: ("assumeRolePolicy",),
    ALI_ROLE: ("assumeRolePolicyDocument", "document"),
    ALI_RM_ROLE: ("assumeRolePolicyDocument",),
    TC_ROLE: ("document",),
    TC_ROLE_BY_NAME: ("document",),
}


@dataclass(frozen=True)
class Located:
    """A parsed document and where it is (`policy`, `inline policy 'ckpt'`)."""

    where: str
    document: PolicyDocument

    def statements(self) -> list[tuple[str, Statement]]:
        """(`statement 2` or `statement 'Sid'`, statement) pairs, in order."""
        out = []
        for number, statement in enumerate(self.document.statements, start=1):
            name = f"statement '{statement.sid}'" if statement.sid else f"statement {number}"
            out.append((name, statement))
        return out


def cloud(resource_type: str) -> str:
    return resource_type.split(":", 1)[0]


def _first(props: Mapping[str, Any], paths: tuple[str, ...]) -> tuple[str, Any] | None:
    for path in paths:
        value = get_ref(props, path)
        if is_unknown(value):
            return path, value
        if value not in (None, ""):
            return path, value
    return None


def identity_documents(resource_type: str, props: Mapping[str, Any]) -> list[Located]:
    """Identity documents of a resource; raises UnknownValueError/Malformed like parse_document."""
    found: list[Located] = []
    if resource_type == AWS_ROLE:
        for index, inline in enumerate(get_objects(props, "inlinePolicies")):
            if is_unknown(inline):
                raise UnknownValueError(inline, [f"inlinePolicies.{index}"])
            name = get_text(inline, "name")
            path = f"inlinePolicies.{index}.policy"
            document = parse_document(get_ref(inline, "policy"), path, "aws")
            if document is not None:
                found.append(Located(f"inline policy '{name}'" if name else "inline policy", document))
        return found
    paths = IDENTITY.get(resource_type)
    if not paths:
        return found
    given = _first(props, paths)
    if given is None and resource_type == ALI_POLICY:
        given = _ali_statements(props)
    if given is not None:
        document = parse_document(given[1], given[0], cloud(resource_type))
        if document is not None:
            found.append(Located(given[0], document))
    return found


def _ali_statements(props: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The deprecated `statements` list of a RAM policy, as the document the provider builds from it."""
    items = get_objects(props, "statements")
    if not items:
        return None
    statements = [
        {
            "Effect": get(item, "effect"),
            "Action": get(item, "actions"),
            "Resource": get_ref(item, "resources"),
        }
        for item in items
    ]
    return "statements", {"Version": "1", "Statement": statements}


def _ali_trust_lists(props: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The deprecated `ramUsers`/`services` lists of a RAM role, as the trust document they stand for."""
    principal = {
        kind: value
        for kind, path in (("RAM", "ramUsers"), ("Service", "services"))
        if (value := get_ref(props, path)) not in (None, [], "")
    }
    if not principal:
        return None
    statement = {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}
    return "ramUsers/services", {"Version": "1", "Statement": [statement]}


def allow_statements(args: ResourceValidationArgs, report: ReportViolation) -> list[tuple[str, Statement]]:
    """Every Allow statement of the resource's identity documents, each with the words that place it
    (`AWS IAM policy 'ci' policy statement 1`). A document that cannot be read is reported as could
    not be judged, and gives no statements."""
    label = f"{LABELS[args.resource_type]} '{args.name}'"
    try:
        located = identity_documents(args.resource_type, args.props)
    except Malformed as error:
        report(error.about(label), None)
        return []
    return [
        (f"{label} {item.where} {where}", statement)
        for item in located
        for where, statement in item.statements()
        if statement.is_allow
    ]


def trust_document(resource_type: str, props: Mapping[str, Any]) -> Located | None:
    paths = TRUST.get(resource_type)
    if not paths:
        return None
    given = _first(props, paths)
    if given is None and resource_type == ALI_ROLE:
        given = _ali_trust_lists(props)
    if given is None:
        return None
    document = parse_document(given[1], given[0], cloud(resource_type))
    return Located(given[0], document) if document is not None else None
