"""GF-IAM-004: role trust policies name specific principals (no `*`).

Judged on every trust document (see `policies.iam.sources`): AWS `aws:iam/role:Role`
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
(`token.actions.githubusercontent.com/<enterprise>:sub`) are judged the same way, and so is an Alibaba
RAM OIDC trust whose `oidc:iss` condition names GitHub: its `oidc:sub` must name the owner.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.documents import UNKNOWN, Principal, Statement
from policies.iam import sources
from policies.props import Malformed
from policies.rule import GfResourcePolicy, Rule, judges

RULE = Rule(
    id="GF-IAM-004",
    name="trust-specific-principals",
    description="Role trust policies name specific principals (no `*`).",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Name the accounts, roles or services that may assume the role in the trust policy (AWS Role "
        "`assumeRolePolicy` Principal, Alibaba RAM Role `assumeRolePolicyDocument` Principal RAM/Service, "
        "Tencent CAM Role `document` principal qcs/service), or pin a wildcard to your accounts or "
        "organisation with a positive condition (StringEquals aws:PrincipalOrgID, aws:PrincipalAccount, "
        "aws:SourceAccount); sts:ExternalId alone is not a restriction. Pin GitHub Actions roles with "
        "token.actions.githubusercontent.com:sub."
    ),
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html",
    checkov=("CKV_AWS_60",),
)

_ACCOUNT = re.compile(r"\d{12}")
_ORG = re.compile(r"o-[a-z0-9]+", re.IGNORECASE)
_ORG_PATH = re.compile(r"o-[a-z0-9]+/.*", re.IGNORECASE)
_GITHUB = "token.actions.githubusercontent.com"
# `repo:OWNER/...`, `repo:OWNER:...` or a customised claim such as `repository_owner:OWNER`: the owner is
# written out whole, so a wildcard may not end it early (`repo:ac*` matches every owner starting "ac").
_GITHUB_SUBJECT = re.compile(r"[a-z_]+:[^*?:/]+(?:[/:]|$)", re.IGNORECASE)
# GitHub Enterprise Cloud issuers add the enterprise slug: token.actions.githubusercontent.com/<slug>.
_ALIBABA_SUB = "oidc:sub"
_GITHUB_SUB_KEY = re.compile(re.escape(_GITHUB) + r"(?:/[^:/]+)?:sub", re.IGNORECASE)
_POSITIVE = frozenset(
    {
        "stringequals",
        "stringequalsignorecase",
        "stringlike",
        "arnequals",
        "arnlike",
        "string_equal",
        "string_like",
    }
)
_FEDERATED_SUFFIXES = (":aud", ":sub", ":oaud")

# Tencent CAM's spelling of "everyone" carries no `*`.
ANYONE = frozenset({"qcs::cam::anyone:anyone", "qcs::cam::anyone"})


def _literal_start(value: str) -> bool:
    return value[:1] not in ("", "*", "?")


def _arn_fields(value: str) -> list[str] | None:
    fields = value.split(":", 5)
    return fields if len(fields) == 6 and fields[0].lower() == "arn" else None


def _principal_arn(value: str) -> bool:
    fields = _arn_fields(value)
    return fields is not None and _ACCOUNT.fullmatch(fields[4]) is not None


def _source_arn(value: str) -> bool:
    fields = _arn_fields(value)
    if fields is None:
        return False
    return _ACCOUNT.fullmatch(fields[4]) is not None or (fields[4] == "" and _literal_start(fields[5]))


# condition key (lower-case) -> whether one value of it names a caller concretely
PINNING_KEYS: dict[str, Callable[[str], bool]] = {
    "aws:principalaccount": lambda v: _ACCOUNT.fullmatch(v) is not None,
    "aws:sourceaccount": lambda v: _ACCOUNT.fullmatch(v) is not None,
    "aws:principalorgid": lambda v: _ORG.fullmatch(v) is not None,
    "aws:sourceorgid": lambda v: _ORG.fullmatch(v) is not None,
    "aws:principalorgpaths": lambda v: _ORG_PATH.fullmatch(v) is not None,
    "aws:sourceorgpaths": lambda v: _ORG_PATH.fullmatch(v) is not None,
    "aws:principalarn": _principal_arn,
    "aws:sourcearn": _source_arn,
    "aws:userid": _literal_start,
    "acs:sourceaccount": lambda v: v.isdigit(),
    "acs:principalarn": _literal_start,
    "qcs:uin": lambda v: v.isdigit(),
    "qcs:owner_uin": lambda v: v.isdigit(),
}


def _wildcard(principal: Principal) -> bool:
    if principal.kind == "Service":
        return False
    return "*" in principal.value or principal.value.strip().lower() in ANYONE


def _value_check(key: str, github: bool = False) -> Callable[[str], bool] | None:
    lower = key.lower()
    if _is_github_subject(key) or (github and lower == _ALIBABA_SUB):
        return lambda v: _GITHUB_SUBJECT.match(v) is not None
    if lower in PINNING_KEYS:
        return PINNING_KEYS[lower]
    if lower.endswith(_FEDERATED_SUFFIXES):
        return _literal_start
    return None


def _why_not(operator: str, key: str, values: tuple[str, ...], github: bool = False) -> str | None:
    """None when this condition pins the caller, else why it does not (one clause)."""
    lower = operator.lower()
    if key.lower() == "sts:externalid":
        return f"{operator} {key} is not a secret and pins no caller"
    check = _value_check(key, github)
    if check is None:
        return f"{operator} {key} names no account or organisation"
    if lower.startswith("forallvalues:") or "ifexist" in lower:
        return f"{operator} {key} also passes when the key is absent"
    base = lower.removeprefix("foranyvalue:").removeprefix("for_any_value:")
    if base not in _POSITIVE:
        return f"{operator} {key} is not a positive match"
    if not values:
        return f"{operator} {key} lists no value"
    loose = [v for v in values if v != UNKNOWN and not check(v)]
    if loose:
        shown = ", ".join(repr(v) for v in loose)
        if _is_github_subject(key) or (github and key.lower() == _ALIBABA_SUB):
            return f"{operator} {key} {shown} names no repository owner"
        return f"{operator} {key} {shown} names no one account or organisation"
    return None


def _pinning(
    statement: Statement, keys: Callable[[str], bool], github: bool = False
) -> tuple[bool, list[str]]:
    """(whether a condition on a key selected by `keys` pins the caller, why the others do not)."""
    reasons: list[str] = []
    for operator, body in statement.conditions.items():
        for key, values in body.items():
            if not keys(key):
                continue
            why = _why_not(operator, key, values, github)
            if why is None:
                return True, []
            reasons.append(why)
    return False, reasons


def _is_github_subject(key: str) -> bool:
    return _GITHUB_SUB_KEY.fullmatch(key) is not None


def _alibaba_github(statement: Statement) -> bool:
    """An Alibaba RAM OIDC trust names its provider freely; GitHub shows in the `oidc:iss` it requires."""
    return any(
        key.lower() == "oidc:iss" and any(_GITHUB in value.lower() for value in values)
        for body in statement.conditions.values()
        for key, values in body.items()
    )


def _github(statement: Statement) -> bool:
    federated = [p for p in statement.principals if p.kind == "Federated"]
    named = any(_GITHUB in p.value.lower() for p in federated) or (
        bool(federated) and _alibaba_github(statement)
    )
    keyed = bool(federated) and any(
        key.lower().startswith((f"{_GITHUB}:", f"{_GITHUB}/")) for key in statement.condition_keys()
    )
    return named or keyed


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
        wildcards = [p for p in statement.principals if _wildcard(p)]
        if wildcards:
            pinned, reasons = _pinning(statement, lambda key: True)
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
            pinned, reasons = _pinning(
                statement, lambda key: _is_github_subject(key) or key.lower() == _ALIBABA_SUB, github=True
            )
            if not pinned:
                note = f" ({'; '.join(reasons)})" if reasons else ""
                key = _ALIBABA_SUB if args.resource_type.startswith("alicloud:") else f"{_GITHUB}:sub"
                report(
                    f"{label} trust policy {where} trusts GitHub Actions tokens without pinning the "
                    f"repository{note}; any GitHub repository may assume the role: add a StringEquals or "
                    f"StringLike condition on {key} naming the owner and repository "
                    "(repo:OWNER/REPO:...)",
                    None,
                )


POLICY = GfResourcePolicy(RULE, validate, judges(sources.TRUST))
