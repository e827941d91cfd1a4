"""GF-IAM-004: role trust policies name specific principals (no `*`).

Judged on every trust document (see `gpufleet.policies.iam.sources`): AWS `aws:iam/role:Role`
`assumeRolePolicy`, Alibaba `alicloud:ram/role:Role` / `alicloud:resourcemanager/role:Role`
`assumeRolePolicyDocument`, Tencent `tencentcloud:Cam/role:Role` / `Cam/roleByName` `document`.

An Allow statement fails when it uses `NotPrincipal`, or when a principal is a wildcard (`"*"`,
`{"AWS": "*"}`, `{"RAM": ["*"]}`, `{"qcs": ["*"]}`, Tencent's `{"qcs": ["qcs::cam::anyone:anyone"]}`,
or an ARN with `*` in it such as `arn:aws:iam::*:root`) and no condition pins the caller to known
accounts or an organisation. A condition pins when its key names the caller's account or
organisation - `aws:PrincipalAccount`, `aws:SourceAccount` (12 digits), `aws:PrincipalOrgID`,
`aws:SourceOrgID` (`o-...`), `aws:PrincipalOrgPaths`, `aws:SourceOrgPaths` (`o-.../...`),
`aws:PrincipalArn` (an ARN with a concrete account), `aws:SourceArn` (a concrete account, or a
named bucket), `aws:userid`, web-identity `aud`/`sub`, Tencent `qcs:uin`/`qcs:owner_uin`, Alibaba
`acs:SourceAccount`/`acs:PrincipalArn` - under a positive operator (`StringEquals`, `StringLike`,
`ArnEquals`, `ArnLike`, their `ForAnyValue:` forms and Tencent's `string_equal`/`string_like`), and
every value is concrete. These restrict nothing: `sts:ExternalId` (not a secret: whoever knows it
may pass it), any other key, `Null`, negated operators (`StringNotEquals`), `...IfExists` forms and
`ForAllValues:` (both pass when the key is absent), empty value lists, and wildcard values
(`StringLike aws:PrincipalOrgID "*"`, `ArnLike aws:SourceArn "*"`, `o-*`).

Service principals (`ec2.amazonaws.com`, `ecs.aliyuncs.com`, `cvm.qcloud.com`) and named federated
providers are specific. A GitHub Actions provider (`token.actions.githubusercontent.com`, by its ARN
or by its condition keys) must also pin the repository: a positive
`token.actions.githubusercontent.com:sub` condition naming an owner (`repo:acme/training:*`), or any
GitHub repository may assume the role. The owner must be written out whole: `repo:*`, `*` and
`repo:ac*` (every owner whose name starts "ac") do not pin it. Enterprise issuers
(`token.actions.githubusercontent.com/<enterprise>:sub`) are judged the same way. Alibaba RAM
(`{"Federated": ["acs:ram::<uid>:oidc-provider/<name>"]}`, `StringEquals`/`StringLike`) and Tencent CAM
(`{"federated": ["qcs::cam::uin/<uin>:oidc-provider/<name>"]}`, `string_equal`/`string_like`) name
their OIDC providers freely and write the claims as `oidc:iss`, `oidc:aud` and `oidc:sub`: a trust
whose `oidc:iss` condition names GitHub, or that requires no issuer and trusts a provider whose name
contains "github", must pin `oidc:sub` to an owner the same way, under a positive operator of its
dialect; the finding says which condition to add in that dialect. Wildcards and pinning conditions are
judged by `policies.principals`, which GF-KMS-002 shares.
"""

from __future__ import annotations

import re

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.policies.documents import Statement
from gpufleet.policies.iam import sources
from gpufleet.policies.principals import GITHUB, OIDC_SUB, is_anyone, is_github_subject, pinning
from gpufleet.policies.props import Malformed
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import joined, rule_checkov, rule_url

# Each cloud's module gives the remediation's words (`TRUST_PRINCIPALS`, `PIN_CONDITIONS`,
# `GITHUB_SUBJECT_NOTE`) and how its dialect pins a GitHub repository (`GITHUB_SUBJECT_KEY`,
# `SUBJECT_OPERATORS`).
PARTS = cloud_parts("gpufleet.policies.iam")


def _github_remediation() -> str:
    """`key (cloud's note, ...)` for each subject key, in cloud order, joined by "or"."""
    notes: dict[str, list[str]] = {}
    for cloud, key in part_values(PARTS, "GITHUB_SUBJECT_KEY").items():
        notes.setdefault(key, []).append(PARTS[cloud].GITHUB_SUBJECT_NOTE)
    return " or ".join(f"{key} ({', '.join(note)})" for key, note in notes.items())


