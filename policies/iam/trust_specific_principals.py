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

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.documents import Statement
from policies.iam import sources
from policies.principals import GITHUB, OIDC_SUB, is_anyone, is_github_subject, pinning
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


def _alibaba_github(statement: Statement) -> bool:
    """An Alibaba RAM OIDC trust names its provider freely; GitHub shows in the `oidc:iss` it requires."""
    return any(
        key.lower() == "oidc:iss" and any(GITHUB in value.lower() for value in values)
        for body in statement.conditions.values()
        for key, values in body.items()
    )


def _github(statement: Statement) -> bool:
    federated = [p for p in statement.principals if p.kind == "Federated"]
    named = any(GITHUB in p.value.lower() for p in federated) or (
        bool(federated) and _alibaba_github(statement)
    )
    keyed = bool(federated) and any(
        key.lower().startswith((f"{GITHUB}:", f"{GITHUB}/")) for key in statement.condition_keys()
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
                key = OIDC_SUB if args.resource_type.startswith("alicloud:") else f"{GITHUB}:sub"
                report(
                    f"{label} trust policy {where} trusts GitHub Actions tokens without pinning the "
                    f"repository{note}; any GitHub repository may assume the role: add a StringEquals or "
                    f"StringLike condition on {key} naming the owner and repository "
                    "(repo:OWNER/REPO:...)",
                    None,
                )


POLICY = GfResourcePolicy(RULE, validate, judges(sources.TRUST))
