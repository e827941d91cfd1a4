"""GF-IAM-004: role trust policies name specific principals (no `*`).

Judged on every trust document (see `policies.iam.sources`): AWS `aws:iam/role:Role`
`assumeRolePolicy`, Alibaba `alicloud:ram/role:Role` / `alicloud:resourcemanager/role:Role`
`assumeRolePolicyDocument`, Tencent `tencentcloud:Cam/role:Role` / `Cam/roleByName` `document`.

An Allow statement fails when a principal is a wildcard (`"*"`, `{"AWS": "*"}`, `{"RAM": ["*"]}`,
`{"qcs": ["*"]}`, Tencent's `{"qcs": ["qcs::cam::anyone:anyone"]}`, or an ARN with `*` in it such as
`arn:aws:iam::*:root`) and no condition restricts
who may use it (`sts:ExternalId`, `aws:PrincipalOrgID`, `aws:PrincipalAccount`, `aws:SourceAccount`,
`aws:SourceArn`, `aws:SourceOrgID`, `aws:PrincipalArn`, `aws:userid`, web-identity `aud`/`sub`
keys), or when it uses `NotPrincipal`. Service principals (`ec2.amazonaws.com`, `ecs.aliyuncs.com`,
`cvm.qcloud.com`) are specific.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.documents import Principal
from policies.iam import sources
from policies.props import Malformed
from policies.rule import GfResourcePolicy, Rule

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
        "Tencent CAM Role `document` principal qcs/service), or restrict a wildcard with a condition such "
        "as sts:ExternalId or aws:PrincipalOrgID."
    ),
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html",
    checkov=("CKV_AWS_60",),
)

RESTRICTING_KEYS = frozenset(
    {
        "sts:externalid",
        "aws:principalorgid",
        "aws:principalorgpaths",
        "aws:principalaccount",
        "aws:principalarn",
        "aws:sourceaccount",
        "aws:sourcearn",
        "aws:sourceorgid",
        "aws:sourceorgpaths",
        "aws:userid",
        "acs:sourceaccount",
        "acs:principalarn",
        "qcs:uin",
        "qcs:owner_uin",
    }
)
_FEDERATED_SUFFIXES = (":aud", ":sub", ":amr", ":oaud")


# Tencent CAM's spelling of "everyone" carries no `*`.
ANYONE = frozenset({"qcs::cam::anyone:anyone", "qcs::cam::anyone"})


def _wildcard(principal: Principal) -> bool:
    if principal.kind == "Service":
        return False
    return "*" in principal.value or principal.value.strip().lower() in ANYONE


def _restricted(keys: set[str]) -> bool:
    return bool(keys & RESTRICTING_KEYS) or any(key.endswith(_FEDERATED_SUFFIXES) for key in keys)


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
        if wildcards and not _restricted(statement.condition_keys()):
            shown = ", ".join(f"{p.kind}: {p.value!r}" if p.kind != "*" else "'*'" for p in wildcards)
            report(
                f"{label} trust policy {where} trusts any principal ({shown}) without a restricting "
                "condition; name specific accounts, roles or services",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate)
