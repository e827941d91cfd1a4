"""GF-IAM-001: no Allow statement with a wildcard action (`*`, `service:*`) or a glob as broad.

Judged on every identity document (see `gpufleet.policies.iam.sources`): AWS IAM policies and inline role
policies, Alibaba RAM policies, Tencent CAM policies and policy versions. An Allow with `NotAction`
grants every action but the listed ones, so it counts as a wildcard too. Resource policies (bucket
and key policies) belong to the storage and key rules.

An action pattern is read the way the cloud reads it: a glob, case-insensitive, where `*` is any run of
characters (across `:`) and `?` is exactly one character (`gpufleet.policies.documents.glob_match`); Tencent's
`name/` prefix is ignored. A pattern is a wildcard, as broad as `*` or `service:*`, when:

- it is `*` or `service:*` (also `*:*`), as written; or
- it matches every action of one service's catalogue of sensitive actions, for the document's cloud
  (the write and permissions-management actions of `gpufleet.policies.iam.scoped_actions`; for AWS IAM its
  admin core `AWS_IAM_ADMIN`: iam:PassRole, iam:CreateRole, iam:CreateUser, iam:CreateAccessKey,
  iam:AttachRolePolicy, iam:PutRolePolicy, iam:CreatePolicyVersion, iam:UpdateAssumeRolePolicy and
  the like): `iam:?*`, `iam:*e*`, `iam*` and `ia?:*e*` cover all of them, so each is read as `iam:*`;
  one that covers the catalogue of every service (`?*`, `*?`, `**`) is read as `*`; or
- its action part (after the first `:`) is made only of `*` and `?` with at least one `*`, whatever
  the service (`ec2:?*`, `sagemaker:*?`): it matches every action name of the service it names.

A narrower glob (`s3:Get*`, `iam:List*`, `s3:*Object`) misses some of the catalogue and is left to
GF-IAM-002 and GF-IAM-006, which judge what it grants.
"""

from __future__ import annotations

import functools

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts
from gpufleet.policies.documents import action_matches, is_wildcard_action
from gpufleet.policies.iam import sources
from gpufleet.policies.iam.scoped_actions import SCOPED_WRITE_ACTIONS
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud, joined, rule_checkov, rule_url

# Each cloud's module gives `POLICY_FIELDS` (where its documents are written, for the remediation) and
# may give `ADMIN_CORE` (service -> the actions that make a grant on it administration of the account).
PARTS = cloud_parts("gpufleet.policies.iam")

RULE = Rule(
    id="GF-IAM-001",
    name="no-wildcard-actions",
    description="No Allow statement with a wildcard action (`*`, `service:*`).",
    clouds=tuple(SCOPED_WRITE_ACTIONS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "List the actions the workload needs instead of `*` or `service:*` (or a glob as broad, such as "
        "`?*` or `iam:*e*`), and replace Allow+NotAction "
        f"with an explicit action list: {joined(PARTS, 'POLICY_FIELDS', '; ')}."
    ),
    url=rule_url(PARTS, "GF-IAM-001"),
    checkov=rule_checkov(PARTS, "GF-IAM-001"),
)

_CAM_NAME_PREFIX = "name/"
_ADMIN_CORES: dict[str, dict[str, tuple[str, ...]]] = by_cloud(PARTS, "ADMIN_CORE")


def _catalogue(cloud: str) -> dict[str, tuple[str, ...]]:
    """Sensitive actions per service (lower-case service name) for one cloud: the scoped write and
    permissions-management actions of `policies.iam.scoped_actions`, and for a service with an admin
    core (AWS IAM) that core."""
    by_service: dict[str, list[str]] = {}
    for action in SCOPED_WRITE_ACTIONS.get(cloud, ()):
        service = action.partition(":")[0].lower()
        by_service.setdefault(service, []).append(action)
    for service, actions in _ADMIN_CORES.get(cloud, {}).items():
        by_service[service] = list(actions)
    return {service: tuple(names) for service, names in by_service.items()}


_CATALOGUES = {cloud: _catalogue(cloud) for cloud in SCOPED_WRITE_ACTIONS}


@functools.lru_cache(maxsize=4096)
def as_broad_as(action: str, cloud: str) -> str | None:
    """The wildcard `action` is as broad as (`*` or `service:*`), or None for a narrower pattern."""
    if is_wildcard_action(action):
        return None  # written as a wildcard already: said as written
    pattern = action[len(_CAM_NAME_PREFIX) :] if action[:5].lower() == _CAM_NAME_PREFIX else action
    catalogue = _CATALOGUES[cloud]
    covered = [
        service
        for service, actions in catalogue.items()
        if all(action_matches(pattern, name) for name in actions)
    ]
    if len(covered) == len(catalogue):
        return "*"
    if covered:
        return ", ".join(f"{service}:*" for service in covered)
    service, sep, name = pattern.partition(":")
    if sep and "*" in name and set(name) <= {"*", "?"}:
        return f"{service}:*"
    return None


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in sources.IDENTITY_TYPES:
        return
    cloud = sources.cloud(args.resource_type)
    for place, statement in sources.allow_statements(args, report):
        if statement.not_actions:
            excluded = ", ".join(repr(a) for a in statement.not_actions)
            report(
                f"{place} allows every action except {excluded} (Allow with NotAction); "
                "list the allowed actions instead",
                None,
            )
            continue
        wildcards: list[str] = []
        for action in statement.actions:
            if is_wildcard_action(action):
                wildcards.append(repr(action))
            else:
                broad = as_broad_as(action, cloud)
                if broad is not None:
                    wildcards.append(f"{action!r} (as broad as {broad!r})")
        if wildcards:
            report(f"{place} allows wildcard action {', '.join(wildcards)}; grant named actions only", None)


POLICY = GfResourcePolicy(RULE, validate, judges(sources.IDENTITY_TYPES))
