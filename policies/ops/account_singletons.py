"""GF-OPS-004: account-wide singletons are owned by at most one stack per account and region.

Judged on AWS, the only cloud in the rule's column. The singletons (pulumi-aws 7 type tokens):

- `aws:ssm/document:Document` named `SSM-SessionManagerRunShell`, the Session Manager preferences:
  it exists once per account and region, so a second stack creating it (or an account whose console
  saved preferences) fails with "already exists";
- account and region settings, each one value per account (and region): `aws:ebs/encryptionByDefault`,
  `aws:ebs/defaultKmsKey`, `aws:ec2/instanceMetadataDefaults`, `aws:ec2/serialConsoleAccess`,
  `aws:ebs/snapshotBlockPublicAccess`, `aws:ec2/imageBlockPublicAccess`,
  `aws:ec2/vpcBlockPublicAccessOptions`, `aws:ssm/serviceSetting`, and account-wide
  `aws:s3/accountPublicAccessBlock`, `aws:iam/accountPasswordPolicy`, `aws:iam/accountAlias`: two
  stacks owning one overwrite each other, and destroying either resets it for every stack.

A singleton is owned by the account baseline when it carries the `owner_stack_tag` tag itself (of
these types only the SSM document takes tags, directly or through its provider's `defaultTags`), or
when its stack is the baseline: the stack tags carry the tag, or any resource of the stack does. A
tag whose value is `false`, `no` or `0` does not mark the baseline.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import part_merged
from gpufleet.policies.context import tags_of
from gpufleet.policies.cost.pools import ResourceView
from gpufleet.policies.ops._common import parts, rule_url, stack_index, unknown
from gpufleet.policies.props import get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module's account-wide singletons: settings (`ACCOUNT_SETTINGS`: type token -> what it sets,
# where it is one) and documents that are one per account under a name (`SESSION_DOCUMENTS`: type token
# -> that name). Only AWS's module has them today: the rule's column and reference are its.
SETTINGS: Mapping[str, tuple[str, str]] = part_merged(parts(), "ACCOUNT_SETTINGS")
SESSION_DOCUMENTS: Mapping[str, str] = part_merged(parts(), "SESSION_DOCUMENTS")
_CLOUDS = tuple(
    cloud
    for cloud, part in parts().items()
    if hasattr(part, "ACCOUNT_SETTINGS") or hasattr(part, "SESSION_DOCUMENTS")
)
_OFF = ("false", "no", "0", "off")

RULE = Rule(
    id="GF-OPS-004",
    name="account-singletons-in-baseline",
    description=(
        "Account-wide singletons (the Session Manager preferences document, EBS encryption by default, "
        "IMDS defaults, the account public-access block) are owned by at most one stack per account and "
        'region: a second stack creating one fails with "already exists".'
    ),
    clouds=_CLOUDS,
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Create the account-wide singletons in one account-baseline stack (`gpufleet new --from "
        "account-baseline`) tagged gpufleet:account-baseline, and stop creating them in fleet stacks; "
        "fleet stacks use them (the session preferences document, the default EBS key) without owning them."
    ),
    url=rule_url("GF-OPS-004"),
    config={"owner_stack_tag": {"type": "string", "default": "gpufleet:account-baseline"}},
)


def _marked(tags: Mapping[str, Any], tag: str) -> bool:
    value = tags.get(tag)
    if value is None:
        return False
    return is_unknown(value) or str(value).strip().lower() not in _OFF


def _default_tags(provider: Any) -> dict[str, Any]:
    """The provider's `defaultTags.tags` (provider inputs arrive JSON-encoded)."""
    props = getattr(provider, "props", None)
    value = get_ref(props, "defaultTags") if isinstance(props, Mapping) else None
    if isinstance(value, str) and not is_unknown(value):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {}
    tags = get_ref(value, "tags") if isinstance(value, Mapping) else None
    return {str(k): get_ref(tags, str(k)) for k in tags} if isinstance(tags, Mapping) else {}


def _tags(view: ResourceView) -> dict[str, Any]:
    tags: dict[str, Any] = dict(_default_tags(view.provider))
    tags.update(tags_of(view.resource_type, view.props))
    return tags


def _singleton(view: ResourceView) -> tuple[str, str] | None:
    if view.resource_type in SETTINGS:
        return SETTINGS[view.resource_type]
    if view.resource_type in SESSION_DOCUMENTS:
        name = get_ref(view.props, "name")
        if is_unknown(name):
            raise unknown(name, "name")
        if name == SESSION_DOCUMENTS[view.resource_type]:
            return ("the Session Manager preferences document", "account and region")
    return None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    tag = str(RULE.settings(args)["owner_stack_tag"])
    index = stack_index(args)
    candidates = index.of_type(*SESSION_DOCUMENTS, *SETTINGS)
    if not candidates:
        args.not_applicable("the stack creates no account-wide singleton")
    baseline = _marked(args.stack_tags or {}, tag) or any(_marked(_tags(r), tag) for r in index.resources)
    for view in candidates:

        def check(view: ResourceView = view) -> None:
            found = _singleton(view)
            if found is None or baseline or _marked(_tags(view), tag):
                return
            what, scope = found
            if view.resource_type in SESSION_DOCUMENTS:
                clash = (
                    "a second stack in the account and region, or an account whose console saved Session "
                    'Manager preferences, fails with "already exists"'
                )
            else:
                clash = "two stacks that own it overwrite each other, and destroying either resets it for all"
            report(
                f"'{view.name}' creates {what}, one per {scope}: {clash}; move it to the account-baseline "
                f"stack (a stack tagged {tag}) and keep this stack from creating it",
                view.urn,
            )

        judge(view.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(SESSION_DOCUMENTS, SETTINGS),
)