RULE = Rule(
    id="GF-IAM-004",
    name="trust-specific-principals",
    description="Role trust policies name specific principals (no `*`).",
    clouds=tuple(part_values(PARTS, "TRUST")),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Name the accounts, roles or services that may assume the role in the trust policy "
        f"({joined(PARTS, 'TRUST_PRINCIPALS', ', ')}), or pin a wildcard to your accounts or "
        f"organisation with a positive condition ({joined(PARTS, 'PIN_CONDITIONS', ', ')}); "
        "sts:ExternalId alone is not a restriction. Pin GitHub Actions roles with "
        f"{_github_remediation()} naming the repository owner."
    ),
    url=rule_url(PARTS, "GF-IAM-004"),
    checkov=rule_checkov(PARTS, "GF-IAM-004"),
)


# An Alibaba RAM or Tencent CAM OIDC provider is named freely: `acs:ram::<uid>:oidc-provider/<name>`,
# `qcs::cam::uin/<uin>:oidc-provider/<name>`.
_PROVIDER_NAME = re.compile(r":oidc-provider/(?P<name>[^:]+)$", re.IGNORECASE)

# How each dialect writes the condition that pins the repository, by trust type.
_SUBJECT_ADVICE = {
    token: f"a {part.SUBJECT_OPERATORS} condition on {part.GITHUB_SUBJECT_KEY}"
    for part in PARTS.values()
    for token in getattr(part, "TRUST", {})
}


def _issuers(statement: Statement) -> list[str]:
    """The `oidc:iss` values a RAM or CAM OIDC trust requires (lower-case)."""
    return [
        value.lower()
        for body in statement.conditions.values()
        for key, values in body.items()
        if key.lower() == "oidc:iss"
        for value in values
    ]


def _github_named(value: str) -> bool:
    """A RAM or CAM provider named for GitHub (`oidc-provider/GitHubActions`). Only those names are
    read: an AWS provider is named by its issuer's URL."""
    lower = value.lower()
    named = _PROVIDER_NAME.search(lower) if lower.startswith(("acs:", "qcs:")) else None
    return named is not None and "github" in named.group("name")


def _github(statement: Statement) -> bool:
    """Whether the statement trusts GitHub Actions tokens: the provider's URL (AWS) or GitHub's own
    condition keys say so; else the `oidc:iss` a RAM or CAM trust requires, or, when it requires
    none, the provider's name."""
    federated = [p for p in statement.principals if p.kind == "Federated"]
    if not federated:
        return False
    if any(GITHUB in p.value.lower() for p in federated) or any(
        key.lower().startswith((f"{GITHUB}:", f"{GITHUB}/")) for key in statement.condition_keys()
    ):
        return True
    issuers = _issuers(statement)
    if issuers:
        return any(GITHUB in issuer for issuer in issuers)
    return any(_github_named(p.value) for p in federated)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type not in sources.TRUST:
        return
    label = f"{sources.LABELS[args.resource_type]} '{args.name}'"
    try:
        located = sources.trust_document(args.resource_type, args.props)
    except Malformed as error:
        report(error.about(label), None)
        return
    if located is None:
        return
    for where, statement in located.statements():
        if not statement.is_allow:
            continue
        if statement.not_principals:
            report(
                f"{label} trust policy {where} uses NotPrincipal, which trusts everyone not listed; "
                "name the trusted principals",
                None,
            )
            continue
        wildcards = [p for p in statement.principals if is_anyone(p)]
        if wildcards:
            pinned, reasons = pinning(statement, lambda key: True)
            if not pinned:
                shown = ", ".join(f"{p.kind}: {p.value!r}" if p.kind != "*" else "'*'" for p in wildcards)
                note = f" ({'; '.join(reasons)})" if reasons else ""
                report(
                    f"{label} trust policy {where} trusts any principal ({shown}) without a restricting "
                    f"condition{note}; name specific accounts, roles or services",
                    None,
                )
                continue
        if _github(statement):
            pinned, reasons = pinning(
                statement, lambda key: is_github_subject(key) or key.lower() == OIDC_SUB, github=True
            )
            if not pinned:
                note = f" ({'; '.join(reasons)})" if reasons else ""
                advice = _SUBJECT_ADVICE[args.resource_type]
                report(
                    f"{label} trust policy {where} trusts GitHub Actions tokens without pinning the "
                    f"repository{note}; any GitHub repository may assume the role: add {advice} "
                    "naming the owner and repository "
                    "(repo:OWNER/REPO:...)",
                    None,
                )


POLICY = GfResourcePolicy(RULE, validate, judges(sources.TRUST))
