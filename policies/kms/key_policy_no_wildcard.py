"""GF-KMS-002: KMS key policies grant no `kms:*` to a wildcard principal (AWS only).

Documents read: `policy` of `kms.Key`, `kms.ExternalKey`, `kms.ReplicaKey`, `kms.ReplicaExternalKey`
and `kms.KeyPolicy`, as JSON strings or objects. A violation is an Allow whose actions include `kms:*`
or `*` (in any letter case), or that uses `NotAction` (every action but the listed ones), and whose
principal is a wildcard (`*`, `{"AWS": "*"}`, an ARN with `*` in it such as `arn:aws:iam::*:root`),
unless a condition pins the caller to named accounts or an organisation. Wildcards and pinning are
judged as GF-IAM-004 judges them (`policies.principals`): a positive operator (`StringEquals`,
`StringLike`, `ArnEquals`, `ArnLike`) on `aws:PrincipalAccount`, `aws:SourceAccount` or
`kms:CallerAccount` (12 digits), `aws:PrincipalOrgID` (`o-...`), `aws:PrincipalOrgPaths`,
`aws:PrincipalArn` (a concrete account) and the other account keys, with every value concrete. A
negated operator, an `...IfExists` or `ForAllValues:` form, a wildcard value or any other key restricts
nothing, and the finding says why. An unknown action list or effect cannot be judged; an unknown
principal is a reference to a named role or account, never a wildcard. Alibaba Cloud and Tencent Cloud
key policies are not modelled by their SDKs' key resources in the same way, so the rule is AWS only, as
in the catalogue.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.documents import parse_document
from policies.kms._keys import (
    AWS_EXTERNAL_KEY,
    AWS_KEY,
    AWS_KEY_POLICY,
    AWS_REPLICA_EXTERNAL_KEY,
    AWS_REPLICA_KEY,
)
from policies.principals import PINNING_KEYS, aws_account, is_anyone, pinning
from policies.props import Malformed, get_ref
from policies.rule import GfResourcePolicy, Rule, judges

RULE = Rule(
    id="GF-KMS-002",
    name="kms-key-policy-no-wildcard",
    description="KMS key policies grant no `kms:*` to a wildcard principal.",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "In the key policy (aws.kms.Key policy or aws.kms.KeyPolicy), name the principals "
        "(arn:aws:iam::<account>:root or specific roles) instead of '*', or restrict a '*' principal with a "
        "condition on aws:PrincipalAccount / kms:CallerAccount, and grant only the kms actions needed."
    ),
    url="https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-overview.html",
    checkov=("CKV_AWS_33",),
)

KINDS = {
    AWS_KEY: "AWS KMS key",
    AWS_EXTERNAL_KEY: "AWS KMS external key",
    AWS_REPLICA_KEY: "AWS KMS replica key",
    AWS_REPLICA_EXTERNAL_KEY: "AWS KMS replica external key",
    AWS_KEY_POLICY: "AWS KMS key policy",
}
# KMS's own caller key, beside the account and organisation keys every rule shares.
KMS_PINNING_KEYS = {"kms:calleraccount": aws_account}


def _account_key(key: str) -> bool:
    """Keys that can restrict a key policy's caller (web-identity keys have no meaning here)."""
    return key.lower() in PINNING_KEYS or key.lower() in KMS_PINNING_KEYS


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind = KINDS.get(args.resource_type)
    if kind is None:
        return
    try:
        document = parse_document(get_ref(args.props, "policy"), "policy", "aws")
    except Malformed as error:
        report(error.about(f"{kind} '{args.name}'"), None)
        return
    if document is None:
        return
    for number, statement in enumerate(document.statements, start=1):
        if not statement.is_allow or not any(is_anyone(p) for p in statement.principals):
            continue
        pinned, reasons = pinning(statement, _account_key, extra=KMS_PINNING_KEYS)
        if pinned:
            continue
        # Conditions that look like a restriction but are not: say why (e.g. a negated operator).
        note = f" without a restricting condition ({'; '.join(reasons)})" if reasons else ""
        # Numbered from 1, as every rule names statements ("statement 2", or by Sid "statement 'Open'").
        sid = f"'{statement.sid}'" if statement.sid else str(number)
        if statement.not_actions:
            if statement.grants("kms:*"):
                excluded = ", ".join(statement.not_actions)
                report(
                    f"{kind} '{args.name}' policy statement {sid} allows every action except {excluded} "
                    f"(Allow with NotAction) to any principal (*){note}; name the principals or restrict "
                    "them with aws:PrincipalAccount or kms:CallerAccount",
                    None,
                )
            continue
        broad = [a for a in statement.actions if a.strip().lower() in ("*", "kms:*")]
        if broad:
            report(
                f"{kind} '{args.name}' policy statement {sid} allows {broad[0]} to any principal (*){note}; "
                "name the principals or restrict them with aws:PrincipalAccount or kms:CallerAccount",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(KINDS))
