"""GF-KMS-002: KMS key policies grant no `kms:*` (nor a dangerous kms action) to a wildcard principal.

Documents read: `policy` of `kms.Key`, `kms.ExternalKey`, `kms.ReplicaKey`, `kms.ReplicaExternalKey`
and `kms.KeyPolicy`, as JSON strings or objects. A violation is an Allow whose actions cover one of
the dangerous kms actions (`DANGEROUS_ACTIONS`: using the key such as `kms:Decrypt` and
`kms:GenerateDataKey`, rewriting its policy or grants such as `kms:PutKeyPolicy` and `kms:CreateGrant`,
destroying it such as `kms:ScheduleKeyDeletion`, and creating keys or aliases), or that uses `NotAction`
(every action but the listed ones) and so covers one of them, and whose
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

Actions are matched as KMS matches them, by glob against the list (`*` any run, `?` one character, any
letter case): `kms:*`, `*`, `kms:Put*`, `kms:*Key*`, `kms:Create*` and `kms:Decrypt` all cover a
dangerous action; `kms:Describe*`, `kms:List*`, `kms:Get*` and `kms:Verify` do not. An Allow with
`NotPrincipal` grants to every principal but the listed ones, so it is a violation whatever its actions
and conditions; name the principals in `Principal` instead.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import of_type, part_merged, part_values
from gpufleet.policies.documents import action_matches, parse_document
from gpufleet.policies.kms._keys import PARTS
from gpufleet.policies.principals import PINNING_KEYS, ValueCheck, is_anyone, pinning
from gpufleet.policies.props import Malformed, get_ref
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import chained, clouds_with, sole

# The kms actions a stranger must never be granted: use of the key's material, control of its policy
# and grants, its destruction or disabling, and the creation of keys, aliases and key stores.
DANGEROUS_ACTIONS = tuple(
    f"kms:{name}"
    for name in (
        "Decrypt",
        "Encrypt",
        "ReEncryptFrom",
        "ReEncryptTo",
        "GenerateDataKey",
        "GenerateDataKeyWithoutPlaintext",
        "GenerateDataKeyPair",
        "GenerateDataKeyPairWithoutPlaintext",
        "GenerateMac",
        "Sign",
        "DeriveSharedSecret",
        "PutKeyPolicy",
        "CreateGrant",
        "RetireGrant",
        "RevokeGrant",
        "ScheduleKeyDeletion",
        "CancelKeyDeletion",
        "DisableKey",
        "EnableKey",
        "DisableKeyRotation",
        "EnableKeyRotation",
        "RotateKeyOnDemand",
        "ImportKeyMaterial",
        "DeleteImportedKeyMaterial",
        "ReplicateKey",
        "UpdatePrimaryRegion",
        "UpdateKeyDescription",
        "TagResource",
        "UntagResource",
        "CreateKey",
        "CreateAlias",
        "UpdateAlias",
        "DeleteAlias",
        "CreateCustomKeyStore",
        "UpdateCustomKeyStore",
        "DeleteCustomKeyStore",
        "ConnectCustomKeyStore",
        "DisconnectCustomKeyStore",
    )
)
_SHOWN = 3

RULE = Rule(
    id="GF-KMS-002",
    name="kms-key-policy-no-wildcard",
    description="KMS key policies grant no `kms:*` (nor a dangerous kms action) to a wildcard principal.",
    clouds=clouds_with(PARTS, "KEY_POLICY_KINDS"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=" ".join(part_values(PARTS, "KEY_POLICY_REMEDIATION").values()),
    url=sole(PARTS, "KEY_POLICY_URL"),
    checkov=chained(PARTS, "KEY_POLICY_CHECKOV"),
)

# The resources carrying a key policy, by how findings name them (only AWS models key policies).
KINDS: dict[str, str] = part_merged(PARTS, "KEY_POLICY_KINDS")
# KMS's own caller keys, beside the account and organisation keys every rule shares.
KMS_PINNING_KEYS: dict[str, ValueCheck] = part_merged(PARTS, "KEY_POLICY_PINNING_KEYS")
# How a finding says to restrict a wildcard principal, by key policy type.
_RESTRICT = {
    kind: part.KEY_POLICY_RESTRICT
    for part in PARTS.values()
    if hasattr(part, "KEY_POLICY_KINDS")
    for kind in part.KEY_POLICY_KINDS
}


def _account_key(key: str) -> bool:
    """Keys that can restrict a key policy's caller (web-identity keys have no meaning here)."""
    return key.lower() in PINNING_KEYS or key.lower() in KMS_PINNING_KEYS


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind = KINDS.get(args.resource_type)
    if kind is None:
        return
    try:
        document = parse_document(get_ref(args.props, "policy"), "policy", _dialect(args.resource_type))
    except Malformed as error:
        report(error.about(f"{kind} '{args.name}'"), None)
        return
    if document is None:
        return
    for number, statement in enumerate(document.statements, start=1):
        # Numbered from 1, as every rule names statements ("statement 2", or by Sid "statement 'Open'").
        sid = f"'{statement.sid}'" if statement.sid else str(number)
        if statement.is_allow and statement.not_principals:
            excluded = ", ".join(p.value for p in statement.not_principals)
            report(
                f"{kind} '{args.name}' policy statement {sid} allows every principal except {excluded} "
                "(Allow with NotPrincipal); name the principals in Principal instead",
                None,
            )
            continue
        if not statement.is_allow or not any(is_anyone(p) for p in statement.principals):
            continue
        pinned, reasons = pinning(statement, _account_key, extra=KMS_PINNING_KEYS)
        if pinned:
            continue
        # Conditions that look like a restriction but are not: say why (e.g. a negated operator).
        note = f" without a restricting condition ({'; '.join(reasons)})" if reasons else ""
        if statement.not_actions:
            if any(statement.grants(action) for action in DANGEROUS_ACTIONS):
                excluded = ", ".join(statement.not_actions)
                report(
                    f"{kind} '{args.name}' policy statement {sid} allows every action except {excluded} "
                    f"(Allow with NotAction) to any principal (*){note}; name the principals or restrict "
                    f"them with {_RESTRICT[args.resource_type]}",
                    None,
                )
            continue
        broad = [a for a in statement.actions if a.strip().lower() in ("*", "kms:*")]
        if broad:
            granted = broad[0]
        else:
            found = _dangerous(statement.actions)
            if found is None:
                continue
            granted = found
        report(
            f"{kind} '{args.name}' policy statement {sid} allows {granted} to any principal (*){note}; "
            f"name the principals or restrict them with {_RESTRICT[args.resource_type]}",
            None,
        )


def _dialect(resource_type: str) -> str:
    """The policy-document dialect of a key policy: its cloud's key."""
    owner = of_type(resource_type)
    if owner is None:
        raise ValueError(f"{resource_type} belongs to no cloud")
    return owner.key


def _dangerous(patterns: tuple[str, ...]) -> str | None:
    """The first pattern covering a dangerous action, said with what it covers (`kms:Put*
    (kms:PutKeyPolicy)`), or None when every pattern is harmless."""
    for pattern in patterns:
        covered = [action for action in DANGEROUS_ACTIONS if action_matches(pattern, action)]
        if not covered:
            continue
        if len(covered) == 1 and covered[0].lower() == pattern.strip().lower():
            return pattern
        shown = ", ".join(covered[:_SHOWN]) + (
            f" and {len(covered) - _SHOWN} more" if len(covered) > _SHOWN else ""
        )
        return f"{pattern} ({shown})"
    return None


POLICY = GfResourcePolicy(RULE, validate, judges(KINDS))
