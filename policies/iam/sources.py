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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy import ReportViolation, ResourceValidationArgs

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union
from gpufleet.policies.documents import PolicyDocument, Statement, parse_document
from gpufleet.policies.props import Malformed, get_ref, is_unknown

# Each cloud's IAM facts (`policies/iam/aws.py`, ...), by cloud key.
PARTS = cloud_parts("gpufleet.policies.iam")

# token -> how findings name the resource
LABELS: dict[str, str] = part_merged(PARTS, "LABELS")
# token -> document props, first given wins (new name before its deprecated alias)
IDENTITY: dict[str, tuple[str, ...]] = part_merged(PARTS, "IDENTITY")
TRUST: dict[str, tuple[str, ...]] = part_merged(PARTS, "TRUST")
# Types whose identity documents are inline policies their cloud's module reads (`inline_documents`).
INLINE_IDENTITY = part_union(PARTS, "INLINE_IDENTITY")
# Every type with an identity document: the rules that read identity documents judge these.
IDENTITY_TYPES = frozenset(IDENTITY) | INLINE_IDENTITY
# token -> reader of a deprecated form, used when none of the token's document props is given
_IDENTITY_FALLBACK: dict[str, Callable[[Mapping[str, Any]], tuple[str, Any] | None]] = part_merged(
    PARTS, "IDENTITY_FALLBACK"
)
_TRUST_FALLBACK: dict[str, Callable[[Mapping[str, Any]], tuple[str, Any] | None]] = part_merged(
    PARTS, "TRUST_FALLBACK"
)


def identity_types(cloud_key: str) -> frozenset[str]:
    """The types of one cloud that carry identity documents."""
    return frozenset(token for token in IDENTITY_TYPES if cloud(token) == cloud_key)


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
    if resource_type in INLINE_IDENTITY:
        part = part_of(PARTS, resource_type)
        if part is None:
            return []
        return [Located(where, document) for where, document in part.inline_documents(resource_type, props)]
    found: list[Located] = []
    paths = IDENTITY.get(resource_type)
    if not paths:
        return found
    given = _first(props, paths)
    if given is None and resource_type in _IDENTITY_FALLBACK:
        given = _IDENTITY_FALLBACK[resource_type](props)
    if given is not None:
        document = parse_document(given[1], given[0], cloud(resource_type))
        if document is not None:
            found.append(Located(given[0], document))
    return found


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
    if given is None and resource_type in _TRUST_FALLBACK:
        given = _TRUST_FALLBACK[resource_type](props)
    if given is None:
        return None
    document = parse_document(given[1], given[0], cloud(resource_type))
    return Located(given[0], document) if document is not None else None
